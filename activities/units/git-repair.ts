import { randomBytes } from 'node:crypto';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runGit, type GitOutcome } from '../github/git-credentials';

/**
 * Makes `work` a checkout whose `.git` is whole and whose `origin` is `remote`, whatever a
 * killed attempt left there. A kill can land anywhere: inside `git init` (a `.git` with only
 * `description` and `hooks/`), between `init` and `remote add`, or mid-command (stale
 * `*.lock` files). So the git directory is built aside and renamed into place (a rename is
 * atomic: `.git` is either whole or absent), a broken one is renamed away before it is
 * removed, and the remote and lock files are checked on every call.
 */
export async function ensureCheckout(work: string, remote: string, git: GitRunner): Promise<void> {
  const parent = dirname(work);
  await removeLeftovers(parent);
  const gitDir = join(work, '.git');
  if (await exists(gitDir)) {
    await removeStaleLocks(gitDir);
    if (!(await isWholeRepository(work, gitDir))) await discard(gitDir, parent);
  }
  if (!(await exists(gitDir))) {
    const building = join(parent, `${BUILDING}${randomBytes(6).toString('hex')}`);
    await git(['init', '-q', '--bare', building], parent);
    await git(['--git-dir', building, 'config', 'core.bare', 'false'], parent);
    await git(['--git-dir', building, 'remote', 'add', 'origin', remote], parent);
    await rename(building, gitDir);
  }
  const url = await runGit(['remote', 'get-url', 'origin'], { cwd: work, env: ceiling(work) });
  if (url.code !== 0) await git(['remote', 'add', 'origin', remote], work);
  else if (url.stdout.trim() !== remote) await git(['remote', 'set-url', 'origin', remote], work);
}

/** Removes the lock files a killed git left (only this worker's activity writes here, one at a time). */
export async function removeStaleLocks(gitDir: string): Promise<void> {
  for (const lock of await findLocks(gitDir, 0)) await rm(lock, { force: true });
}

export type GitRunner = (args: string[], cwd: string, token?: string) => Promise<string>;

/** Stops git's search for a repository at the workspace: a broken `.git` must never fall through to a parent repo. */
export function ceiling(work: string): NodeJS.ProcessEnv {
  return { GIT_CEILING_DIRECTORIES: dirname(work) };
}

const BUILDING = '.git-building-';
const DISCARDED = '.git-discarded-';

async function isWholeRepository(work: string, gitDir: string): Promise<boolean> {
  const found: GitOutcome = await runGit(['rev-parse', '--absolute-git-dir'], { cwd: work, env: ceiling(work) });
  if (found.code !== 0 || found.stdout.trim() !== gitDir) return false;
  // A `.git` missing its object store or HEAD is not worth repairing: fetch fills a new one.
  const objects = await runGit(['count-objects'], { cwd: work, env: ceiling(work) });
  return objects.code === 0;
}

async function discard(gitDir: string, parent: string): Promise<void> {
  const aside = join(parent, `${DISCARDED}${randomBytes(6).toString('hex')}`);
  await rename(gitDir, aside);
  await rm(aside, { recursive: true, force: true });
}

async function removeLeftovers(parent: string): Promise<void> {
  const entries = await readdir(parent).catch(() => [] as string[]);
  for (const entry of entries) {
    if (entry.startsWith(BUILDING) || entry.startsWith(DISCARDED)) await rm(join(parent, entry), { recursive: true, force: true });
  }
}

async function findLocks(dir: string, depth: number): Promise<string[]> {
  if (depth > 6) return [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const locks: string[] = [];
  for (const entry of entries) {
    // objects/ holds no locks worth a walk, and is the largest part.
    if (entry.isDirectory() && entry.name !== 'objects') locks.push(...(await findLocks(join(dir, entry.name), depth + 1)));
    else if (entry.isFile() && entry.name.endsWith('.lock')) locks.push(join(dir, entry.name));
  }
  return locks;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
