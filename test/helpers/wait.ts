/**
 * Polls `read` until `check` holds, for state that moves on its own (a workflow's query, the
 * process table). Fails with the last value seen, so a stuck test says where it stuck.
 */
export async function waitUntil<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 60_000, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (check(last)) return last;
    } catch {
      // Not answerable yet (a workflow not started, a worker between tasks): try again.
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`);
}

/** Waits until an async predicate is true. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  await waitUntil(check, Boolean, timeoutMs);
}
