import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { type Client } from '@temporalio/client';
import { stopSignal } from '../../workflows/contracts';
import { visibilityQuery } from '../../infra/visibility';

/**
 * Sends `stop` to the conversation's running units and waits (bounded) for each to settle:
 * a unit that settles releases its workspaces, and their sandboxes end with them.
 */
export async function stopUnits(client: Client, threadId: string, timeoutMs = 30_000): Promise<void> {
  const query = `${visibilityQuery({ SwitchboardKind: 'unit', Thread: threadId })} AND ExecutionStatus = "Running"`;
  const waits: Array<Promise<unknown>> = [];
  for await (const execution of client.workflow.list({ query })) {
    const handle = client.workflow.getHandle(execution.workflowId);
    await handle.signal(stopSignal, { reason: 'the demo is stopping', by: 'demo' });
    waits.push(handle.result().catch(() => undefined));
  }
  await Promise.race([Promise.all(waits), delay(timeoutMs, undefined, { ref: false })]);
}

/** Processes whose command line names `folder` (a workspace's sandbox and its jobs name their workspace). */
export function processesUsing(folder: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .flatMap((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        return command.includes(folder) ? [`${pid} ${command.slice(0, 160)}`] : [];
      } catch {
        return []; // ended meanwhile
      }
    });
}

/** Waits until no process names `folder`; returns what is still there after `timeoutMs`. */
export async function waitUntilNoneUse(folder: string, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = processesUsing(folder);
    if (left.length === 0 || Date.now() > deadline) return left;
    await delay(250);
  }
}
