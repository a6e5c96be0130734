import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { createGitHubIdentities } from '../activities/github';
import { WorkspaceJanitor } from '../activities/sandbox/janitor';
import { endedOwners, tellEndedUnit } from '../infra/ended-owners';
import { stopSignal, unitStateQuery } from '../workflows/contracts';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { resolveTemporalBinary } from '../infra/temporal-binaries';
import { workflowLiveness } from '../infra/workflow-liveness';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { testTemporalAddress } from './helpers/temporal';
import { waitFor, waitUntil } from './helpers/wait';

jest.setTimeout(240_000);
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

/**
 * Issue 32: a unit terminated while idle runs no more code, so it never releases its checkout and
 * its pull request never hears it ended. The janitor releases the checkout of a unit (or thread)
 * that was terminated, once its id runs no more, and the unit's pull request is told, once.
 */
describe('the workspace janitor, for units that were terminated', () => {
  let ship: ShipKit;
  beforeAll(async () => {
    ship = await startShipKit('janitor-units', { ship: { checksPollSeconds: 2 } });
  });
  afterAll(async () => ship?.close());

  test('a terminated idle unit’s checkout is removed and its pull request told once; a running unit keeps its own', async () => {
    const model = ship.kit.script('janitor-unit', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Good.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            text: 'Greeting.',
            toolCalls: [
              { name: 'bash', input: { command: 'echo "Hello." >> README.md' } },
              { name: 'submit_description', input: { title: 'Add a greeting', body: 'Adds a greeting.' } },
            ],
          },
        ],
      },
      { text: 'Done.' },
    ]);
    const [idleId, keptId] = [`unit:${REPO}:janitor-idle-${process.pid}`, `unit:${REPO}:janitor-kept-${process.pid}`];
    for (const unitId of [idleId, keptId]) await ship.start({ unitId, request: 'Add a greeting', model });
    const idle = (unitId: string) =>
      waitUntil(
        () => ship.kit.client.workflow.getHandle(unitId).query(unitStateQuery),
        (state) => state.phase === 'idle',
        150_000,
      );
    const [ended, kept] = [await idle(idleId), await idle(keptId)];
    const checkout = (key: string) => ship.kit.sandboxHost.hasFiles({ key, network: true });
    // Each unit has its coding checkout and its review's; a workspace of an agent child under the
    // unit's id (keyed by its own id) is the unit's too.
    const child = (unitId: string) => `${unitId}/coding-1-1/task-0-explore`;
    for (const unitId of [idleId, keptId]) await ship.kit.sandboxHost.prepare({ key: child(unitId), network: false });
    for (const unitId of [idleId, keptId])
      for (const key of [unitId, `${unitId}/review`, child(unitId)]) expect(await checkout(key)).toBe(true);

    await run(resolveTemporalBinary('cli').path, [
      'workflow',
      'terminate',
      '--address',
      testTemporalAddress(),
      '--workflow-id',
      idleId,
      '--reason',
      'cleaning up @ana',
    ]);
    const janitor = new WorkspaceJanitor({
      host: ship.kit.sandboxHost,
      liveness: workflowLiveness(ship.kit.client),
      endedOwners: endedOwners(ship.kit.client),
      released: tellEndedUnit({
        client: ship.kit.client,
        identities: createGitHubIdentities({
          apiUrl: ship.github.apiUrl,
          gitUrl: ship.github.gitUrl,
          tokens: { read: 'read-token', write: 'write-token' },
        }),
      }),
    });
    // Visibility shows the termination a moment later: the sweep that sees it releases the checkout.
    await waitUntil(
      () => janitor.sweep(),
      (released) => released.includes(idleId),
      60_000,
    );
    for (const key of [idleId, `${idleId}/review`, child(idleId)]) expect(await checkout(key)).toBe(false);
    for (const key of [keptId, `${keptId}/review`, child(keptId)]) expect(await checkout(key)).toBe(true);
    const [owner, name] = REPO.split('/');
    const told = () =>
      ship.github.state
        .repo(owner, name)!
        .issues.get(ended.pullRequest!)!
        .comments.filter((comment) => comment.body.includes(`\`${idleId}\` was terminated`));
    expect(told()).toHaveLength(1);
    expect(told()[0].body).toContain('(“cleaning up @\u200bana”)');
    // Nothing twice: the next sweep finds nothing left of it.
    expect(await janitor.sweep()).toEqual([]);
    expect(told()).toHaveLength(1);
    expect(
      ship.github.state
        .repo(owner, name)!
        .issues.get(kept.pullRequest!)!
        .comments.some((c) => c.body.includes('was terminated')),
    ).toBe(false);
    await ship.kit.client.workflow.getHandle(keptId).signal(stopSignal, { reason: 'test over', by: 'tester' });
    await ship.kit.sandboxHost.release({ key: child(keptId), network: true });
  });
});
