import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NO_HOLDER_SETUP, type HolderSetup } from '../holder-binds';
import { liveHolder } from '../holder';
import { type SandboxHost, type SandboxLogger } from '../sandbox-host';
import { processesOf } from '../sandbox-uids';
import { type WorkspaceGit } from '../workspace-git';
import { ensureStateFolders, layoutByName, type WorkspaceLayout } from '../workspace-layout';
import { evictions, type CacheEntry } from './cache-bounds';
import { CACHE_VIEW, CONSUMER_STATE_FILE, TRUSTED_CHECKOUT_FILE, cacheLayout, cacheLayoutByName, type CacheLayout } from './cache-layout';
import { CACHE_FETCH_SCRIPT, CACHE_INDEX_SCRIPT } from './cache-scripts';
import { cacheBytes, checkStore, ensureCacheFolders, readMeta, sealVerified, writeMeta, type CacheMeta } from './cache-store';

/** `sandbox.repoCache`: the warm object caches of `repo-resident` work on each worker host. */
export interface RepoCacheSettings {
  enabled: boolean;
  /** Every cache of the host together (packs and setup results), in MiB. */
  maxMiB: number;
  /** A cache unused for longer goes. */
  maxAgeDays: number;
  /** A cache past this many packs is built again at its next use. */
  maxPacks: number;
  /** A cache refreshed less than this long ago is used as it is (the checkout's own fetch brings the rest). */
  refreshSeconds: number;
  /** One setup result at most, in MiB (larger ones are not kept). */
  setupMiB: number;
  /** Setup results kept per repository (the newest). */
  keepSetups: number;
}

export const DEFAULT_REPO_CACHE: RepoCacheSettings = {
  enabled: true,
  maxMiB: 20_480,
  maxAgeDays: 14,
  maxPacks: 40,
  refreshSeconds: 10,
  setupMiB: 2_048,
  keepSetups: 3,
};

/** What a resident checkout gets: the store to borrow from and the tips to start its negotiation with, or why not. */
export interface CheckoutCache {
  /** The published objects as the sandbox sees them, when the checkout may borrow them. */
  objects?: string;
  /** `<sha> <ref>` lines: the cache's branch tips. */
  tips?: string;
  /** Said to the run and logged when the cache could not be used (the checkout then fetches everything itself). */
  notice?: string;
}

export interface RepoCacheDeps {
  host: SandboxHost;
  git: WorkspaceGit;
  settings?: Partial<RepoCacheSettings>;
  logger?: SandboxLogger;
  /** Told when a cache was made or evicted (the worker polls one queue per cached repository). */
  onChange?: () => void;
  now?: () => number;
}

const LABEL_PREFIX = 'repo-cache:';
const bindLabel = (cacheName: string) => `${LABEL_PREFIX}${cacheName}`;
const TIP = /^([0-9a-f]{40}|[0-9a-f]{64}) (refs\/heads\/[A-Za-z0-9._/-]{1,200})$/;
/** The cache's own steps may fetch a whole repository the first time. */
const STEP_TIMEOUT_MS = 30 * 60_000;

const byHost = new WeakMap<SandboxHost, RepoCache>();

/** The cache a sandbox host's activities were built with, if any (the bash activity's setup results). */
export function registeredRepoCache(host: SandboxHost): RepoCache | undefined {
  return byHost.get(host);
}

/** The one cache of a sandbox host (the shared and the host queue's activities of a worker share it, and its queues). */
export function repoCacheOf(deps: RepoCacheDeps): RepoCache {
  return byHost.get(deps.host) ?? new RepoCache(deps);
}

/**
 * The object caches of one worker host, one per repository it served (docs/sandbox.md#warm-repositories).
 * A cache is built and refreshed by git in a sandbox of its own (its own uid; the read identity
 * through its own door), never by the worker; what reaches the published store was indexed again
 * from its bytes by a no-network step and sealed by the worker. Resident workspaces get the store
 * read-only at {@link CACHE_VIEW} and borrow from it as git alternates.
 */
export class RepoCache {
  readonly settings: RepoCacheSettings;
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Caches whose files this process has hashed against their seals. */
  private readonly hashed = new Set<string>();

  constructor(private readonly deps: RepoCacheDeps) {
    this.settings = { ...DEFAULT_REPO_CACHE, ...deps.settings };
    deps.host.setHolderSetup((layout) => this.holderSetup(layout));
    byHost.set(deps.host, this);
  }

  private get dataDir(): string {
    return this.deps.host.dataDir;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** What a holder starts with: a cache's own sandbox gets its folder disk and its store; a resident workspace the store it uses. */
  async holderSetup(layout: WorkspaceLayout): Promise<HolderSetup> {
    const own = join(layout.root, 'cache', 'objects');
    if (await isFolder(own)) return { folderDisk: true, binds: [{ source: own, target: CACHE_VIEW, label: bindLabel(layout.name) }] };
    const name = (await readFile(join(layout.state, CONSUMER_STATE_FILE), 'utf8').catch(() => '')).trim();
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) return NO_HOLDER_SETUP;
    const objects = join(this.dataDir, 'workspaces', name, 'cache', 'objects');
    if (!(await isFolder(objects))) return NO_HOLDER_SETUP;
    return { binds: [{ source: objects, target: CACHE_VIEW, label: bindLabel(name) }] };
  }

  /** Runs `work` after any earlier work on the same repository's cache. */
  private serial<T>(repo: string, work: () => Promise<T>): Promise<T> {
    const key = repo.toLowerCase();
    const next = (this.queues.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.queues.set(key, next);
    void next.finally(() => this.queues.get(key) === next && this.queues.delete(key)).catch(() => undefined);
    return next;
  }

  /**
   * The cache for a resident checkout in workspace `workspace` (its folder name): checked against
   * its seals, refreshed, and bound into the workspace's sandbox (a sandbox running without it is
   * restarted). A corrupt cache is evicted and a cache that cannot be built is left: either way the
   * checkout fetches everything itself, and the notice says so.
   */
  async forCheckout(input: { repo: string; workspace: string; remote: string }): Promise<CheckoutCache> {
    if (!this.settings.enabled || (await this.deps.host.isolationCheck()).mode !== 'bwrap') {
      await this.detach(input.workspace);
      return {};
    }
    const answer = await this.serial(input.repo, async (): Promise<CheckoutCache> => {
      const layout = cacheLayout(this.dataDir, input.repo);
      let meta = await readMeta(layout.meta);
      if (meta) {
        const check = await checkStore(layout, meta, !this.hashed.has(layout.key));
        if (!check.ok) {
          await this.detach(input.workspace);
          await this.evict(layout, `it is corrupt: ${check.why}`);
          return {
            notice: `The repository cache of ${input.repo} on this worker host was corrupt (${check.why}), so this checkout fetched everything directly; the cache is built again at its next use.`,
          };
        }
        this.hashed.add(layout.key);
      }
      try {
        meta = await this.refresh(layout, meta, input.remote);
      } catch (error) {
        const why = messageOf(error);
        this.deps.logger?.warn({ component: 'repo-cache', repo: input.repo, error: why }, 'a repository cache could not be refreshed');
        // A cache that could not be refreshed is still a good start: the checkout's own fetch brings the rest.
        if (!meta || meta.packs.length === 0) {
          await this.detach(input.workspace);
          return {
            notice: `The repository cache of ${input.repo} could not be built on this worker host (${why}), so this checkout fetched everything directly.`,
          };
        }
      }
      meta = { ...meta, usedAt: new Date(this.now()).toISOString() };
      await writeMeta(layout, meta);
      await this.attach(input.workspace, layout.workspace.name);
      return { objects: CACHE_VIEW, tips: meta.tips.map((tip) => `${tip.sha} ${tip.ref}`).join('\n') };
    });
    if (answer.notice) this.deps.logger?.warn({ component: 'repo-cache', repo: input.repo, workspace: input.workspace }, answer.notice);
    void this.sweep().catch(() => undefined);
    return answer;
  }

  /**
   * Brings the cache up to date: a fetch step in its sandbox with the read identity, then (when it
   * brought packs) an index step with no network in a sandbox started afresh, then the worker seals
   * the verified packs into the store. Recently refreshed: as it is.
   */
  private async refresh(layout: CacheLayout, known: CacheMeta | undefined, remote: string): Promise<CacheMeta> {
    const now = this.now();
    if (known?.refreshedAt && now - Date.parse(known.refreshedAt) < this.settings.refreshSeconds * 1_000) return known;
    await ensureCacheFolders(layout);
    const meta: CacheMeta = known ?? {
      repo: layout.repo,
      createdAt: new Date(now).toISOString(),
      usedAt: new Date(now).toISOString(),
      packs: [],
      tips: [],
      setups: [],
    };
    if (!known) await writeMeta(layout, meta);
    await this.dropUnsealed(layout, meta);
    const name = layout.workspace.name;
    const fetched = await this.deps.git.script(
      name,
      CACHE_FETCH_SCRIPT,
      [remote, CACHE_VIEW],
      { identity: 'read', repo: layout.repo },
      STEP_TIMEOUT_MS,
    );
    if (fetched.code !== 0) throw new Error(`its fetch failed: ${tail(fetched)}`);
    const lines = fetched.stdout.split('\n');
    const tips = lines.flatMap((line) => {
      const match = line.startsWith('tip=') ? TIP.exec(line.slice(4).trim()) : null;
      return match ? [{ sha: match[1], ref: match[2] }] : [];
    });
    if (lines.some((line) => line.startsWith('pack='))) {
      const indexed = await this.deps.git.script(
        name,
        CACHE_INDEX_SCRIPT,
        [CACHE_VIEW],
        { identity: 'read', repo: '', network: false },
        STEP_TIMEOUT_MS,
      );
      if (indexed.code !== 0) throw new Error(`its index step failed: ${tail(indexed)}`);
      const uid = Number(await readFile(join(layout.workspace.state, 'uid'), 'utf8'));
      // Sealing reads what the uid wrote: none of its processes may still be there to change it.
      if (!Number.isInteger(uid) || processesOf(uid).length > 0) throw new Error('processes of the cache’s sandbox were still running');
      meta.packs = [...meta.packs, ...(await sealVerified(layout, uid))];
    }
    const refreshed = { ...meta, tips: tips.slice(0, 2_000), refreshedAt: new Date(this.now()).toISOString() };
    await writeMeta(layout, refreshed);
    // A cache that now holds objects: this host starts polling the repository's resident queue.
    if (!known?.packs.length && refreshed.packs.length > 0) this.deps.onChange?.();
    return refreshed;
  }

  /** Packs in the store that no meta names (a worker killed between sealing and writing the meta) are dropped. */
  private async dropUnsealed(layout: CacheLayout, meta: CacheMeta): Promise<void> {
    const named = new Set(meta.packs.flatMap((pack) => [`${pack.name}.pack`, `${pack.name}.idx`]));
    for (const entry of await readdir(layout.packs).catch(() => [] as string[]))
      if (!named.has(entry)) await rm(join(layout.packs, entry), { force: true });
  }

  /** Names the cache a resident workspace's holder binds; a holder running without it is restarted at its next use. */
  private async attach(workspace: string, cacheName: string): Promise<void> {
    const layout = layoutByName(this.dataDir, workspace);
    await ensureStateFolders(layout);
    await writeFile(join(layout.state, CONSUMER_STATE_FILE), cacheName, { mode: 0o600 });
    const holder = await liveHolder(layout);
    if (holder && !(holder.binds ?? []).includes(bindLabel(cacheName))) await this.deps.host.closeByName(workspace);
  }

  /**
   * A checkout that borrowed from the cache failed and was made without it: said in the log, and
   * the cache's files are hashed against their seals again at its next use.
   */
  checkoutFellBack(repo: string, notice: string): void {
    this.hashed.delete(cacheLayout(this.dataDir, repo).key);
    this.deps.logger?.warn({ component: 'repo-cache', repo }, notice);
  }

  /**
   * Notes (in the worker's own state folder) whether the checkout a workspace now holds is trusted
   * code (a branch of the repository checked out for the write identity): only such a checkout's
   * setup may be kept for other runs. Cleared before every checkout, set after a trusted one.
   */
  async noteCheckout(workspace: string, trusted: boolean): Promise<void> {
    const layout = layoutByName(this.dataDir, workspace);
    if (!trusted) return rm(join(layout.state, TRUSTED_CHECKOUT_FILE), { force: true });
    await ensureStateFolders(layout);
    await writeFile(join(layout.state, TRUSTED_CHECKOUT_FILE), 'write-branch\n', { mode: 0o600 });
  }

  /** A workspace that must not use a cache (repo-cold, caches off, an unusable cache): its holder loses the bind. */
  async detach(workspace: string): Promise<void> {
    const layout = layoutByName(this.dataDir, workspace);
    await rm(join(layout.state, CONSUMER_STATE_FILE), { force: true });
    await rm(join(layout.state, TRUSTED_CHECKOUT_FILE), { force: true });
    const holder = await liveHolder(layout);
    if (holder?.binds?.some((label) => label.startsWith(LABEL_PREFIX))) await this.deps.host.closeByName(workspace);
  }

  /** Removes a cache whole: its sandbox, its uid's files (as that uid), the store and the setup results. */
  private async evict(layout: CacheLayout, why: string): Promise<void> {
    this.deps.logger?.warn({ component: 'repo-cache', repo: layout.repo, why }, 'a repository cache was evicted');
    await this.deps.host.release({ key: layout.key, network: true });
    this.hashed.delete(layout.key);
    this.deps.onChange?.();
  }

  /** The caches on this host, from their metas, and whether a running workspace borrows from each. */
  async entries(): Promise<Array<CacheEntry & { layout: CacheLayout; meta: CacheMeta }>> {
    const live = await this.deps.host.liveHolders();
    const found: Array<CacheEntry & { layout: CacheLayout; meta: CacheMeta }> = [];
    for (const name of await readdir(join(this.dataDir, 'workspaces')).catch(() => [] as string[])) {
      const meta = await readMeta(join(this.dataDir, 'workspaces', name, 'cache', 'meta.json'));
      if (!meta) continue;
      found.push({
        name,
        repo: meta.repo,
        bytes: cacheBytes(meta),
        usedAt: Date.parse(meta.usedAt) || 0,
        packs: meta.packs.length,
        // The cache's own step binds it too; only other sandboxes borrow from it.
        inUse: live.some((each) => each.name !== name && each.holder.binds?.includes(bindLabel(name))),
        layout: cacheLayoutByName(this.dataDir, name, meta.repo),
        meta,
      });
    }
    return found;
  }

  /** The repositories this host holds a cache of. */
  async repos(): Promise<string[]> {
    return (await this.entries()).filter((entry) => entry.meta.packs.length > 0).map((entry) => entry.repo);
  }

  /** Applies the host's bounds (size, age, packs; least recently used first); answers what went. */
  async sweep(): Promise<string[]> {
    const entries = await this.entries();
    const gone: string[] = [];
    for (const eviction of evictions(entries, this.settings, this.now())) {
      const entry = entries.find((each) => each.name === eviction.name)!;
      await this.serial(entry.repo, () => this.evict(entry.layout, eviction.why));
      gone.push(entry.repo);
    }
    return gone;
  }

  /** A kept setup result of the repository with this key, captured from trusted code: the archive's path, when this host has it. */
  async keptSetup(repo: string, key: string): Promise<string | undefined> {
    if (!this.settings.enabled) return undefined;
    const layout = cacheLayout(this.dataDir, repo);
    const meta = await readMeta(layout.meta);
    const kept = meta?.setups.find((setup) => setup.key === key && setup.from === 'trusted');
    if (!kept) return undefined;
    const path = join(layout.setups, `${key}.tar`);
    return (await stat(path).catch(() => undefined))?.size === kept.bytes ? path : undefined;
  }

  /** Where a setup result of the repository is written (the cache's own folders are made first). */
  async setupPath(repo: string, key: string): Promise<string> {
    const layout = cacheLayout(this.dataDir, repo);
    await ensureCacheFolders(layout);
    return join(layout.setups, `${key}.tar`);
  }

  /**
   * Records a setup result captured from a trusted checkout; only the newest `keepSetups` of a
   * repository stay, and results of no recorded origin (kept before origins were recorded) go.
   */
  async keepSetup(repo: string, key: string, bytes: number): Promise<void> {
    await this.serial(repo, async () => {
      const layout = cacheLayout(this.dataDir, repo);
      const meta = await readMeta(layout.meta);
      if (!meta) {
        await rm(join(layout.setups, `${key}.tar`), { force: true });
        return;
      }
      const setups = [
        ...meta.setups.filter((setup) => setup.key !== key && setup.from === 'trusted'),
        { key, bytes, at: new Date(this.now()).toISOString(), from: 'trusted' as const },
      ];
      const unknown = meta.setups.filter((setup) => setup.key !== key && setup.from !== 'trusted');
      const excess = Math.max(0, setups.length - this.settings.keepSetups);
      for (const setup of [...unknown, ...setups.slice(0, excess)]) await rm(join(layout.setups, `${setup.key}.tar`), { force: true });
      await writeMeta(layout, { ...meta, setups: setups.slice(excess) });
    });
    void this.sweep().catch(() => undefined);
  }

  /** A line in the worker's log about a repository's cache. */
  log(repo: string, message: string): void {
    this.deps.logger?.warn({ component: 'repo-cache', repo }, message);
  }

  /** The cache of a repository (tests and the setup store). */
  layoutOf(repo: string): CacheLayout {
    return cacheLayout(this.dataDir, repo);
  }
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

function tail(ran: { code: number; stderr: string; timedOut?: boolean }): string {
  if (ran.timedOut) return 'it did not finish in time';
  return ran.stderr.trim().split('\n').slice(-3).join(' ').slice(-400) || `exit ${ran.code}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
