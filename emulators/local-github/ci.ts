import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from './git-store';
import { type LocalGitHub } from '.';

export interface LocalCiOptions {
  /** The command, run with `sh -c` at the root of a fresh checkout of the pull request's head (`npm test`). */
  command: string;
  /** The check run's name (default `test`). */
  name?: string;
  /** A run still going after this long is killed and concludes `timed_out` (default 5 minutes). */
  timeoutMs?: number;
  /** Run inside bubblewrap when it works here (default true); otherwise the check run says it ran unisolated. */
  isolate?: boolean;
}

/** One CI run, as the local CI keeps it. */
export interface CiRun {
  repo: string;
  sha: string;
  conclusion?: 'success' | 'failure' | 'timed_out';
  isolated: boolean;
  /** The tail of the command's output. */
  log?: string;
}

export interface LocalCi {
  runs: CiRun[];
  /** Resolves when no run is in progress. */
  idle(): Promise<void>;
  /** Stops listening and kills the runs in progress. */
  close(): Promise<void>;
}

const LOG_TAIL = 60_000;

/**
 * The local GitHub's CI, as a GitHub Actions workflow `on: pull_request` would behave: when
 * a pull request is opened or its head moves, the head commit is checked out into a temp
 * folder and `command` runs there, reported as a check run (`in_progress`, then `completed`
 * with `success` or `failure` and the log's tail), which emits `check_run` webhooks. One
 * run per commit. The command runs in bubblewrap (no network, the host read-only, home
 * folders and /tmp hidden, an environment with PATH only) when available.
 */
export function startLocalCi(github: LocalGitHub, options: LocalCiOptions): LocalCi {
  const name = options.name ?? 'test';
  const isolated = (options.isolate ?? true) && bubblewrapWorks();
  const runs: CiRun[] = [];
  const active = new Set<Promise<void>>();
  const children = new Set<number>();
  let closed = false;

  const unsubscribe = github.webhooks.subscribe((event, payload) => {
    const body = payload as { action?: string; repository?: { full_name?: string }; pull_request?: { head?: { sha?: string } } };
    if (event !== 'pull_request' || !['opened', 'synchronize', 'reopened'].includes(body.action ?? '')) return;
    const repo = body.repository?.full_name;
    const sha = body.pull_request?.head?.sha;
    if (!repo || !sha || closed || runs.some((run) => run.repo === repo && run.sha === sha)) return;
    const run: CiRun = { repo, sha, isolated };
    runs.push(run);
    const going = execute(run).finally(() => active.delete(going));
    active.add(going);
  });

  async function execute(run: CiRun): Promise<void> {
    const started = new Date().toISOString();
    github.setCheckRun(run.repo, run.sha, {
      name,
      status: 'in_progress',
      conclusion: null,
      started_at: started,
      output: { title: `Running ${options.command}`, summary: 'Started.' },
    });
    const [owner, repoName] = run.repo.split('/');
    const folder = mkdtempSync(join(tmpdir(), 'local-ci-'));
    try {
      const checkout = join(folder, 'checkout');
      git(folder, ['clone', '--quiet', '--no-checkout', github.state.repo(owner, repoName)!.dir, checkout]);
      git(checkout, ['checkout', '--quiet', '--detach', run.sha]);
      mkdirSync(join(folder, 'home'));
      const result = await runCommand(checkout, join(folder, 'home'));
      run.conclusion = result.timedOut ? 'timed_out' : result.code === 0 ? 'success' : 'failure';
      run.log = result.output;
    } catch (error) {
      run.conclusion = 'failure';
      run.log = `The CI could not check out ${run.sha}: ${(error as Error).message}`;
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    if (closed) return;
    const words = { success: 'passed', failure: 'failed', timed_out: 'timed out' }[run.conclusion];
    github.setCheckRun(run.repo, run.sha, {
      name,
      status: 'completed',
      conclusion: run.conclusion,
      started_at: started,
      completed_at: new Date().toISOString(),
      output: {
        title: `${options.command} ${words}`,
        summary: `\`${options.command}\` ${words} on ${run.sha.slice(0, 12)}${isolated ? '' : ' (unisolated: bubblewrap is not available)'}.`,
        text: run.log,
      },
    });
  }

  function runCommand(checkout: string, home: string): Promise<{ code: number | null; timedOut: boolean; output: string }> {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CI: 'true', LANG: 'C.UTF-8' };
    const [file, args] = isolated
      ? ['bwrap', [...sandboxArguments(checkout, home), '--', 'sh', '-c', options.command]]
      : ['sh', ['-c', options.command]];
    const child = spawn(file, args, { cwd: checkout, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid) children.add(child.pid);
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-LOG_TAIL);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs ?? 300_000);
    return new Promise((resolve) => {
      child.once('error', (error) => {
        clearTimeout(timer);
        resolve({ code: null, timedOut, output: `${output}\n${error.message}` });
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        if (child.pid) children.delete(child.pid);
        resolve({ code, timedOut, output });
      });
    });
  }

  return {
    runs,
    idle: async () => {
      while (active.size > 0) await Promise.all([...active]);
    },
    async close() {
      closed = true;
      unsubscribe();
      for (const pid of children) killGroup(pid);
      await Promise.all([...active]);
    },
  };
}

/** A read-only host with no network, its own /tmp and /proc, home folders hidden, and the checkout writable. */
function sandboxArguments(checkout: string, home: string): string[] {
  return [
    '--ro-bind',
    '/',
    '/',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/root',
    '--tmpfs',
    '/home',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    checkout,
    checkout,
    '--bind',
    home,
    home,
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--chdir',
    checkout,
  ];
}

let probed: boolean | undefined;
function bubblewrapWorks(): boolean {
  probed ??= spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--', 'true'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  return probed;
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
