import { join } from 'node:path';
import { layoutByName, workspaceName, type WorkspaceLayout } from '../workspace-layout';

/**
 * Where a repository's object cache lives on a worker host. Each cache is a workspace of its own
 * (`<dataDir>/workspaces/<name>/`, its own uid and sandbox), whose disk is a plain folder holding
 * the mirror's refs and the packs its fetch brought, plus the parts only the worker writes:
 *
 * - `cache/objects/` (root's, 0755): the published object store. Only packs whose index the cache's
 *   no-network index step computed from their bytes arrive here, moved in and sealed (root's, 0444)
 *   by the worker; `objects/info/` stays empty, so there are no alternates, commit-graphs or other
 *   metadata a sandbox could have made up. It is bound read-only into the cache's own sandbox and
 *   into each resident workspace of the repository at {@link CACHE_VIEW}.
 * - `cache/meta.json` (root's): the repository, when the cache was made, refreshed and last used,
 *   each sealed pack's size and SHA-256, the branch tips, the setup results kept.
 * - `cache/setup/<key>.tar` (root's): a repository's setup results (setup-store.ts).
 */
export interface CacheLayout {
  repo: string;
  /** The cache's workspace (its uid, holder, door, disk). */
  workspace: WorkspaceLayout;
  /** The workspace key the sandbox host knows it by. */
  key: string;
  /** `<workspace>/cache`: the worker's own part. */
  root: string;
  objects: string;
  packs: string;
  meta: string;
  setups: string;
  /** Where the index step leaves verified packs, on the cache's own disk (host path). */
  verified: string;
}

/** Where every sandbox that may use a cache sees its published objects (read-only). */
export const CACHE_VIEW = '/repo-cache/objects';

/** The prefix of a cache's workspace key (a thread or unit key never starts so). */
export const CACHE_KEY_PREFIX = 'repo-cache:';

/** The file in a resident workspace's state folder that names the cache its holder binds. */
export const CONSUMER_STATE_FILE = 'repo-cache';

/**
 * The file in a resident workspace's state folder that says its checkout is trusted code: a branch
 * of the repository checked out for the write identity (only people who may push there wrote it),
 * never a pinned pull-request head. Only such a checkout's setup is kept for other runs
 * (setup-store.ts).
 */
export const TRUSTED_CHECKOUT_FILE = 'trusted-checkout';

export function cacheKey(repo: string): string {
  return `${CACHE_KEY_PREFIX}${repo.toLowerCase()}`;
}

export function cacheLayout(dataDir: string, repo: string): CacheLayout {
  const key = cacheKey(repo);
  return layoutOf(layoutByName(dataDir, workspaceName(key)), repo.toLowerCase(), key);
}

/** The cache layout of a cache workspace found by name (its repository read from its meta). */
export function cacheLayoutByName(dataDir: string, name: string, repo: string): CacheLayout {
  return layoutOf(layoutByName(dataDir, name), repo, cacheKey(repo));
}

function layoutOf(workspace: WorkspaceLayout, repo: string, key: string): CacheLayout {
  const root = join(workspace.root, 'cache');
  const objects = join(root, 'objects');
  return {
    repo,
    workspace,
    key,
    root,
    objects,
    packs: join(objects, 'pack'),
    meta: join(root, 'meta.json'),
    setups: join(root, 'setup'),
    verified: join(workspace.work, 'verified', 'pack'),
  };
}
