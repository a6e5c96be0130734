import { createHash } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type WorkspaceRef } from './types';

/**
 * Where the sandboxed command sees each part of its workspace when bubblewrap isolates it.
 * Fixed paths, so prompts, hints and tool paths read the same in every workspace.
 */
export const SANDBOX_VIEW = {
  work: '/workspace',
  tmp: '/tmp',
  home: '/home/sandbox',
} as const;

/** The folders of one workspace on the worker's disk. */
export interface WorkspaceLayout {
  /** The safe folder name derived from the key. */
  name: string;
  root: string;
  /** The checkout and the command's working directory (`/workspace` inside the sandbox). */
  work: string;
  /** The private `/tmp`, kept across calls so detached jobs' logs and exit files stay visible. */
  tmp: string;
  /** `$HOME` of the command: git config, caches. */
  home: string;
  /** The worker's own notes (the holder's pid); never mounted into the sandbox. */
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
  const name = workspaceName(workspace.key);
  const root = join(dataDir, 'workspaces', name);
  return {
    name,
    root,
    work: join(root, 'work'),
    tmp: join(root, 'tmp'),
    home: join(root, 'home'),
    state: join(root, 'state'),
  };
}

/** Creates the workspace's folders if they are missing; cheap when they exist. */
export async function ensureWorkspaceFolders(layout: WorkspaceLayout): Promise<void> {
  await mkdir(layout.work, { recursive: true });
  // The private /tmp is world-writable with the sticky bit, like any /tmp.
  await mkdir(layout.tmp, { recursive: true });
  await chmod(layout.tmp, 0o1777);
  await mkdir(layout.home, { recursive: true });
  await mkdir(layout.state, { recursive: true, mode: 0o700 });
}
