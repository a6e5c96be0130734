import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { systemRootArguments } from './sandbox-root';
import { SANDBOX_VIEW, type WorkspaceLayout } from './workspace-layout';

const run = promisify(execFile);

/** How commands are confined: `bwrap` (namespaces) or `none` (unisolated, only by explicit configuration). */
export type IsolationMode = 'bwrap' | 'none';

/**
 * What the configuration asks for. `bwrap` is the default and fails closed; the other value
 * is spelled so that nobody picks it by accident: commands then run on the host.
 */
export type IsolationSetting = 'bwrap' | 'unisolated-unsafe';

export interface IsolationCheck {
  mode: IsolationMode;
  /** Why bubblewrap cannot be used here, when it cannot. */
  reason?: string;
  /** Whether setpriv is here to tie a call's command to the worker's life. */
  setpriv: boolean;
}

/** Whether shell and file tools may run, as `/healthz`, `switchboard doctor` and run refusals report it. */
export interface SandboxReadiness {
  /** `bwrap`: isolated; `unisolated`: on the host by explicit configuration; `unavailable`: refused. */
  mode: 'bwrap' | 'unisolated' | 'unavailable';
  ready: boolean;
  reason?: string;
  /** What an operator does about it. */
  fix?: string;
}

/** What to install, said wherever isolation is missing. */
export const ISOLATION_FIX =
  'install bubblewrap and util-linux on the worker host (Debian/Ubuntu: apt-get install -y bubblewrap util-linux) and run the worker as root';

/** Whether a program is on the worker's PATH. */
export async function installed(tool: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${tool}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether bubblewrap can isolate commands here. The holder design needs root (nsenter joins
 * the holder's namespaces and opens the network door in it), bwrap, nsenter and setpriv, and
 * a trial sandbox with its own pid and network namespaces that really starts.
 */
export async function detectIsolation(): Promise<IsolationCheck> {
  const setpriv = await installed('setpriv');
  if (process.getuid?.() !== 0)
    return { mode: 'none', setpriv, reason: 'the worker is not root, and the bubblewrap holder needs root to enter its namespaces' };
  for (const tool of ['bwrap', 'nsenter', 'setpriv']) {
    if (!(await installed(tool))) return { mode: 'none', setpriv, reason: `${tool} is not installed` };
  }
  try {
    await run('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--', 'true'], {
      timeout: 10_000,
    });
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    return { mode: 'none', setpriv, reason: `bwrap is installed but cannot start a sandbox here: ${detail}` };
  }
  return { mode: 'bwrap', setpriv };
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

/**
 * The bubblewrap arguments of a workspace's holder: a fresh read-only root with the system
 * folders only, its own /proc, /dev and /tmp, the workspace parts bound at their fixed view
 * paths, every namespace but the user one unshared, and no capabilities for what runs in it.
 */
export function holderArguments(layout: WorkspaceLayout, dataDir: string, extraHidden: readonly string[] = []): string[] {
  return [
    ...systemRootArguments({ dataDir, hiddenPaths: extraHidden }),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    layout.work,
    SANDBOX_VIEW.work,
    '--bind',
    layout.tmp,
    SANDBOX_VIEW.tmp,
    '--bind',
    layout.home,
    SANDBOX_VIEW.home,
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
    '--cap-drop',
    'ALL',
  ];
}
