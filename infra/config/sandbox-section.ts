import { z } from 'zod';
import { DEFAULT_LIMITS } from '../../activities/sandbox/limits';
import { HOST_PATTERN } from '../../activities/sandbox/network/egress-policy';

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
