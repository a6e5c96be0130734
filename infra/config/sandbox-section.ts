import { z } from 'zod';
import { DEFAULT_LIMITS } from '../../activities/sandbox/limits';
import { HOST_PATTERN } from '../../activities/sandbox/network/egress-policy';
import { DEFAULT_REPO_CACHE } from '../../activities/sandbox/repo-cache/repo-cache';

const Destinations = z
  .array(z.string().regex(HOST_PATTERN, 'a host pattern: *, example.com, *.example.com or an IPv4 address'))
  .describe('Destinations a network-enabled sandbox may reach through its door.');

/**
 * How model-written commands are confined (see docs/security.md). `bwrap` is the default and
 * fails closed: without bubblewrap, shell agents are refused. `unisolated-unsafe` runs
 * commands on the host with the worker's rights, for local development only; it is logged
 * loudly at start and reported by /healthz and `switchboard doctor`.
 */
export const SandboxConfigSchema = z
  .object({
    isolation: z.enum(['bwrap', 'unisolated-unsafe']).default('bwrap'),
    egress: z
      .object({
        /** Every network-enabled workspace, unless its agent or machine class has a list: `*` is any public host. */
        allow: Destinations.default(['*']),
        /** Per machine class, e.g. `repo-cold: [github.com, registry.npmjs.org]`. */
        machines: z.partialRecord(z.enum(['repo-resident', 'repo-cold']), Destinations).default({}),
        /** Per agent id; wins over the machine class. */
        agents: z.record(z.string().min(1), Destinations).default({}),
      })
      .strict()
      .prefault({}),
    /** Host paths under the system folders the sandbox sees (/usr, /etc …) that it must not: files with secrets. */
    hiddenPaths: z.array(z.string().startsWith('/', 'an absolute path')).default([]),
    /** What one workspace may use of the host (docs/security.md lists each bound and how it is enforced). */
    limits: z
      .object({
        processes: z.number().int().min(16).max(1_000_000).default(DEFAULT_LIMITS.processes),
        memoryMiB: z.number().int().min(64).default(DEFAULT_LIMITS.memoryMiB),
        tmpMiB: z.number().int().min(1).default(DEFAULT_LIMITS.tmpMiB),
        shmMiB: z.number().int().min(1).default(DEFAULT_LIMITS.shmMiB),
        /** 0: the workspace's files live in a plain folder with no total bound. */
        diskMiB: z.number().int().min(0).default(DEFAULT_LIMITS.diskMiB),
        cpuSeconds: z.number().int().min(1).default(DEFAULT_LIMITS.cpuSeconds),
        fileMiB: z.number().int().min(1).default(DEFAULT_LIMITS.fileMiB),
        openFiles: z.number().int().min(64).default(DEFAULT_LIMITS.openFiles),
      })
      .strict()
      .prefault({}),
    /**
     * Warm repositories (docs/sandbox.md#warm-repositories): each worker host keeps an object cache
     * per repository its resident work used, and the setup results per repository; bounded per host.
     */
    repoCache: z
      .object({
        enabled: z.boolean().default(DEFAULT_REPO_CACHE.enabled),
        /** Every cache of the host together (packs and setup results), in MiB; the least recently used go first. */
        maxMiB: z.number().int().min(64).default(DEFAULT_REPO_CACHE.maxMiB),
        /** A cache unused for longer goes. */
        maxAgeDays: z.number().int().min(1).default(DEFAULT_REPO_CACHE.maxAgeDays),
        /** A cache past this many packs (one per refresh that brought something) is built again at its next use. */
        maxPacks: z.number().int().min(2).max(1_000).default(DEFAULT_REPO_CACHE.maxPacks),
        /** A cache refreshed less than this long ago is used as it is (the checkout's own fetch brings the rest). */
        refreshSeconds: z.number().int().min(0).default(DEFAULT_REPO_CACHE.refreshSeconds),
        /** The largest setup result kept, in MiB. */
        setupMiB: z.number().int().min(1).default(DEFAULT_REPO_CACHE.setupMiB),
        /** Setup results kept per repository (the newest). */
        keepSetups: z.number().int().min(0).max(100).default(DEFAULT_REPO_CACHE.keepSetups),
      })
      .strict()
      .prefault({}),
    /**
     * Host uids workspaces run as, one each: a range no account, subordinate-id range or other
     * deployment on the host uses. Unset: 100 000 uids at an offset derived from the data dir
     * (sandbox-uids.ts defaultUidRange), so each deployment has its own.
     */
    uids: z
      .object({
        first: z.number().int().min(65_536).max(4_000_000_000),
        count: z.number().int().min(16).max(10_000_000).default(100_000),
      })
      .strict()
      .optional(),
  })
  .strict();

export type SandboxConfig = z.infer<typeof SandboxConfigSchema>;
