import { isAbsolute, relative, resolve, sep } from 'node:path';
import { SANDBOX_VIEW, type WorkspaceLayout } from './workspace-layout';

export type PathRefusal = { ok: false; code: 'path_outside_workspace' | 'not_found' | 'io_error'; error: string };

function within(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + sep);
}

/**
 * Maps a path as the model writes it to the path the file helper opens: relative paths and
 * `/workspace/...` are the workspace, `/tmp/...` its private tmp (where detached jobs write
 * their logs). The host paths of the same folders are accepted too, because an unisolated
 * command's `pwd` prints them. Anything else is outside. This is only the first gate: the
 * helper checks the real path again where the file is, inside the sandbox.
 */
export function locate(
  layout: WorkspaceLayout,
  roots: { work: string; tmp: string },
  requested: string,
): { root: string; target: string } | PathRefusal {
  if (typeof requested !== 'string' || requested.trim() === '') return { ok: false, code: 'io_error', error: 'the path is empty' };
  if (requested.includes('\0')) return { ok: false, code: 'io_error', error: 'the path contains a NUL byte' };
  let root = roots.work;
  let rest = requested;
  if (isAbsolute(requested)) {
    const mounts: Array<[string, string]> = [
      [SANDBOX_VIEW.work, roots.work],
      [SANDBOX_VIEW.tmp, roots.tmp],
      [layout.work, roots.work],
      [layout.tmp, roots.tmp],
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

export function outside(requested: string): PathRefusal {
  return {
    ok: false,
    code: 'path_outside_workspace',
    error: `${requested} is outside the workspace; use a path inside it (relative, /workspace/… or /tmp/…)`,
  };
}
