import { execFile } from 'node:child_process';
import { lstatSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, sep } from 'node:path';
import { promisify } from 'node:util';
import { SANDBOX_VIEW, type WorkspaceLayout } from './workspace-layout';

const run = promisify(execFile);

/** How commands are confined: `bwrap` (namespaces) or `none` (process group and scrubbed env only). */
export type IsolationMode = 'bwrap' | 'none';

export interface IsolationCheck {
  mode: IsolationMode;
  /** Why isolation is off, when it is. */
  reason?: string;
  /** Whether setpriv is here to tie a call's command to the worker's life. */
  setpriv: boolean;
}

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
 * the holder's namespaces; an unprivileged worker would need user namespaces on top), bwrap,
 * nsenter and setpriv, and a trial sandbox that really starts.
 */
export async function detectIsolation(): Promise<IsolationCheck> {
  const setpriv = await installed('setpriv');
  if (process.getuid?.() !== 0)
    return { mode: 'none', setpriv, reason: 'the worker is not root, and the bubblewrap holder needs root to enter its namespaces' };
  for (const tool of ['bwrap', 'nsenter', 'setpriv']) {
    if (!(await installed(tool)))
      return { mode: 'none', setpriv, reason: `${tool} is not installed (Debian: apt-get install bubblewrap util-linux)` };
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

// Top-level host folders the sandbox never sees: its own /proc, /dev and /tmp replace the
// host's; people's homes hold credentials (~/.git-credentials, ~/.npmrc, ~/.config/gh).
const HIDDEN_TOP_LEVEL = new Set(['proc', 'dev', 'tmp', 'home', 'root', 'workspace', '.switchboard']);

/** Covers a folder with an empty tmpfs, or a file with /dev/null; nothing for what is absent or already hidden. */
function hide(path: string): string[] {
  const top = path.split(sep).filter(Boolean)[0];
  if (!isAbsolute(path) || top === undefined || HIDDEN_TOP_LEVEL.has(top)) return [];
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return ['--tmpfs', path];
  if (stat) return ['--ro-bind', '/dev/null', path];
  return [];
}

const SYSTEM_TOP_LEVEL = new Set(['usr', 'etc', 'bin', 'sbin', 'lib', 'lib64', 'lib32', 'opt', 'var', 'run', 'sys', 'srv']);

/**
 * The bubblewrap arguments of a workspace's holder: a fresh root built from the host's
 * top-level folders bound read-only (so `/workspace` can be created beside them), the
 * workspace parts bound at their fixed view paths, and the data dir hidden.
 */
export function holderArguments(layout: WorkspaceLayout, dataDir: string, extraHidden: readonly string[] = []): string[] {
  const args: string[] = [];
  for (const entry of readdirSync('/')) {
    if (HIDDEN_TOP_LEVEL.has(entry)) continue;
    const hostPath = `/${entry}`;
    const stat = lstatSync(hostPath, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(hostPath), hostPath);
    else if (stat.isDirectory()) args.push('--ro-bind', hostPath, hostPath);
  }
  args.push('--dev', '/dev', '--proc', '/proc');
  // The worker's data (other workspaces, the Temporal database), its home and its own folder
  // (where a .env may sit) stay out of view; system folders are never hidden by default.
  for (const hidden of new Set([dataDir, homedir(), process.cwd()])) {
    const top = hidden.split(sep).filter(Boolean)[0];
    if (top !== undefined && !SYSTEM_TOP_LEVEL.has(top)) args.push(...hide(hidden));
  }
  // Container secrets, and whatever the operator names.
  for (const hidden of ['/run/secrets', ...extraHidden]) args.push(...hide(hidden));
  args.push(
    '--bind',
    layout.work,
    SANDBOX_VIEW.work,
    '--bind',
    layout.tmp,
    SANDBOX_VIEW.tmp,
    '--bind',
    layout.home,
    SANDBOX_VIEW.home,
    '--ro-bind',
    layout.credentials,
    SANDBOX_VIEW.credentials,
    '--chdir',
    SANDBOX_VIEW.work,
    // Network is unshared for the holder; a call allowed the network simply does not join it.
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--hostname',
    'sandbox',
  );
  return args;
}
