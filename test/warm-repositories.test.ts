import { execFileSync } from 'node:child_process';
import { readdirSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { registeredRepoCache } from '../activities/sandbox/repo-cache/repo-cache';
import { type BashResult } from '../workflows/contracts/sandbox';
import type { UnitWorkspace } from '../workflows/contracts/unit-workspace';
import { runStatusQuery, stopSignal, unitStateQuery, type RunRecord } from '../workflows/contracts';
import { activityResults } from './helpers/history';
import { REPO, startShipKit, type ShipKit } from './helpers/ship-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(300_000);

/**
 * Issue 35, warm repositories, end to end on the product: two workers of one deployment (each
 * with its own data dir, host queue and resident queues) and units on one repository. The
 * second unit's checkout lands on the host that holds the repository's cache, fetches exactly
 * the objects the cache lacks and gets its setup copied in; no workspace can write the cache;
 * a cache truncated by hand is evicted and the next unit fetches everything itself and is told so.
 */
describe('warm repositories: resident units borrow their host’s cache of the repository', () => {
  let one: ShipKit;
  let two: ShipKit;
  let model: string;

  beforeAll(async () => {
    // A cache refreshed only when it is built, so each checkout's own fetch is what this test counts.
    const kit = { hostQueue: true, residentQueues: true, repoCache: { refreshSeconds: 3_600 } };
    one = await startShipKit('warm-one', { kit });
    two = await startShipKit('warm-two', { github: one.github, kit: { ...kit, taskQueue: one.kit.taskQueue } });
    // Some history, so "only what the cache lacks" is a small part of the repository.
    one.github.commit(REPO, 'main', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`lib/m${i}.js`, `module.exports = ${i};\n`])));
    one.github.commit(REPO, 'main', {
      '.gitignore': 'deps/\n',
      'lock.json': '{"v":1}\n',
      '.switchboard.yml': [
        'setup:',
        '  commands:',
        '    - mkdir -p deps && echo built > deps/out.txt',
        '    - echo ran >> ~/ran.log',
        '  lockfiles: [lock.json]',
        '',
      ].join('\n'),
    });
    // The same scripted model on both workers (either may run a turn).
    const turns = [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Looks right.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            text: 'Adding the greeting.',
            toolCalls: [
              {
                name: 'bash',
                input: {
                  command:
                    'touch /repo-cache/objects/planted 2>&1 | tail -1; cat deps/out.txt; wc -l < ~/ran.log; ' +
                    'cat .git/objects/info/alternates; echo "Hello." >> README.md',
                },
              },
              { name: 'submit_description', input: { title: 'Add a greeting', body: 'Adds a greeting line.' } },
            ],
          },
        ],
      },
      { text: 'Done.' },
    ];
    model = one.kit.script('warm-model', turns);
    two.kit.script('warm-model', turns);
  });
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  /** Objects reachable from the repository's branches on the (local) GitHub. */
  const remoteObjects = () =>
    Number(
      execFileSync('sh', ['-c', 'git rev-list --objects --branches | wc -l'], { cwd: one.github.state.repo('acme', 'app')!.dir })
        .toString()
        .trim(),
    );
  /** Runs a unit until its review approved (it then waits for checks), and answers its checkout and its coding run. */
  async function unitUntilReviewed(slug: string) {
    const unitId = `unit:${REPO}:${slug}`;
    const unit = await one.start({ unitId, request: `Add a greeting (${slug})`, model });
    await waitUntil(
      () => unit.query(unitStateQuery),
      (state) => state.phase === 'checks' || state.phase === 'idle' || state.phase === 'settle',
      240_000,
    );
    const checkouts = await activityResults<UnitWorkspace>(one.kit.client, unitId, 'prepareUnitWorkspace');
    const codingId = `${unitId}/coding-1-1`;
    const coding: RunRecord = await one.kit.client.workflow.getHandle(codingId).result();
    const status = await one.kit.client.workflow.getHandle(codingId).query(runStatusQuery);
    const commands = await activityResults<BashResult>(one.kit.client, codingId, 'bash');
    await unit.signal(stopSignal, { by: 'tester', reason: 'enough' });
    await unit.result();
    return { checkouts, coding, status, commands };
  }
  const cacheHost = async (): Promise<ShipKit | undefined> => {
    for (const ship of [one, two]) if ((await registeredRepoCache(ship.kit.sandboxHost)?.repos())?.includes(REPO)) return ship;
    return undefined;
  };
  const kitOfQueue = (queue: string | undefined) => [one, two].find((ship) => ship.kit.hostTaskQueue === queue);

  it('the second unit lands on the cache’s host, fetches only the new objects, gets its setup copied in, and cannot write the cache', async () => {
    // What the cache will hold: the branches as they are when the first unit checks out.
    const cached = remoteObjects();
    const first = await unitUntilReviewed('warm-first');
    // The first checkout built the cache where it ran and borrowed from it: nothing of its own.
    expect(first.checkouts[0]).toMatchObject({ cached: true, localObjects: 0 });
    const holder = await cacheHost();
    expect(holder).toBeDefined();
    // Its review's checkout (a resident run too) went to the same host.
    expect(first.checkouts.map((checkout) => kitOfQueue(checkout.hostTaskQueue))).toEqual([holder, holder]);
    expect(first.status.setup?.state).toBe('ran');

    // The cache's host stops taking work from the shared queue (its host and resident queues go on):
    // whatever lands there from now on was sent there, never picked by chance.
    await holder!.kit.stopSharedWorker();

    // Meanwhile the repository moves on (the first unit's branch is on it too).
    one.github.commit(REPO, 'main', { 'docs/a.md': 'a\n' });
    one.github.commit(REPO, 'main', { 'docs/b.md': 'b\n' });
    const now = remoteObjects();
    const second = await unitUntilReviewed('warm-second');
    // Sent to the host holding the cache (its resident queue), and fetched exactly what the cache lacks.
    expect(second.checkouts.map((checkout) => kitOfQueue(checkout.hostTaskQueue))).toEqual([holder, holder]);
    expect(second.checkouts[0]).toMatchObject({ cached: true, localObjects: now - cached });
    expect(now - cached).toBeGreaterThan(5);
    expect(now - cached).toBeLessThan(cached / 2);
    // Its setup was copied in from the host, not run: one line in the log, the build output there.
    expect(second.status.setup?.state).toBe('restored');
    const probe = second.commands.find((ran) => ran.output.includes('/repo-cache/objects'))!;
    expect(probe.output).toBe("touch: cannot touch '/repo-cache/objects/planted': Read-only file system\nbuilt\n1\n/repo-cache/objects\n");
  });

  it('a cache truncated by hand: the next unit fetches everything itself, and its run is told so', async () => {
    const holder = (await cacheHost())!;
    const layout = registeredRepoCache(holder.kit.sandboxHost)!.layoutOf(REPO);
    const pack = readdirSync(layout.packs).find((entry) => entry.endsWith('.pack'))!;
    truncateSync(join(layout.packs, pack), 64);
    const everything = remoteObjects();
    const third = await unitUntilReviewed('warm-truncated');
    expect(kitOfQueue(third.checkouts[0].hostTaskQueue)).toBe(holder);
    expect(third.checkouts[0]).toMatchObject({ cached: false, localObjects: everything });
    expect(third.checkouts[0].cacheNotice).toMatch(
      /repository cache of acme\/app on this worker host was corrupt .*fetched everything directly/,
    );
    expect(third.coding.request).toContain(`(workspace) ${third.checkouts[0].cacheNotice}`);
  });
});
