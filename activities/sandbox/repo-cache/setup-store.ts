import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SETUP_MARKERS, SETUP_RESTORED, SETUP_RUNNING, setupProbeScript } from '../../../agents/repo-setup';
import { commandEnvironment } from '../command-environment';
import { runCaptured } from '../helper/run-helper';
import { terminateGroup } from '../process-group';
import { type PreparedWorkspace, type SandboxHost } from '../sandbox-host';
import { type BashResult } from '../types';
import { wasUsed } from '../workspace-layout';
import { CONSUMER_STATE_FILE } from './cache-layout';
import { type RepoCache } from './repo-cache';

/** A repository's setup, as the run's bash call names it. */
export interface SetupCall {
  repo: string;
  commands: readonly string[];
  lockfiles: readonly string[];
}

/**
 * What a setup left, as the sandbox's user packs it: every untracked or ignored path of the
 * checkout (dependencies, build output) and the home folder but for its markers. Paths are
 * relative to `/`, so a restore puts them back where they were.
 */
const CAPTURE_SCRIPT = String.raw`set -e
list="$(mktemp)"
cd /workspace
git -c core.hooksPath=/dev/null -c core.fsmonitor=false ls-files -z --others --directory | sed -z 's|^|workspace/|' > "$list"
cd /home/sandbox
find . -mindepth 1 -maxdepth 1 ! -name .switchboard -printf 'home/sandbox/%P\0' >> "$list"
exec tar -c -f - -C / --null -T "$list"`;

/** Unpacks a kept setup over the checkout and home (as the sandbox's user), then notes the setup as done here. */
const RESTORE_SCRIPT = String.raw`set -e
tar -x -f - -C / --no-same-owner
mkdir -p "${SETUP_MARKERS}"
date -u +%FT%TZ > "${SETUP_MARKERS}/$1"`;

/**
 * Setup results per repository on a worker host (docs/sandbox.md#setup-results): a resident
 * checkout whose setup key (its commands and lockfiles) matches a kept result gets it copied in
 * instead of running the setup; a setup that ran to success in a workspace where nothing but the
 * worker's own steps ran before it (no command, file write or MCP server of a run) is kept. The
 * worker packs and unpacks inside the workspace's sandbox, as its user, and only ever streams the
 * archive: it never opens what the sandbox wrote.
 */
export class SetupStore {
  constructor(
    private readonly host: SandboxHost,
    private readonly cache: RepoCache,
  ) {}

  /** Runs the setup for a resident checkout, with the host's kept result when there is one; `run` runs it as any command. */
  async run(prepared: PreparedWorkspace, setup: SetupCall, run: () => Promise<BashResult>): Promise<BashResult> {
    const layout = this.cache.layoutOf(setup.repo);
    const attached = (await readFile(join(prepared.layout.state, CONSUMER_STATE_FILE), 'utf8').catch(() => '')).trim();
    if (!prepared.holder || attached !== layout.workspace.name) return run();
    const pristine = !(await wasUsed(prepared.layout));
    const env = commandEnvironment(prepared.layout, prepared.isolation.mode);
    const probe = await runCaptured({
      argv: this.host.argv(prepared, ['exec', '/bin/sh', '-c', `cd /workspace && ${setupProbeScript(setup.commands, setup.lockfiles)}`]),
      env,
      timeoutMs: 60_000,
    });
    const key = /^key=([0-9a-f]{32})$/m.exec(probe.stdout)?.[1];
    // The workspace's own marker: the script says "done before" itself.
    if (!key || /^marker=1$/m.test(probe.stdout)) return run();
    const kept = await this.cache.keptSetup(setup.repo, key);
    if (kept) {
      const started = Date.now();
      const restored = await this.restore(prepared, env, kept, key);
      if (restored.ok)
        return {
          exitCode: 0,
          output: `${SETUP_RESTORED} (${key})\n`,
          truncated: false,
          timedOut: false,
          durationMs: Date.now() - started,
          isolation: 'bwrap',
        };
      this.cache.log(setup.repo, `a kept setup result could not be copied in (${restored.why}); the setup runs instead`);
    }
    const result = await run();
    const ranFresh = result.exitCode === 0 && !result.timedOut && result.output.startsWith(SETUP_RUNNING);
    if (ranFresh && pristine && !(await wasUsed(prepared.layout)))
      await this.capture(prepared, env, setup.repo, key).catch((error: Error) =>
        this.cache.log(setup.repo, `a setup result could not be kept: ${error.message}`),
      );
    return result;
  }

  private async restore(
    prepared: PreparedWorkspace,
    env: Record<string, string>,
    archive: string,
    key: string,
  ): Promise<{ ok: true } | { ok: false; why: string }> {
    const argv = this.host.argv(prepared, ['exec', '/bin/sh', '-c', RESTORE_SCRIPT, 'switchboard-setup', key]);
    const ran = await streamed(argv, env, { stdin: archive, timeoutMs: 20 * 60_000 });
    return ran.code === 0 ? { ok: true } : { ok: false, why: ran.stderr.trim().split('\n').pop() || `exit ${ran.code}` };
  }

  private async capture(prepared: PreparedWorkspace, env: Record<string, string>, repo: string, key: string): Promise<void> {
    const limit = this.cache.settings.setupMiB * 1024 * 1024;
    const target = await this.cache.setupPath(repo, key);
    const aside = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      const argv = this.host.argv(prepared, ['exec', '/bin/sh', '-c', CAPTURE_SCRIPT]);
      const ran = await streamed(argv, env, { stdout: aside, maxBytes: limit, timeoutMs: 20 * 60_000 });
      if (ran.tooLarge) throw new Error(`it is over ${this.cache.settings.setupMiB} MiB`);
      if (ran.code !== 0) throw new Error(ran.stderr.trim().split('\n').pop() || `exit ${ran.code}`);
      await rename(aside, target);
      await this.cache.keepSetup(repo, key, (await stat(target)).size);
    } finally {
      await rm(aside, { force: true });
    }
  }
}

/**
 * Runs a program in the sandbox with its stdin from a file or its stdout to one (the worker's own
 * files, never the workspace's), bounded in time and size; the whole process group goes at the end.
 */
function streamed(
  argv: string[],
  env: Record<string, string>,
  options: { stdin?: string; stdout?: string; maxBytes?: number; timeoutMs: number },
): Promise<{ code: number; stderr: string; tooLarge: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { env, cwd: '/', detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let size = 0;
    let tooLarge = false;
    const stop = () => child.pid !== undefined && void terminateGroup(child.pid, 500);
    const timer = setTimeout(stop, options.timeoutMs);
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4_000) stderr += chunk.toString('utf8');
    });
    const written = options.stdout ? createWriteStream(options.stdout, { mode: 0o600 }) : undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (options.maxBytes !== undefined && size > options.maxBytes && !tooLarge) {
        tooLarge = true;
        stop();
      }
      if (!tooLarge) written?.write(chunk);
    });
    child.stdin.on('error', () => undefined);
    if (options.stdin) createReadStream(options.stdin).on('error', stop).pipe(child.stdin);
    else child.stdin.end();
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: 127, stderr: error.message, tooLarge });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const done = () => resolve({ code: code ?? (signal ? 128 : 1), stderr, tooLarge });
      if (written) written.end(done);
      else done();
    });
  });
}
