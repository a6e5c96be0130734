import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Where a sandbox's network door may connect. Two independent checks, both required:
 * the destination's name must match the workspace's allowlist, and every address it is
 * finally connected to must be a public internet address: never loopback, private,
 * carrier-grade NAT, link-local (cloud metadata at 169.254.169.254), multicast or
 * reserved space, and never one of this host's own addresses or the subnets its
 * interfaces sit on.
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

const V4_BLOCKED: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_BLOCKED: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b::', 96, 'NAT64'],
  ['64:ff9b:1::', 48, 'NAT64'],
  ['100::', 64, 'discard'],
  ['2002::', 16, '6to4'],
  ['fc00::', 7, 'private (unique local)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

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
  const v4 = family === 4 ? address : embeddedV4(address);
  if (family === 6 && v4 === undefined) {
    const lower = address.toLowerCase();
    for (const [network, prefix, label] of V6_BLOCKED) {
      const list = new BlockList();
      list.addSubnet(network, prefix, 'ipv6');
      if (list.check(lower, 'ipv6')) return `${address} is a ${label} address`;
    }
  }
  if (v4 !== undefined) {
    for (const [network, prefix, label] of V4_BLOCKED) {
      const list = new BlockList();
      list.addSubnet(network, prefix, 'ipv4');
      if (list.check(v4, 'ipv4')) return `${address} is a ${label} address`;
    }
  }
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
