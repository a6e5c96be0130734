import { constants } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { SANDBOX_VIEW, type WorkspaceLayout } from './workspace-layout';

export type PathRefusal = { ok: false; code: 'path_outside_workspace' | 'not_found' | 'io_error'; error: string };

function within(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + sep);
}

/**
 * Maps a path as the model writes it to the folder it names on the worker's disk: relative
 * paths and `/workspace/...` are the workspace, `/tmp/...` its private tmp (where detached
 * jobs write their logs). The host paths of the same folders are accepted too, because an
 * unisolated command's `pwd` prints them. Anything else is outside.
 */
export function locate(layout: WorkspaceLayout, requested: string): { root: string; target: string } | PathRefusal {
  if (typeof requested !== 'string' || requested.trim() === '') return { ok: false, code: 'io_error', error: 'the path is empty' };
  if (requested.includes('\0')) return { ok: false, code: 'io_error', error: 'the path contains a NUL byte' };
  let root = layout.work;
  let rest = requested;
  if (isAbsolute(requested)) {
    const mounts: Array<[string, string]> = [
      [SANDBOX_VIEW.work, layout.work],
      [SANDBOX_VIEW.tmp, layout.tmp],
      [layout.work, layout.work],
      [layout.tmp, layout.tmp],
    ];
    const normal = resolve(requested);
    const mount = mounts.find(([view]) => within(view, normal));
    if (!mount) return outside(requested);
    root = mount[1];
    rest = relative(mount[0], normal);
  }
  const target = resolve(root, rest);
  return within(root, target) ? { root, target } : outside(requested);
}

function outside(requested: string): PathRefusal {
  return {
    ok: false,
    code: 'path_outside_workspace',
    error: `${requested} is outside the workspace; use a path inside it (relative, /workspace/… or /tmp/…)`,
  };
}

/** Checks that a descriptor really opened a file under `root` (no symlink swapped in meanwhile). */
async function openedWithin(handle: FileHandle, realRoot: string): Promise<boolean> {
  return within(realRoot, await readlink(`/proc/self/fd/${handle.fd}`));
}

/** Opens an existing file for reading, following symlinks only while they stay inside. */
export async function openForRead(root: string, target: string, requested: string): Promise<FileHandle | PathRefusal> {
  const realRoot = await realpath(root);
  let real: string;
  try {
    real = await realpath(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, code: 'not_found', error: `${requested} does not exist` };
    throw error;
  }
  if (!within(realRoot, real)) return outside(requested);
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  if (await openedWithin(handle, realRoot)) return handle;
  await handle.close();
  return outside(requested);
}

/** Opens a file for writing (created with its parent folders), never through an escaping link. */
export async function openForWrite(root: string, target: string, requested: string): Promise<FileHandle | PathRefusal> {
  const realRoot = await realpath(root);
  let existing = target;
  while (!(await lstat(existing).catch(() => undefined))) existing = dirname(existing);
  const realExisting = await realpath(existing).catch(() => undefined);
  if (!realExisting || !within(realRoot, realExisting)) return outside(requested);
  const finalPath = existing === target ? realExisting : target;
  await mkdir(dirname(finalPath), { recursive: true });
  const handle = await open(finalPath, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  if (await openedWithin(handle, realRoot)) return handle;
  await handle.close();
  return outside(requested);
}
