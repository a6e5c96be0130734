import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type WorkspaceRef } from '../../workflows/contracts/sandbox';

/**
 * Where the sandboxed command sees each part of its workspace when bubblewrap isolates it.
 * Fixed paths, so prompts, hints and tool paths read the same in every workspace.
 */
export const SANDBOX_VIEW = {
  work: '/workspace',
  tmp: '/tmp',
  home: '/home/sandbox',
} as const;

/**
 * The folders of one workspace on the worker's disk. Isolated, the worker's side holds only
 * its own notes and the workspace's disk (an image, or a folder owned by the workspace's uid
 * that the worker never opens); the files are reached from inside the sandbox. Unisolated,
 * `work`, `tmp` and `home` are plain folders the commands use directly.
 */
export interface WorkspaceLayout {
  /** The safe folder name derived from the key. */
  name: string;
  /** `<dataDir>/workspaces/<name>`: root's only (0700). */
  root: string;
  /** The checkout: `/workspace` inside the sandbox. */
  work: string;
  /** The private `/tmp` when unisolated (isolated, `/tmp` is a sized tmpfs of the sandbox). */
  tmp: string;
  /** `$HOME` of the command: git config, caches. */
  home: string;
  /** Isolated without a disk image: the folder holding `work` and `home`, owned by the workspace's uid. */
  data: string;
  /** The workspace's disk image (isolated, when loop devices are available). */
  image: string;
  /** The worker's own notes (the holder's pid, the uid, the lease); never mounted into the sandbox. */
  state: string;
}

/**
 * A folder name for a workspace key: readable, filesystem-safe and collision-free
 * (two keys that slug alike still differ by the hash suffix).
 */
export function workspaceName(key: string): string {
  if (typeof key !== 'string' || key.length === 0) throw new TypeError('workspace key must be a non-empty string');
  const slug = key
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[.-]+|-+$/g, '')
    .slice(0, 80);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 10);
  return `${slug || 'workspace'}-${hash}`;
}

export function workspaceLayout(dataDir: string, workspace: WorkspaceRef): WorkspaceLayout {
  return layoutByName(dataDir, workspaceName(workspace.key));
}

export function layoutByName(dataDir: string, name: string): WorkspaceLayout {
  const root = join(dataDir, 'workspaces', name);
  const data = join(root, 'data');
  return {
    name,
    root,
    work: join(data, 'work'),
    tmp: join(data, 'tmp'),
    home: join(data, 'home'),
    data,
    image: join(root, 'disk.img'),
    state: join(root, 'state'),
  };
}

/** The worker's folders of a workspace: its root and notes, root's only. */
export async function ensureStateFolders(layout: WorkspaceLayout): Promise<void> {
  await mkdir(layout.state, { recursive: true, mode: 0o700 });
  await chmod(layout.root, 0o700);
}

/** Unisolated: the plain folders commands use (nothing here is a boundary). */
export async function ensureUnisolatedFolders(layout: WorkspaceLayout): Promise<void> {
  await ensureStateFolders(layout);
  await mkdir(layout.work, { recursive: true });
  // The private /tmp is world-writable with the sticky bit, like any /tmp.
  await mkdir(layout.tmp, { recursive: true });
  await chmod(layout.tmp, 0o1777);
  await mkdir(layout.home, { recursive: true });
}

/**
 * Notes (in the worker's own state folder) that something other than the worker's own steps ran
 * in the workspace: a command, a file write, an MCP server. Only a workspace with no such note
 * may give its setup's results to others (repo-cache/setup-store.ts).
 */
export async function markUsed(layout: WorkspaceLayout): Promise<void> {
  await writeFile(join(layout.state, USED), '', { mode: 0o600, flag: 'a' }).catch(() => undefined);
}

export async function wasUsed(layout: WorkspaceLayout): Promise<boolean> {
  return (await stat(join(layout.state, USED)).catch(() => undefined)) !== undefined;
}

const USED = 'used';

/** The key a workspace was made for, in its own state folder (a folder name is a slug and a hash: no way back). */
const KEY = 'key';

/** Notes the key a workspace was made for, once (the janitor finds a workflow's workspaces by it). */
export async function recordKey(layout: WorkspaceLayout, key: string): Promise<void> {
  if ((await stat(join(layout.state, KEY)).catch(() => undefined)) !== undefined) return;
  await ensureStateFolders(layout);
  await writeFile(join(layout.state, KEY), key, { mode: 0o600, flag: 'wx' }).catch(() => undefined);
}

/** The keys of this data dir's workspaces that are `key` or lie under it (`<key>/…`), as they recorded them. */
export async function recordedKeysUnder(dataDir: string, key: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(join(dataDir, 'workspaces')).catch(() => [] as string[])) {
    const recorded = await readFile(join(layoutByName(dataDir, name).state, KEY), 'utf8').catch(() => '');
    if (recorded === key || recorded.startsWith(`${key}/`)) found.push(recorded);
  }
  return found;
}
