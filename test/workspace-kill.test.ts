import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../infra/paths';
import { createUnitWorkspaceActivities } from '../activities/units/unit-workspace';
import { workspaceLayout } from '../activities/sandbox/workspace-layout';

jest.setTimeout(180_000);

/**
 * Issue 17 item 1: the unit's workspace activities run in a child process whose `git` is a
 * wrapper that SIGKILLs the child's whole process group at a chosen git call — before it
 * starts (between two steps) or while it runs (inside `git init` once it has begun writing
 * the git directory, a few ms into the others). Then the same activity runs here to success,
 * with the state the kill left. A retry must never meet a broken checkout.
 */
describe('unit workspace activities survive a SIGKILL at any git step', () => {
  let dir: string;
  let remote: string;
  let baseSha: string;
  let branchSha: string;
  const realGit = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
  let partialInits = 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-workspace-kill-'));
    remote = join(dir, 'remote.git');
    const seed = join(dir, 'seed');
    mkdirSync(seed);
    const git = (args: string[], cwd = seed) => execFileSync('git', args, { cwd }).toString().trim();
    git(['init', '-q', '-b', 'main']);
    writeFileSync(join(seed, 'README.md'), '# app\n');
    git(['add', '-A']);
    git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'first']);
    baseSha = git(['rev-parse', 'HEAD']);
    git(['checkout', '-qb', 'switchboard/unit-1']);
    writeFileSync(join(seed, 'unit.txt'), 'round 1\n');
    git(['add', '-A']);
    git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'round 1']);
    branchSha = git(['rev-parse', 'HEAD']);
    execFileSync('git', ['clone', '-q', '--bare', seed, remote]);
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    // A template with many files keeps `git init` busy copying long enough to be killed inside it.
    const templates = join(dir, 'templates');
    mkdirSync(join(templates, 'info'), { recursive: true });
    writeFileSync(join(templates, 'description'), 'unnamed\n');
    for (let i = 0; i < 3000; i += 1) writeFileSync(join(templates, 'info', `t${i}`), '');
    writeFileSync(join(bin, 'git'), WRAPPER.replaceAll('@REAL_GIT@', realGit).replaceAll('@TEMPLATES@', templates));
    chmodSync(join(bin, 'git'), 0o755);
    writeFileSync(
      join(dir, 'child.js'),
      CHILD.replace('@MODULE@', join(projectRoot(), 'dist', 'activities', 'units', 'unit-workspace.js')),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const identities = { tokenFor: async () => 'token', gitRemote: () => remote };
  const prepareInput = (branch: string) => ({ workspaceKey: 'unit-1', repo: 'acme/app', branch, base: 'main', identity: 'write' as const });

  /** Runs one activity call in a child process, killed at git call `killAt` (0: never). Resolves how it ended. */
  function runChild(dataDir: string, op: string, input: unknown, killAt: number, mode: 'between' | 'inside', delay = '0') {
    const count = join(dir, `count-${Math.random().toString(36).slice(2)}`);
    const child = spawn(process.execPath, [join(dir, 'child.js'), dataDir, remote, op, JSON.stringify(input)], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
        HOME: dir,
        KILL_COUNT: count,
        KILL_AT: String(killAt),
        KILL_MODE: mode,
        KILL_DELAY: delay,
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return new Promise<{ signal: string | null; code: number | null; calls: number; output: string }>((resolve) => {
      child.on('close', (code, signal) => {
        const calls = existsSync(count) ? Number(readFileSync(count, 'utf8').trim()) : 0;
        resolve({ code, signal, calls, output });
      });
    });
  }

  /** Counts the git directories a kill left half-written (templates being copied, no HEAD yet). */
  function notePartialInit(dataDir: string): void {
    const root = workspaceLayout(dataDir, { key: 'unit-1', network: true }).root;
    const candidates = [join(root, 'work', '.git'), ...readdirSync(root).map((entry) => join(root, entry))];
    for (const candidate of candidates) {
      if (existsSync(candidate) && readdirSync(candidate).length > 0 && !existsSync(join(candidate, 'HEAD'))) partialInits += 1;
    }
  }

  function headOf(dataDir: string): { head: string; status: string; origin: string } {
    const work = workspaceLayout(dataDir, { key: 'unit-1', network: true }).work;
    const git = (args: string[]) =>
      execFileSync('git', args, { cwd: work, env: { ...process.env, GIT_CEILING_DIRECTORIES: dirnameOf(work) } })
        .toString()
        .trim();
    return { head: git(['rev-parse', 'HEAD']), status: git(['status', '--porcelain']), origin: git(['remote', 'get-url', 'origin']) };
  }

  test('preparing: killed at every git call of a first and of a repeated preparation, then run to success', async () => {
    const probe = await runChild(join(dir, 'probe'), 'prepareUnitWorkspace', prepareInput('switchboard/unit-1'), 0, 'between');
    expect({ code: probe.code, output: probe.output }).toEqual({ code: 0, output: '' });
    const steps = probe.calls;
    expect(steps).toBeGreaterThanOrEqual(7);
    let killed = 0;
    for (let killAt = 1; killAt <= steps; killAt += 1) {
      for (const [mode, delay, repeated] of [
        ['between', '0', false],
        ['between', '0', true],
        ['inside', '0', false],
        ['inside', '0.004', true],
      ] as const) {
        {
          const dataDir = join(dir, `prepare-${killAt}-${mode}-${delay}-${repeated}`);
          const activities = createUnitWorkspaceActivities({ dataDir, identities });
          // A repeated preparation (the next round) starts from a whole checkout of another branch.
          if (repeated) await activities.prepareUnitWorkspace(prepareInput('switchboard/other'));
          const ended = await runChild(dataDir, 'prepareUnitWorkspace', prepareInput('switchboard/unit-1'), killAt, mode, delay);
          if (ended.signal === 'SIGKILL') killed += 1;
          else expect(ended).toMatchObject({ code: 0 });
          if (!repeated) notePartialInit(dataDir);
          const ws = await activities.prepareUnitWorkspace(prepareInput('switchboard/unit-1'));
          expect(ws).toMatchObject({ headSha: branchSha, baseSha });
          expect(headOf(dataDir)).toEqual({ head: branchSha, status: '', origin: remote });
        }
      }
    }
    expect(killed).toBeGreaterThanOrEqual(steps * 3);
    // And after all that, a branch that does not exist yet starts from the base.
    const last = createUnitWorkspaceActivities({ dataDir: join(dir, `prepare-${steps}-between-0-true`), identities });
    expect(await last.prepareUnitWorkspace(prepareInput('switchboard/new'))).toMatchObject({ headSha: baseSha, baseSha });
    // The sweep really killed inside `git init` (the state issue 17 saw: templates, no HEAD).
    expect(partialInits).toBeGreaterThan(0);
  });

  test('committing: killed at every git call, then the commit lands exactly once', async () => {
    const dataDir = join(dir, 'commit');
    const activities = createUnitWorkspaceActivities({ dataDir, identities });
    const work = workspaceLayout(dataDir, { key: 'unit-1', network: true }).work;
    const probeDir = join(dir, 'commit-probe');
    const probeWs = await createUnitWorkspaceActivities({ dataDir: probeDir, identities }).prepareUnitWorkspace(
      prepareInput('switchboard/unit-1'),
    );
    writeFileSync(join(probeWs.path, 'change.txt'), 'x\n');
    const probe = await runChild(probeDir, 'commitWorkspace', { workspaceKey: 'unit-1', message: 'probe', since: branchSha }, 0, 'between');
    expect({ code: probe.code, output: probe.output }).toEqual({ code: 0, output: '' });
    for (let killAt = 1; killAt <= probe.calls; killAt += 1) {
      for (const [mode, delay] of [
        ['between', '0'],
        ['inside', '0'],
        ['inside', '0.003'],
      ] as const) {
        const ws = await activities.prepareUnitWorkspace(prepareInput('switchboard/unit-1'));
        writeFileSync(join(work, 'change.txt'), `${killAt} ${mode} ${delay}\n`);
        const input = { workspaceKey: 'unit-1', message: 'round 2', since: ws.headSha };
        await runChild(dataDir, 'commitWorkspace', input, killAt, mode, delay);
        const commit = await activities.commitWorkspace(input);
        expect(commit.changed).toBe(true);
        const git = (args: string[]) => execFileSync('git', args, { cwd: work }).toString().trim();
        expect(git(['rev-list', '--count', `${ws.headSha}..HEAD`])).toBe('1');
        expect(git(['show', 'HEAD:change.txt'])).toBe(`${killAt} ${mode} ${delay}`);
        expect(git(['status', '--porcelain'])).toBe('');
      }
    }
  });
});

function dirnameOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

/**
 * Counts git calls; at call KILL_AT it SIGKILLs its own process group (the child and every
 * git under it): before the call ("between"), or once the call is under way ("inside":
 * `git init` once its git directory has begun to fill, any other call after KILL_DELAY s).
 */
const WRAPPER = `#!/bin/bash
n=$(( $(cat "$KILL_COUNT" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$KILL_COUNT"
if [ "$n" = "$KILL_AT" ]; then
  read -r _ _ _ _ pgid _ < /proc/$$/stat
  if [ "$KILL_MODE" = between ]; then kill -9 -- -"$pgid"; fi
  if [ "$1" = init ] || [ "$2" = init ]; then export GIT_TEMPLATE_DIR="@TEMPLATES@"; fi
  "@REAL_GIT@" "$@" &
  if [ "$1" = init ] || [ "$2" = init ]; then
    target="\${!#}"
    case "$target" in -*) target="$PWD/.git" ;; esac
    for ((i = 0; i < 100000; i++)); do
      if [ -e "$target/description" ] || [ -e "$target/info" ]; then break; fi
    done
  else
    sleep "$KILL_DELAY"
  fi
  kill -9 -- -"$pgid"
fi
exec "@REAL_GIT@" "$@"
`;

/** Runs one unit workspace activity outside Temporal (no heartbeats), as the worker would. */
const CHILD = `
const [dataDir, remote, op, input] = process.argv.slice(2);
const { createUnitWorkspaceActivities } = require('@MODULE@');
const activities = createUnitWorkspaceActivities({ dataDir, identities: { tokenFor: async () => 'token', gitRemote: () => remote } });
activities[op](JSON.parse(input)).then(
  () => process.exit(0),
  (error) => { console.error(error); process.exit(1); },
);
`;
