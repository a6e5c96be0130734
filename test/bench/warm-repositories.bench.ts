import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { createGitHubIdentities } from '../../activities/github';
import { registeredRepoCache } from '../../activities/sandbox/repo-cache/repo-cache';
import { type BashInput } from '../../workflows/contracts/sandbox';
import type { UnitWorkspace } from '../../workflows/contracts/unit-workspace';
import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { shipUnitWorkflowType, stopSignal } from '../../workflows/contracts';
import { activityResults } from '../helpers/history';
import { startRunKit, type RunKit } from '../helpers/run-kit';
import { sharedEnvironment } from '../helpers/temporal';
import { commitCount, largeRepository, packedBytes, serveFrom, timedClone } from './large-repo';
import { percentile, table, type Row } from './stats';

/**
 * `npm run bench`: warm repositories (issue 35). Request → first command of a ship unit's coding
 * run on a generated repository with a long history (BENCH_REPO_COMMITS commits of
 * BENCH_REPO_BYTES incompressible bytes each; generated once with `git fast-import` and kept under
 * the bench's temp folder), cold (no cache on the host: the cache is built first), warm (the
 * host's cache borrowed, the setup copied in), warm with the setup run, and with the caches off
 * (the checkout fetches everything itself, as before); against a plain `git clone` and a partial
 * clone (`--filter=blob:none`) of the same repository over the same local GitHub, and a run on a
 * tiny repository with the same setup. Target: warm within 2× of the tiny repository's run.
 * docs/sandbox.md keeps the latest table.
 */
jest.setTimeout(120 * 60_000);

const COMMITS = Number(process.env.BENCH_REPO_COMMITS ?? 30_000);
const BYTES = Number(process.env.BENCH_REPO_BYTES ?? 10_000);
const SAMPLES = Number(process.env.BENCH_REPO_SAMPLES ?? 3);

const SETUP_FILE = [
  'setup:',
  '  commands:',
  '    - sleep 2 && mkdir -p deps && head -c 20000000 /dev/urandom > deps/blob',
  '  lockfiles: [lock.json]',
  '',
].join('\n');
const TIP = { '.switchboard.yml': SETUP_FILE, '.gitignore': 'deps/\n', 'lock.json': '{"v":1}\n', 'README.md': '# big\n' };

describe('bench: warm repositories', () => {
  let github: LocalGitHub;
  let kit: RunKit;
  let off: RunKit;
  const firstCommand = new Map<string, number>();
  const rows: Row[] = [];
  const notes: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'bench-warm-'));

  /** Each kit notes when a unit's coding run sends its first command (not the setup). */
  const marking = (activities: object) => {
    const real = activities as { bash(input: BashInput): Promise<unknown> };
    return {
      ...activities,
      bash: async (input: BashInput) => {
        if (!input.setup) {
          const runId = Context.current().info.workflowExecution?.workflowId ?? '';
          const unitId = runId.replace(/\/coding-.*$/, '');
          if (!firstCommand.has(unitId)) firstCommand.set(unitId, Date.now());
        }
        return real.bash(input);
      },
    };
  };

  beforeAll(async () => {
    const env = await sharedEnvironment();
    github = await startLocalGitHub({ tokens: { read: ['read-token'], write: ['write-token'] } });
    const identities = createGitHubIdentities({
      apiUrl: github.apiUrl,
      gitUrl: github.gitUrl,
      tokens: { read: 'read-token', write: 'write-token' },
    });
    const generatedAt = performance.now();
    const generated = await largeRepository({ commits: COMMITS, bytesPerCommit: BYTES, files: 250, tip: TIP });
    notes.push(
      `the large repository: ${(await commitCount(generated)).toLocaleString('en-US')} commits, ${Math.round((await packedBytes(generated)) / 2 ** 20)} MB packed (generated or found in ${Math.round((performance.now() - generatedAt) / 1000)} s)`,
    );
    await serveFrom(github.createRepo('acme', 'big', { 'README.md': 'x\n' }).dir, generated);
    github.createRepo('acme', 'tiny', TIP);
    const common = { env, github: identities, hostQueue: true, ship: { checksPollSeconds: 10 } };
    kit = await startRunKit('bench-warm', { ...common, residentQueues: true, wrapActivities: marking });
    off = await startRunKit('bench-cold-off', { ...common, repoCache: { enabled: false }, wrapActivities: marking });
  });

  afterAll(async () => {
    await kit?.close();
    await off?.close();
    await github?.close();
    rmSync(scratch, { recursive: true, force: true });
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}`;
    process.stdout.write(
      `\nWarm repositories (request → first command of a unit's coding run)\n\n${table(rows)}\n\n${notes.map((note) => `- ${note}\n`).join('')}\nmachine: ${machine}; ${SAMPLES} samples\n`,
    );
  });

  let counter = 0;
  /** One unit: started, measured to its coding run's first command, stopped; answers the time and its checkout. */
  async function unitSample(on: RunKit, repo: string, model: string): Promise<{ ms: number; checkout?: UnitWorkspace }> {
    const unitId = `unit:${repo}:bench-${++counter}`;
    const started = Date.now();
    const handle = await on.client.workflow.start(shipUnitWorkflowType, {
      workflowId: unitId,
      taskQueue: on.taskQueue,
      args: [{ unitId, repo, request: 'Bench', model, replyTarget: { kind: 'cli' }, requester: { id: 'bench', surface: 'cli' } }],
    });
    while (!firstCommand.has(unitId)) await new Promise((resolve) => setTimeout(resolve, 20));
    const ms = firstCommand.get(unitId)! - started;
    await handle.signal(stopSignal, { by: 'bench', reason: 'measured' });
    await handle.result();
    const [checkout] = await activityResults<UnitWorkspace>(on.client, unitId, 'prepareUnitWorkspace');
    return { ms, ...(checkout ? { checkout } : {}) };
  }
  const evictCache = async (repo: string) => {
    const layout = registeredRepoCache(kit.sandboxHost)!.layoutOf(repo);
    await kit.sandboxHost.release({ key: layout.key, network: true });
  };
  const dropKeptSetups = (repo: string) => {
    const { setups } = registeredRepoCache(kit.sandboxHost)!.layoutOf(repo);
    for (const entry of readdirSync(setups)) rmSync(join(setups, entry), { force: true });
  };
  const times = (samples: Array<{ ms: number }>) => samples.map((sample) => sample.ms);

  it('measures a coding run’s first command on a large repository, cold and warm, against git clone and a tiny repository', async () => {
    const turns = [{ text: 'Starting.', toolCalls: [{ name: 'bash', input: { command: 'git log --oneline -1' } }] }, { text: 'Done.' }];
    const model = kit.script('bench-warm', turns);
    off.script('bench-warm', turns);
    const url = (repo: string) => `${github.gitUrl.replace('http://', 'http://x-access-token:read-token@')}/${repo}.git`;

    const clone: number[] = [];
    const partial: number[] = [];
    for (let k = 0; k < SAMPLES; k += 1) {
      clone.push(await timedClone(url('acme/big'), join(scratch, `clone-${k}`)));
      partial.push(await timedClone(url('acme/big'), join(scratch, `partial-${k}`), ['--filter=blob:none']));
    }
    const cold = [];
    const coldOff = [];
    for (let k = 0; k < SAMPLES; k += 1) {
      await evictCache('acme/big');
      cold.push(await unitSample(kit, 'acme/big', model));
      coldOff.push(await unitSample(off, 'acme/big', model));
    }
    const warm = [];
    const warmSetupRuns = [];
    const tiny = [];
    await unitSample(kit, 'acme/tiny', model);
    for (let k = 0; k < SAMPLES + 2; k += 1) {
      warm.push(await unitSample(kit, 'acme/big', model));
      tiny.push(await unitSample(kit, 'acme/tiny', model));
      dropKeptSetups('acme/big');
      warmSetupRuns.push(await unitSample(kit, 'acme/big', model));
    }
    rows.push(
      { what: 'floor: `git clone` of the large repository (host, local GitHub)', ours: clone },
      { what: 'partial clone (`--filter=blob:none`) against the full clone', floor: clone, ours: partial },
      { what: 'cold: no cache on the host (built first), setup run, against `git clone`', floor: clone, ours: times(cold) },
      { what: 'caches off (the checkout fetches everything, as before), against `git clone`', floor: clone, ours: times(coldOff) },
      {
        what: 'warm: cache borrowed, setup copied in, against the tiny repository',
        floor: times(tiny),
        ours: times(warm),
        target: { ratio: 2 },
      },
      { what: 'warm, setup run (no kept result), against the tiny repository', floor: times(tiny), ours: times(warmSetupRuns) },
      { what: 'tiny repository (same setup, cache warm, setup copied in)', ours: times(tiny) },
    );
    const fetched = (samples: Array<{ checkout?: UnitWorkspace }>) => samples.map((sample) => sample.checkout?.localObjects ?? NaN);
    notes.push(
      `objects each checkout fetched itself: cold ${fetched(cold).join(', ')}; caches off ${fetched(coldOff).join(', ')}; warm ${fetched(warm).join(', ')}`,
      `warm median ${Math.round(percentile(times(warm), 50))} ms, tiny median ${Math.round(percentile(times(tiny), 50))} ms`,
    );
  });
});
