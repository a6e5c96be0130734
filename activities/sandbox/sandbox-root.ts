import { lstatSync, readdirSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';

/**
 * The filesystem a sandbox sees, as bubblewrap arguments: a read-only root built from an
 * allowlist of system folders, never the host's whole `/`. What is left out cannot leak:
 * the host's project trees (`/work`, `/srv`, `/opt`, `/mnt` …), `/home`, `/root`, `/var`
 * (databases, logs, mail), `/run` (sockets, secrets), `/sys`, `/boot`.
 */

/** Top-level folders (or merged-/usr symlinks) a shell and its tools need: programs, libraries, `/etc`. */
export const SYSTEM_FOLDERS = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc'] as const;

/**
 * Files under `/etc` hidden even though anyone may read them: configuration that commonly
 * carries credentials (git, npm and pip settings, system-wide environment variables).
 * Everything under `/etc` that the system keeps from ordinary users (shadow, gshadow, SSH host
 * keys, TLS private keys, ppp and IPsec secrets …) is hidden by its permissions, see below.
 */
export const ETC_CREDENTIAL_FILES = ['/etc/gitconfig', '/etc/npmrc', '/etc/pip.conf', '/etc/environment', '/etc/.git-credentials'];

/** Whether the system lets a user other than the owner read it (files) or enter and list it (folders). */
function worldReadable(stat: Stats): boolean {
  return stat.isDirectory() ? (stat.mode & 0o005) === 0o005 : (stat.mode & 0o004) === 0o004;
}

/**
 * Everything under `/etc` an ordinary user could not read. Commands run as an unprivileged uid
 * of their own, so the system's permissions already keep them out; these are covered as well,
 * so a file a group or a later change opens up stays out of the sandbox.
 */
export function privateEtcEntries(root = '/etc'): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry);
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (!stat || stat.isSymbolicLink()) continue;
      if (!worldReadable(stat)) found.push(path);
      else if (stat.isDirectory() && depth < 8) walk(path, depth + 1);
    }
  };
  walk(root, 0);
  return found;
}

const under = (path: string, folder: string) => path === folder || path.startsWith(folder + sep);

/**
 * Whether a process with no rights of its own (the workspace's uid, an "other" to every file
 * on the host) can look the path up: every folder above it must be searchable by others.
 */
export function reachableByOthers(path: string): boolean {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    const stat = statSync(folder, { throwIfNoEntry: false });
    if (!stat || (stat.mode & 0o001) === 0) return false;
    if (folder === '/') return true;
  }
}

/**
 * Covers a folder with an empty read-only tmpfs, or a file with /dev/null; nothing for what is
 * absent, or out of reach already (bubblewrap, running as the workspace's uid, could not even
 * look it up to cover it, and neither can the commands).
 */
function hide(path: string): string[] {
  if (!reachableByOthers(path)) return [];
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return ['--perms', '0555', '--tmpfs', path];
  if (stat) return ['--ro-bind', '/dev/null', path];
  return [];
}

/** Whether a host path is inside the part of the host the sandbox sees. */
export function visibleInSandbox(path: string): boolean {
  return SYSTEM_FOLDERS.some((folder) => under(path, `/${folder}`));
}

/**
 * The read-only system part of a sandbox's root: the system folders, the worker's own node
 * when it lives elsewhere (so `node` and `npm` work inside), and hidden paths covered.
 */
export function systemRootArguments(options: { dataDir: string; hiddenPaths?: readonly string[] }): string[] {
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    const hostPath = `/${folder}`;
    const stat = lstatSync(hostPath, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(hostPath), hostPath);
    else if (stat.isDirectory()) args.push('--ro-bind', hostPath, hostPath);
  }
  // A node outside the system folders (nvm, a tarball under /opt): its own prefix, read-only.
  const nodePrefix = dirname(dirname(process.execPath));
  if (!visibleInSandbox(process.execPath) && nodePrefix !== '/') args.push('--ro-bind', nodePrefix, nodePrefix);
  const hidden = new Set<string>([...privateEtcEntries(), ...ETC_CREDENTIAL_FILES]);
  // The worker's data (other workspaces, the Temporal database), its home and its folder are
  // already out of view unless someone put them under a system folder; then they are covered.
  for (const path of [options.dataDir, homedir(), process.cwd(), ...(options.hiddenPaths ?? [])]) {
    if (isAbsolute(path) && (visibleInSandbox(path) || under(path, nodePrefix))) hidden.add(path);
  }
  const covered: string[] = [];
  for (const path of [...hidden].sort()) {
    // Inside a folder already covered there is nothing left to hide.
    if (covered.some((folder) => under(path, folder))) continue;
    const cover = hide(path);
    if (cover[cover.length - 2] === '--tmpfs') covered.push(path);
    args.push(...cover);
  }
  return args;
}
