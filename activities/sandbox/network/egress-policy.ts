import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { classifyAddress, type AddressClass } from '../../web/address-guard';

/**
 * Where a sandbox's network door may connect. Two independent checks, both required:
 * the destination's name must match the workspace's allowlist, and every address it is
 * finally connected to must be a public internet address (the worker's address guard:
 * never loopback, private, carrier-grade NAT, link-local, cloud metadata, multicast,
 * documentation or reserved space, nor their IPv6 forms), and never one of this host's
 * own addresses or on the subnets its interfaces sit on. Unlike web_fetch, no allowlist
 * entry lifts the address check: a sandbox never reaches a private address.
 */

/** A destination pattern: `*` (any public host), `example.com`, `*.example.com` (its subdomains) or an IP literal. */
export const HOST_PATTERN = /^(\*|(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\d{1,3}(\.\d{1,3}){3})$/i;

/** Whether `host` (a name or IP literal from a CONNECT line or URL) matches one of the patterns. */
export function hostAllowed(host: string, patterns: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((raw) => {
    const pattern = raw.toLowerCase();
    if (pattern === '*') return true;
    if (pattern.startsWith('*.')) return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
    return name === pattern;
  });
}

/** How each class of the worker's address guard reads in a refusal. */
const LABELS: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'loopback',
  private: 'private',
  'link-local': 'link-local',
  metadata: 'cloud metadata',
  cgnat: 'carrier-grade NAT',
  'unique-local': 'private (unique local)',
  unspecified: 'unspecified',
  multicast: 'multicast',
  reserved: 'reserved (not on the internet)',
};

/** An IPv4 address inside an IPv6 one (`::ffff:a.b.c.d` or `::a.b.c.d`), or undefined. */
function embeddedV4(address: string): string | undefined {
  const match = /^::(ffff:)?(\d{1,3}(\.\d{1,3}){3})$/i.exec(address);
  if (match) return match[2];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

interface HostNetworks {
  addresses: Set<string>;
  subnets: Array<{ cidr: string; family: 'ipv4' | 'ipv6' }>;
}

/** This host's own addresses and the subnets of its interfaces, read fresh (interfaces change). */
function hostNetworks(): HostNetworks {
  const addresses = new Set<string>();
  const subnets: HostNetworks['subnets'] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      addresses.add(entry.address.toLowerCase());
      if (entry.cidr) subnets.push({ cidr: entry.cidr, family: entry.family === 'IPv4' ? 'ipv4' : 'ipv6' });
    }
  }
  return { addresses, subnets };
}

/**
 * Why the door must not connect to `address`, or undefined when it is a public internet
 * address that is not this host's. `host` (what the command asked for) only colours the text.
 */
export function blockedReason(address: string, networks: HostNetworks = hostNetworks()): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  // The special ranges are the same ones web_fetch refuses: one table for every outbound decision of the worker.
  const kind = classifyAddress(address);
  if (kind !== 'public') return `${address} is a ${LABELS[kind]} address`;
  const v4 = family === 4 ? address : embeddedV4(address);
  const plain = (v4 ?? address).toLowerCase();
  if (networks.addresses.has(plain)) return `${address} is an address of the worker's host`;
  for (const subnet of networks.subnets) {
    const [network, prefix] = subnet.cidr.split('/');
    const list = new BlockList();
    list.addSubnet(network, Number(prefix), subnet.family);
    const probe = v4 !== undefined ? (subnet.family === 'ipv4' ? v4 : undefined) : subnet.family === 'ipv6' ? plain : undefined;
    if (probe !== undefined && list.check(probe, subnet.family)) return `${address} is on a network of the worker's host (${subnet.cidr})`;
  }
  return undefined;
}

export { hostNetworks };
