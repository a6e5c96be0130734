import { z } from 'zod';
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
  })
  .strict();

export type SandboxConfig = z.infer<typeof SandboxConfigSchema>;
