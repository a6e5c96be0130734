import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { promisify } from 'node:util';
import { prepareCgroupLayout, type CgroupLayout } from './cgroups';
import { HELPER_PROGRAM, SANDBOX_PYTHON } from './helper/program';
import { HOST_ENV } from './host-exec';
import { mib, type SandboxLimits } from './limits';
import { systemRootArguments } from './sandbox-root';
import { SANDBOX_INSIDE_UID, SANDBOX_USER_NAMESPACE_ARGS } from './sandbox-uids';
import { seccompArchitecture, seccompFilter } from './seccomp';
import { imagesSupported } from './workspace-disk';
import { SANDBOX_VIEW } from './workspace-layout';
import { HOLDER_FDS } from './holder';
import { type SandboxBounds } from './bounds';
import { type IsolationCheck } from './isolation-check';

export type { IsolationCheck, IsolationMode } from './isolation-check';

const run = promisify(execFile);

/**
 * What the configuration asks for. `bwrap` is the default and fails closed; the other value
 * is spelled so that nobody picks it by accident: commands then run on the host.
 */
export type IsolationSetting = 'bwrap' | 'unisolated-unsafe';

/** Whether shell and file tools may run, as `/healthz`, `switchboard doctor` and run refusals report it. */
export interface SandboxReadiness {
  /** `bwrap`: isolated; `unisolated`: on the host by explicit configuration; `unavailable`: refused. */
  mode: 'bwrap' | 'unisolated' | 'unavailable';
  ready: boolean;
  reason?: string;
  /** What an operator does about it. */
  fix?: string;
  /** Isolated: what confines and bounds each workspace here (the uid mapping, seccomp, cgroups, each limit). */
  bounds?: SandboxBounds;
}

/** What to install, said wherever isolation is missing. */
export const ISOLATION_FIX =
  'install bubblewrap, util-linux and python3 on the worker host (Debian/Ubuntu: apt-get install -y bubblewrap util-linux python3), run the worker as root, and allow unprivileged user namespaces (sysctl user.max_user_namespaces > 0; kernel.unprivileged_userns_clone=1 where it exists)';

/** Whether a program is on the worker's PATH. */
export async function installed(tool: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${tool}`], { env: HOST_ENV });
    return true;
  } catch {
    return false;
  }
}

/** The uid trial sandboxes run as: `nobody`, which owns nothing. */
const PROBE_UID = 65534;

/**
 * Whether bubblewrap can isolate commands here: root (to enter the holders' namespaces and open
 * their doors), bwrap, nsenter, setpriv and the system's python3, a seccomp syscall table for
 * this architecture, and a trial sandbox that really starts as an unprivileged uid in a user
 * namespace of its own and loads the seccomp filter. The cgroup controllers and loop-mounted
 * disks are looked up too; without them the bounds fall back to rlimits and a plain folder.
 */
export async function detectIsolation(): Promise<IsolationCheck> {
  const setpriv = await installed('setpriv');
  const refused = (reason: string): IsolationCheck => ({ mode: 'none', setpriv, reason });
  if (process.getuid?.() !== 0) return refused('the worker is not root, and the bubblewrap holder needs root to enter its namespaces');
  for (const tool of ['bwrap', 'nsenter', 'setpriv', 'mount']) if (!(await installed(tool))) return refused(`${tool} is not installed`);
  if (
    !(await access(SANDBOX_PYTHON, constants.X_OK).then(
      () => true,
      () => false,
    ))
  )
    return refused(`${SANDBOX_PYTHON} is missing (the sandbox confines each command with it)`);
  const arch = seccompArchitecture();
  if (!arch) return refused(`no seccomp syscall table for the ${process.arch} architecture`);
  try {
    const filter = seccompFilter(arch).toString('hex');
    await run(
      'setpriv',
      [
        '--reuid',
        String(PROBE_UID),
        '--regid',
        String(PROBE_UID),
        '--clear-groups',
        '--no-new-privs',
        '--',
        'bwrap',
        ...SANDBOX_USER_NAMESPACE_ARGS,
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--unshare-pid',
        '--unshare-net',
        '--',
        SANDBOX_PYTHON,
        '-I',
        '-S',
        '-c',
        HELPER_PROGRAM,
        filter,
        '{}',
        '{}',
        '[]',
        'exec',
        '/bin/sh',
        '-c',
        // Inside: not root, and a refused call (unshare) answers EPERM rather than running.
        'test "$(id -u)" = ' + SANDBOX_INSIDE_UID + ' && ! unshare -r true 2>/dev/null',
      ],
      { timeout: 10_000, env: HOST_ENV, cwd: '/' },
    );
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    return refused(
      `a trial sandbox as an unprivileged uid in its own user namespace, with the seccomp filter, did not start here: ${detail.split('\n').pop()}`,
    );
  }
  let cgroups: CgroupLayout;
  try {
    cgroups = await prepareCgroupLayout();
  } catch (error) {
    return refused(`the cgroup controllers are mounted but the worker cannot create groups in them: ${(error as Error).message}`);
  }
  const images = await imagesSupported();
  return {
    mode: 'bwrap',
    setpriv,
    seccomp: arch,
    cgroups,
    diskImages: images.ok,
    ...(images.reason ? { diskImagesReason: images.reason } : {}),
  };
}

let detected: Promise<IsolationCheck> | undefined;

/** The machine does not change under a running process: probe once per process. */
export function detectIsolationOnce(): Promise<IsolationCheck> {
  detected ??= detectIsolation();
  return detected;
}

/** Readiness from the configured setting and what the machine offers. */
export function readinessOf(setting: IsolationSetting, check: IsolationCheck): SandboxReadiness {
  if (setting === 'unisolated-unsafe')
    return {
      mode: 'unisolated',
      ready: true,
      reason: 'sandbox.isolation is unisolated-unsafe: commands run on this host with the worker’s rights (not a security boundary)',
      fix: `set sandbox.isolation back to bwrap and ${ISOLATION_FIX}`,
    };
  if (check.mode === 'bwrap') return { mode: 'bwrap', ready: true };
  return { mode: 'unavailable', ready: false, reason: check.reason ?? 'bubblewrap is unavailable', fix: ISOLATION_FIX };
}

export interface HolderMounts {
  /** Host paths of the workspace's disk parts (a short-lived mount the workspace's uid can reach). */
  work: string;
  home: string;
  /** Read-only folders besides the disk (holder-binds.ts), each from a short-lived mount too. */
  readOnly?: ReadonlyArray<{ source: string; target: string }>;
}

/**
 * The bubblewrap arguments of a workspace's holder: a user namespace where the workspace's uid
 * is the sandbox user (no nested user namespaces), a fresh read-only root with the system
 * folders only, its own /proc (kernel tunables read-only), /dev, a sized /tmp and /dev/shm,
 * the workspace's disk at /workspace and /home/sandbox, every other namespace unshared, a
 * session of its own, and the seccomp filter.
 */
export function holderArguments(
  mounts: HolderMounts,
  limits: SandboxLimits,
  options: { dataDir: string; hiddenPaths?: readonly string[] },
): string[] {
  return [
    ...SANDBOX_USER_NAMESPACE_ARGS,
    ...systemRootArguments({ dataDir: options.dataDir, hiddenPaths: options.hiddenPaths ?? [] }),
    // Who the sandbox user is, without the host's accounts.
    '--ro-bind-data',
    String(HOLDER_FDS.passwd),
    '/etc/passwd',
    '--ro-bind-data',
    String(HOLDER_FDS.group),
    '/etc/group',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--size',
    String(mib(limits.shmMiB)),
    '--tmpfs',
    '/dev/shm',
    '--proc',
    '/proc',
    // Kernel tunables and the sysrq trigger: read-only even to a process that believes it is root.
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    '--ro-bind-try',
    '/proc/sysrq-trigger',
    '/proc/sysrq-trigger',
    '--perms',
    '1777',
    '--size',
    String(mib(limits.tmpMiB)),
    '--tmpfs',
    SANDBOX_VIEW.tmp,
    '--bind',
    mounts.work,
    SANDBOX_VIEW.work,
    '--bind',
    mounts.home,
    SANDBOX_VIEW.home,
    ...(mounts.readOnly ?? []).flatMap((bind) => ['--ro-bind', bind.source, bind.target]),
    // Nothing else is writable: the tmpfs root bubblewrap builds is made read-only too.
    '--remount-ro',
    '/',
    '--chdir',
    SANDBOX_VIEW.work,
    // The network namespace has loopback only; the worker's door is the one way out.
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'sandbox',
    '--new-session',
    '--seccomp',
    String(HOLDER_FDS.seccomp),
    '--info-fd',
    String(HOLDER_FDS.info),
  ];
}

/** /etc/passwd and /etc/group inside every sandbox: root, the sandbox user, nobody. */
export const SANDBOX_PASSWD = `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${SANDBOX_INSIDE_UID}:${SANDBOX_INSIDE_UID}:Switchboard sandbox:${SANDBOX_VIEW.home}:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`;
export const SANDBOX_GROUP = `root:x:0:\nsandbox:x:${SANDBOX_INSIDE_UID}:\nnogroup:x:65534:\n`;
