import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { WorkspaceJanitor } from '../activities/sandbox/janitor';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { workflowLiveness } from '../infra/workflow-liveness';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { testTemporalAddress } from './helpers/temporal';
import { waitFor } from './helpers/wait';

jest.setTimeout(120_000);
const run = promisify(execFile);

/**
 * Issue 24 item 3: a run terminated by an operator runs no more code, so its run-end close never
 * happens; its detached job would live until the workspace is released. The janitor on the
 * worker host ends the sandboxes of closed workflows (and only those).
 */
describe('the workspace janitor', () => {
  let kit: RunKit;
  beforeAll(async () => {
    kit = await startRunKit('janitor');
  });
  afterAll(async () => {
    await kit?.close();
  });

  /** Host pids of `sleep <seconds>` processes (a marker no other test uses). */
  const sleepers = (seconds: number) =>
    readdirSync('/proc').filter((pid) => {
      try {
        return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${seconds}\0`;
      } catch {
        return false;
      }
    });

  /** A run that detaches a job (the documented recipe), then waits in a long command. */
  const detachingRun = (name: string, seconds: number) =>
    kit.script(name, [
      {
        text: 'Start a job, then wait.',
        toolCalls: [{ name: 'bash', input: { command: `setsid -f sh -c 'sleep ${seconds}' </dev/null >/dev/null 2>&1; echo started` } }],
      },
      { text: 'Waiting.', toolCalls: [{ name: 'bash', input: { command: 'sleep 600' } }] },
      { text: 'never reached' },
    ]);

  const terminate = async (workflowId: string) => {
    await run(resolveTemporalBinary('cli').path, [
      'workflow',
      'terminate',
      '--address',
      testTemporalAddress(),
      '--workflow-id',
      workflowId,
      '--reason',
      'janitor test',
    ]);
  };

  test('a terminated run leaves its detached job running, and the janitor ends it; a running run keeps its own', async () => {
    const seconds = 4000 + Math.floor(Math.random() * 900);
    const doomed = await kit.start('start a job', { agent: 'explore', model: detachingRun('doomed', seconds) });
    const kept = await kit.start('start a job', { agent: 'explore', model: detachingRun('kept', seconds + 1) });
    await waitFor(async () => sleepers(seconds).length === 1 && sleepers(seconds + 1).length === 1, 90_000);
    const janitor = new WorkspaceJanitor({ host: kit.sandboxHost, liveness: workflowLiveness(kit.client) });

    // Both runs still run: nothing is ended.
    expect(await janitor.sweep()).toEqual([]);
    await terminate(doomed.runId);
    await waitFor(async () => (await kit.client.workflow.getHandle(doomed.runId).describe()).status.name === 'TERMINATED');
    // Terminated, the run closed nothing: its job lives on (the leak this janitor exists for).
    expect(sleepers(seconds)).toHaveLength(1);

    const ended = await janitor.sweep();
    expect(ended).toHaveLength(1);
    await waitFor(async () => sleepers(seconds).length === 0);
    // The other person's run, still running, keeps its job and its sandbox.
    expect(sleepers(seconds + 1)).toHaveLength(1);
    expect(await janitor.sweep()).toEqual([]);
    await terminate(kept.runId);
    await terminate(kept.threadId);
    await terminate(doomed.threadId);
    await janitor.sweep();
    await waitFor(async () => sleepers(seconds + 1).length === 0);
  });

  test('a sandbox no running workflow owns is ended once the grace period has passed', async () => {
    const workspace = { key: `thread:janitor:orphan:${process.pid}`, network: false };
    await kit.sandboxHost.prepare(workspace, 'run:never:existed:1');
    let now = Date.now();
    const janitor = new WorkspaceJanitor({
      host: kit.sandboxHost,
      liveness: workflowLiveness(kit.client),
      unknownGraceMs: 60_000,
      now: () => now,
    });
    expect(await janitor.sweep()).toEqual([]);
    now += 61_000;
    expect(await janitor.sweep()).toHaveLength(1);
    expect(await kit.sandboxHost.liveHolders()).toEqual(
      expect.not.arrayContaining([expect.objectContaining({ holder: expect.objectContaining({ owners: ['run:never:existed:1'] }) })]),
    );
  });
});
