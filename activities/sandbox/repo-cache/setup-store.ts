import { CancelledFailure } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SETUP_MARKERS, SETUP_RESTORED, SETUP_RUNNING, setupProbeScript } from '../../../agents/repo-setup';
import { currentActivityContext } from '../activity-context';
import { commandEnvironment } from '../command-environment';
import { runCaptured } from '../helper/run-helper';
import { type PreparedWorkspace, type SandboxHost } from '../sandbox-host';
import { type BashResult } from '../../../workflows/contracts/sandbox';
import { wasUsed } from '../workspace-layout';
import { CONSUMER_STATE_FILE, TRUSTED_CHECKOUT_FILE } from './cache-layout';
import { type RepoCache } from './repo-cache';
import { streamed } from './setup-stream';

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

/** How the bash call that runs the setup was asked: its own bound, its grant, when it began. */
export interface SetupGrant {
  /** The setup's own bound (the run's `timeoutSeconds`). */
  timeoutMs: number;
  /** The run's identity at the door: only a run holding the write identity keeps its result. */
  identity?: 'none' | 'read' | 'write';
  /** When the bash activity began (its start-to-close counts from there). */
  startedAt: number;
}

/** The bash activity's start-to-close (workflows/activity-proxies.ts `shellCommand`), outside an activity. */
const BASH_CALL_MS = 21 * 60_000;
/** Left of the call at the end: the result goes back before Temporal gives up on the attempt. */
const CALL_MARGIN_MS = 20_000;
/** A restore may always take this long, even when the setup's own bound leaves less. */
const RESTORE_FLOOR_MS = 60_000;
/** A capture with less time than this left is not tried. */
const CAPTURE_FLOOR_MS = 5_000;

/**
 * Setup results per repository on a worker host (docs/sandbox.md#setup-results): a resident
 * checkout whose setup key (its commands and lockfiles) matches a kept result gets it copied in
 * instead of running the setup. Only trusted code's result is kept: a setup that ran to success,
 * with the write identity, in a checkout of a branch of the repository made for the write
 * identity ({@link TRUSTED_CHECKOUT_FILE}), where nothing but the worker's own steps ran before it
 * (no command, file write or MCP server of a run). A pull request's head under review is anyone's
 * code: its setup runs, and what it leaves stays in its own workspace. The worker packs and
 * unpacks inside the workspace's sandbox, as its user, and only ever streams the archive: it never
 * opens what the sandbox wrote. Every step heartbeats and fits the bash call's start-to-close.
 */
export class SetupStore {
  constructor(
    private readonly host: SandboxHost,
    private readonly cache: RepoCache,
    private readonly options: { heartbeatMs?: number } = {},
  ) {}

  /** Runs the setup for a resident checkout, with the host's kept result when there is one; `run` runs it as any command, within `boundMs`. */
  async run(
    prepared: PreparedWorkspace,
    setup: SetupCall,
    grant: SetupGrant,
    run: (boundMs: number) => Promise<BashResult>,
  ): Promise<BashResult> {
    const layout = this.cache.layoutOf(setup.repo);
    const attached = (await readFile(join(prepared.layout.state, CONSUMER_STATE_FILE), 'utf8').catch(() => '')).trim();
    if (!prepared.holder || attached !== layout.workspace.name) return run(grant.timeoutMs);
    const context = currentActivityContext();
    const deadline = grant.startedAt + (context?.info.startToCloseTimeoutMs || BASH_CALL_MS) - CALL_MARGIN_MS;
    const left = () => deadline - Date.now();
    const signal = context?.cancellationSignal;
    const trusted =
      grant.identity === 'write' &&
      (await stat(join(prepared.layout.state, TRUSTED_CHECKOUT_FILE)).then(
        () => true,
        () => false,
      ));
    const pristine = !(await wasUsed(prepared.layout));
    const env = commandEnvironment(prepared.layout, prepared.isolation.mode);
    const probe = await this.beating(() =>
      runCaptured({
        argv: this.host.argv(prepared, ['exec', '/bin/sh', '-c', `cd /workspace && ${setupProbeScript(setup.commands, setup.lockfiles)}`]),
        env,
        timeoutMs: Math.max(1_000, Math.min(60_000, left())),
        ...(signal ? { signal } : {}),
      }),
    );
    const key = /^key=([0-9a-f]{32})$/m.exec(probe.stdout)?.[1];
    // The workspace's own marker: the script says "done before" itself.
    if (!key || /^marker=1$/m.test(probe.stdout)) return run(Math.min(grant.timeoutMs, left()));
    const kept = await this.cache.keptSetup(setup.repo, key);
    if (kept) {
      const started = Date.now();
      // What the setup's own bound leaves of the call, so that a failed copy still leaves it its time.
      const bound = Math.min(left(), Math.max(left() - grant.timeoutMs, RESTORE_FLOOR_MS));
      const restored = await this.beating(() => this.restore(prepared, env, kept, key, bound, signal));
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
    const result = await run(Math.min(grant.timeoutMs, left()));
    const ranFresh = result.exitCode === 0 && !result.timedOut && result.output.startsWith(SETUP_RUNNING);
    if (!ranFresh || !trusted || !pristine || (await wasUsed(prepared.layout))) return result;
    if (left() < CAPTURE_FLOOR_MS) {
      this.cache.log(setup.repo, 'a setup result was not kept: the setup left no time in its call to copy it');
      return result;
    }
    await this.beating(() => this.capture(prepared, env, setup.repo, key, left(), signal)).catch((error: Error) =>
      this.cache.log(setup.repo, `a setup result could not be kept: ${error.message}`),
    );
    return result;
  }

  /**
   * Runs one of the store's own steps while heartbeating (the bash call's heartbeat timeout is
   * seconds; a copy may take minutes), then throws if the call was cancelled meanwhile.
   */
  private async beating<T>(step: () => Promise<T>): Promise<T> {
    const context = currentActivityContext();
    const beat = () => context?.heartbeat({ setup: true });
    beat();
    const timer = context ? setInterval(beat, this.options.heartbeatMs ?? 5_000) : undefined;
    let value: T;
    try {
      value = await step();
    } finally {
      if (timer) clearInterval(timer);
    }
    const signal = context?.cancellationSignal;
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new CancelledFailure('the setup was cancelled');
    return value;
  }

  private async restore(
    prepared: PreparedWorkspace,
    env: Record<string, string>,
    archive: string,
    key: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true } | { ok: false; why: string }> {
    const argv = this.host.argv(prepared, ['exec', '/bin/sh', '-c', RESTORE_SCRIPT, 'switchboard-setup', key]);
    const ran = await streamed(argv, env, { stdin: archive, timeoutMs, ...(signal ? { signal } : {}) });
    if (ran.code === 0 && !ran.copyError && !ran.timedOut) return { ok: true };
    if (ran.timedOut) return { ok: false, why: `it took over ${Math.round(timeoutMs / 1000)} s` };
    return { ok: false, why: ran.copyError ?? (ran.stderr.trim().split('\n').pop() || `exit ${ran.code}`) };
  }

  private async capture(
    prepared: PreparedWorkspace,
    env: Record<string, string>,
    repo: string,
    key: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const limit = this.cache.settings.setupMiB * 1024 * 1024;
    const target = await this.cache.setupPath(repo, key);
    const aside = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      const argv = this.host.argv(prepared, ['exec', '/bin/sh', '-c', CAPTURE_SCRIPT]);
      const ran = await streamed(argv, env, { stdout: aside, maxBytes: limit, timeoutMs, ...(signal ? { signal } : {}) });
      if (ran.tooLarge) throw new Error(`it is over ${this.cache.settings.setupMiB} MiB`);
      if (ran.timedOut) throw new Error(`copying it took over the ${Math.round(timeoutMs / 1000)} s its call had left`);
      if (ran.copyError) throw new Error(ran.copyError);
      if (ran.code !== 0) throw new Error(ran.stderr.trim().split('\n').pop() || `exit ${ran.code}`);
      await rename(aside, target);
      await this.cache.keepSetup(repo, key, (await stat(target)).size);
    } finally {
      await rm(aside, { force: true });
    }
  }
}
