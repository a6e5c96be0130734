import { randomBytes } from 'node:crypto';
import { currentActivityContext } from './activity-context';
import { commandEnvironment } from './command-environment';
import { runCaptured, type CapturedRun } from './helper/run-helper';
import { type OwnedRefs } from '../../workflows/contracts/pushes';
import { type DoorGrant } from './network/door-grant';
import { type PreparedWorkspace, type SandboxHost } from './sandbox-host';
import { layoutByName, recordKey, workspaceName } from './workspace-layout';

/**
 * Git on a workspace's checkout, for the worker's own steps (a ship unit's checkout, commit and
 * push; a direct run's push). It runs where the checkout is: inside the workspace's sandbox, as
 * its unprivileged user, so hooks, `core.fsmonitor`, filters, `insteadOf`, includes and a `.git`
 * that is a gitfile or a link can at worst run code with the sandbox's own rights. The remote is
 * reached through the workspace's door, which adds the identity's token on the worker's side
 * and lets a write identity push to the bound repository only. Our own invocations turn hooks
 * and fsmonitor off anyway, so a hook one run planted does not fire in the next run's commit.
 */
const HARDENED = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'protocol.file.allow=never'];

/**
 * `git` with the hardening above, as a shell function the scripts call as `g`. Each git dies
 * with the script (and the script with the worker's call): a retry after a lost worker never
 * races a fetch or commit still running from the attempt before.
 */
const G = `g() { setpriv --pdeathsig KILL -- git ${HARDENED.join(' ')} "$@"; }`;

/**
 * A step of a worker that died may still be finishing inside the sandbox when its retry starts
 * (the kill reaches it a moment later): the retry ends every process of an earlier step first,
 * found by the step marker in its environment, so two steps never work on one checkout.
 */
const END_EARLIER_STEPS = String.raw`
ended=""
mine="${'$'}{SWITCHBOARD_GIT_STEP%%.*}"
for environ in /proc/[0-9]*/environ; do
  pid="${'$'}{environ#/proc/}"; pid="${'$'}{pid%/environ}"
  theirs="$(tr '\0' '\n' < "$environ" 2>/dev/null | sed -n 's/^SWITCHBOARD_GIT_STEP=\([0-9]*\)\..*/\1/p')"
  # Only steps started before this one: a dying earlier step must never end its own retry.
  if [ -n "$theirs" ] && [ "$theirs" -lt "$mine" ]; then kill -KILL "$pid" 2>/dev/null && ended="$ended $pid"; fi
done
for pid in $ended; do n=0; while [ -e "/proc/$pid/environ" ] && [ "$n" -lt 100 ]; do sleep 0.02; n=$((n + 1)); done; done`;

export interface GitGrant {
  identity: 'read' | 'write';
  /** The repository a write identity may push to. */
  repo: string;
  /** False: the door refuses every request for this step (a step that must not reach anything). */
  network?: boolean;
  /** The branches of `repo` the step may push to (none: no push passes the door). */
  refs?: OwnedRefs;
}

/** A workspace named by its key (new inputs) or by the host path of its checkout (inputs recorded before this design). */
export type WorkspaceName = { workspaceKey: string } | { workingDirectory: string };

export class WorkspaceGit {
  constructor(
    private readonly host: SandboxHost,
    private readonly gitBaseUrl: string,
  ) {}

  /** The workspace's folder name, from its key or a recorded checkout path under this data dir. */
  nameOf(workspace: WorkspaceName): string | undefined {
    if ('workspaceKey' in workspace) return workspaceName(workspace.workspaceKey);
    const prefix = `${this.host.dataDir}/workspaces/`;
    const match = /^([^/]+)\/work$/.exec(
      workspace.workingDirectory.startsWith(prefix) ? workspace.workingDirectory.slice(prefix.length) : '',
    );
    return match?.[1];
  }

  /** Notes the key a workspace is made for (its checkout may be made before any call names it by key). */
  async recordKey(key: string): Promise<void> {
    await recordKey(layoutByName(this.host.dataDir, workspaceName(key)), key);
  }

  /** The checkout's folder as the script sees it (`/workspace` isolated). */
  private async prepared(name: string): Promise<PreparedWorkspace> {
    return this.host.prepareByName(name, currentActivityContext()?.info.workflowExecution?.workflowId);
  }

  /**
   * Runs a script of ours (`sh -c script`) in the checkout with `g` defined, the door granting
   * `grant` for its length. The grant of the run that may use the workspace at the same time is
   * put back afterwards.
   */
  async script(name: string, script: string, args: readonly string[], grant: GitGrant, timeoutMs = 300_000): Promise<CapturedRun> {
    // A sandbox started only for this step (no run is using the workspace) ends with it.
    const started = !(await this.host.hasLiveHolder(name));
    try {
      return await this.inSandbox(name, script, args, grant, timeoutMs);
    } finally {
      if (started) await this.host.closeByName(name).catch(() => undefined);
    }
  }

  private async inSandbox(name: string, script: string, args: readonly string[], grant: GitGrant, timeoutMs: number): Promise<CapturedRun> {
    const prepared = await this.prepared(name);
    const door = prepared.door;
    const previous = door.grant;
    const gitGrant: DoorGrant = {
      network: grant.network !== false,
      allow: [],
      identity: grant.identity,
      repo: grant.repo,
      ...(grant.refs ? { refs: grant.refs } : {}),
    };
    door.grant = gitGrant;
    try {
      const env = {
        ...commandEnvironment(prepared.layout, prepared.isolation.mode, { port: door.port, gitBaseUrl: this.gitBaseUrl }),
        // No repository above the checkout is ever used, and no global configuration.
        GIT_CEILING_DIRECTORIES: '/',
        GIT_CONFIG_GLOBAL: '/dev/null',
        WORK: prepared.roots.work,
        SWITCHBOARD_GIT_STEP: `${Date.now()}.${randomBytes(4).toString('hex')}`,
      };
      const body = `set -e\n${G}\n${END_EARLIER_STEPS}\ncd "$WORK"\n${script}`;
      return await runCaptured({
        argv: this.host.argv(prepared, ['exec', '/bin/sh', '-c', body, 'switchboard-git', ...args]),
        env,
        timeoutMs,
        ...(currentActivityContext()?.cancellationSignal ? { signal: currentActivityContext()!.cancellationSignal } : {}),
      });
    } finally {
      if (door.grant === gitGrant) door.grant = previous;
    }
  }

  /** One git command in the checkout (hardened, through the door). */
  git(name: string, args: readonly string[], grant: GitGrant): Promise<CapturedRun> {
    return this.script(name, 'g "$@"', args, grant);
  }

  /** The layout of a workspace by name (for tests and messages). */
  layout(name: string) {
    return layoutByName(this.host.dataDir, name);
  }
}

/** Key=value lines a script printed, as a record. */
export function parseFields(stdout: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const match = /^([a-zA-Z]+)=(.*)$/.exec(line.trim());
    if (match) fields[match[1]] = match[2];
  }
  return fields;
}
