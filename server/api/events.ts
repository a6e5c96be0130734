import { type Door } from './door';
import { type RouteContext } from './route-context';

/** A comment line this often keeps proxies from closing a quiet stream. */
export const KEEP_ALIVE_MS = 15_000;

/**
 * `GET /jobs/:id/events`: Server-Sent Events. Access and existence are checked before the
 * stream opens (so they answer as problems); then `status` events while the run works and one
 * `report` with the final document. A client that goes away stops the polling at once.
 */
export async function streamJobEvents(door: Door, context: RouteContext): Promise<undefined> {
  const { caller, res } = context;
  const jobId = context.params.jobId;
  const first = await door.getJob(caller, jobId);
  res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  let id = 0;
  const send = (event: string, data: unknown) => {
    if (!res.writableEnded) res.write(`id: ${++id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  if (first.state !== 'running') {
    send('report', first);
    res.end();
    return undefined;
  }
  const gone = new AbortController();
  res.on('close', () => gone.abort());
  const keepAlive = setInterval(() => {
    if (!res.writableEnded) res.write(': keep-alive\n\n');
  }, KEEP_ALIVE_MS);
  // Each status carries the job's links (its session page among them), so a follower can open it at any point.
  const withLinks = (status: object) => ({ ...status, links: first.links });
  try {
    if (first.status) send('status', withLinks(first.status));
    const final = await door.watchJob(caller, jobId, {
      signal: gone.signal,
      onStatus: (status) => send('status', withLinks(status)),
      ...(first.status ? { seen: first.status } : {}),
    });
    if (final) send('report', final);
  } catch (error) {
    // Headers are out: the failure becomes an event, never a broken stream with a stack.
    send('error', { detail: error instanceof Error ? error.message : String(error) });
  } finally {
    clearInterval(keepAlive);
    if (!res.writableEnded) res.end();
  }
  return undefined;
}
