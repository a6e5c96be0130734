import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { blockedReason, hostAllowed } from './egress-policy';
import { type OwnedRefs } from './push-rules';

/**
 * What a workspace's door lets its commands do right now. Set by each bash call from the
 * run's profile (last call wins: the calls of one run share it) and withdrawn when the
 * run's workspace is closed. No grant: the door refuses everything.
 */
export interface DoorGrant {
  /** The machine class allows the internet at all. */
  network: boolean;
  /** Destination patterns (see HOST_PATTERN) for this agent or machine class. */
  allow: readonly string[];
  /** The run's GitHub identity: `read` fetches, `write` may also push to `repo`. */
  identity: 'none' | 'read' | 'write';
  /** The repository the run is bound to (`owner/name`); the only one a write identity pushes to. */
  repo?: string;
  /** The branches of `repo` the run owns or was admitted to (push-rules.ts); none: every push is refused. */
  refs?: OwnedRefs;
}

/** The egress settings of the `sandbox` config section. */
export interface EgressSettings {
  /** Destinations of every network-enabled workspace, unless its agent or machine class says otherwise. */
  allow: readonly string[];
  /** Per machine class (`repo-resident`, `repo-cold`). */
  machines?: Readonly<Record<string, readonly string[]>>;
  /** Per agent id; wins over the machine class. */
  agents?: Readonly<Record<string, readonly string[]>>;
}

export const DEFAULT_EGRESS: EgressSettings = { allow: ['*'] };

/** The destinations a run may reach: its agent's list, else its machine class's, else the default. */
export function egressAllowFor(settings: EgressSettings, agent?: string, machine?: string): readonly string[] {
  if (agent && settings.agents?.[agent]) return settings.agents[agent];
  if (machine && settings.machines?.[machine]) return settings.machines[machine];
  return settings.allow;
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export type Destination = { address: string } | { refused: string };

/**
 * Decides one connection: the grant allows the network and the name, then the name is
 * resolved here (the sandbox has no resolver) and the first address that is public and
 * not this host's is the one connected to, so a name cannot be re-resolved elsewhere later.
 */
export async function resolveDestination(
  grant: DoorGrant | undefined,
  host: string,
  port: number,
  resolver: Resolver,
): Promise<Destination> {
  if (!grant) return { refused: 'no run is using this workspace right now, so its network door is shut' };
  if (!grant.network) return { refused: "this run's machine class has no network" };
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return { refused: `port ${port} is not a valid port` };
  if (!host || !hostAllowed(host, grant.allow))
    return { refused: `${host || 'an empty host'} is not among the destinations this run may reach (${grant.allow.join(', ') || 'none'})` };
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolver(host);
  } catch (error) {
    return { refused: `${host} does not resolve (${(error as { code?: string }).code ?? 'lookup failed'})` };
  }
  let firstReason: string | undefined;
  for (const address of addresses) {
    const reason = blockedReason(address);
    if (!reason) return { address };
    firstReason ??= reason;
  }
  return { refused: `${host} is not on the public internet: ${firstReason ?? 'it has no address'}` };
}
