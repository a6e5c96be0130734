import { existsSync } from 'node:fs';
import { workspaceLayout } from '../activities/sandbox/workspace-layout';
import { runStatusQuery } from '../workflows/contracts';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { uniqueTaskQueue } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(120_000);

/**
 * Issue 11 item 5 with many workers (issue 14 item 4): a thread's workspace lives on the disk
 * of the host that prepared it, so a cancelled thread releases it through that host's queue.
 * Two workers of one deployment (each with its own data directory and host queue); once the
 * workspace is on A, A stops polling the shared queue, so a release sent there can only reach B
 * (where there is nothing to release) and A's workspace would stay behind.
 */
describe('a cancelled thread on a deployment of two workers', () => {
  const kits: RunKit[] = [];
  afterAll(async () => {
    for (const kit of kits.reverse()) await kit.close();
  });

  it('releases its workspace on the host that holds it, not on whichever worker takes the shared queue', async () => {
    const taskQueue = uniqueTaskQueue('thread-host');
    const turns = [
      { text: 'A long command.', toolCalls: [{ name: 'bash', input: { command: 'sleep 3196; echo never' } }] },
      { text: 'never' },
    ];
    const a = await startRunKit('thread-host-a', { taskQueue, hostQueue: true });
    kits.push(a);
    const model = a.script('long', turns);
    const { threadId, runId } = await a.start('wait a long time', { agent: 'coding', model });
    await waitUntil(
      () => a.client.workflow.getHandle(runId).query(runStatusQuery),
      (now) => now.phase === 'tools',
    );
    // The phase turns to `tools` before the workspace is prepared; the command is on A only once
    // its activity was scheduled on A's host queue (which follows a completed prepare there).
    await waitUntil(
      async () => (await a.client.workflow.getHandle(runId).fetchHistory()).events ?? [],
      (events) => events.some((event) => event.activityTaskScheduledEventAttributes?.taskQueue?.name === a.hostTaskQueue),
    );
    const onA = workspaceLayout(a.dataDir, { key: threadId, network: true }).root;
    expect(existsSync(onA)).toBe(true);

    const b = await startRunKit('thread-host-b', { taskQueue, hostQueue: true });
    kits.push(b);
    b.script('long', turns);
    await a.stopSharedWorker();

    const thread = b.client.workflow.getHandle(threadId);
    await thread.cancel();
    await thread.result();
    const record = await b.result(runId);
    expect(record).toMatchObject({ outcome: 'stopped', workspaceHost: a.hostTaskQueue });
    expect(existsSync(onA)).toBe(false);
    expect(existsSync(workspaceLayout(b.dataDir, { key: threadId, network: true }).root)).toBe(false);
  });
});
