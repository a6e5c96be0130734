import { isIP } from 'node:net';

/**
 * Which addresses `web_fetch` may connect to. The worker's own HTTP client sits next to
 * Temporal, the Web UI, our HTTP server and the cloud's metadata service, so anything that
 * is not a public unicast address is refused, whatever name resolved to it.
 */
export type AddressClass =
  'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'cgnat' | 'unique-local' | 'unspecified' | 'multicast' | 'reserved';

interface Range {
  /** Network address bytes (4 for IPv4, 16 for IPv6). */
  bytes: number[];
  prefix: number;
  kind: Exclude<AddressClass, 'public'>;
}

const V4: Array<[string, number, Range['kind']]> = [
  ['169.254.169.254', 32, 'metadata'],
  ['100.100.100.200', 32, 'metadata'],
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6: Array<[string, number, Range['kind']]> = [
  ['fd00:ec2::254', 128, 'metadata'],
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  // IPv4-compatible (deprecated) and the discard prefix: nothing legitimate lives there.
  ['::', 96, 'reserved'],
  ['100::', 64, 'reserved'],
  ['64:ff9b:1::', 48, 'reserved'],
  ['2001::', 32, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved'],
  ['ff00::', 8, 'multicast'],
];

const V4_RANGES: Range[] = V4.map(([address, prefix, kind]) => ({ bytes: parseIPv4(address)!, prefix, kind }));
const V6_RANGES: Range[] = V6.map(([address, prefix, kind]) => ({ bytes: parseIPv6(address)!, prefix, kind }));

/** The class of an IP literal; anything that does not parse is `reserved` (refused). */
export function classifyAddress(address: string): AddressClass {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return classifyV4(parseIPv4(bare)!);
  if (family !== 6) return 'reserved';
  const bytes = parseIPv6(bare);
  if (!bytes) return 'reserved';
  // An IPv4 address in IPv6 clothing is judged as the IPv4 address it reaches:
  // mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4 (2002:AABB:CCDD::) and an ISATAP
  // interface id (…:0:5efe:a.b.c.d, …:200:5efe:a.b.c.d) under any prefix.
  if (startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) return classifyV4(bytes.slice(12));
  // The IPv4-translated form (::ffff:0:a.b.c.d) belongs inside a stateless translator, never on
  // a host's connect: refused whatever it embeds, like the IPv4-compatible ::a.b.c.d below.
  if (startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0])) return 'reserved';
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return classifyV4(bytes.slice(12));
  if (startsWith(bytes, [0x20, 0x02])) return worstOf(classifyV4(bytes.slice(2, 6)), match(bytes, V6_RANGES));
  const isatap = (bytes[8] === 0 || bytes[8] === 0x02) && bytes[9] === 0 && bytes[10] === 0x5e && bytes[11] === 0xfe;
  if (isatap) return worstOf(classifyV4(bytes.slice(12)), match(bytes, V6_RANGES));
  return match(bytes, V6_RANGES);
}

/** True when `web_fetch` may connect to this address without an allowlist entry. */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}

/** The refused class of two, when either is refused: an address is public only when every reading of it is. */
function worstOf(first: AddressClass, second: AddressClass): AddressClass {
  return first !== 'public' ? first : second;
}

function classifyV4(bytes: number[]): AddressClass {
  return match(bytes, V4_RANGES);
}

function match(bytes: number[], ranges: Range[]): AddressClass {
  for (const range of ranges) if (range.bytes.length === bytes.length && inPrefix(bytes, range)) return range.kind;
  return 'public';
}

function inPrefix(bytes: number[], range: Range): boolean {
  let bits = range.prefix;
  for (let index = 0; bits > 0; index += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[index] ?? 0) & mask) !== ((range.bytes[index] ?? 0) & mask)) return false;
  }
  return true;
}

function startsWith(bytes: number[], prefix: number[]): boolean {
  return prefix.every((value, index) => bytes[index] === value);
}

function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.map(Number);
}

/** 16 bytes of an IPv6 literal (with `::` and a trailing dotted quad), or undefined. */
export function parseIPv6(text: string): number[] | undefined {
  let head = text;
  let tail4: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]);
    if (!v4) return undefined;
    tail4 = v4;
    head = `${text.slice(0, dotted.index)}:0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - left.length - right.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const all = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  if (all.length !== 8 || !all.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  const bytes = all.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
  if (tail4.length) bytes.splice(12, 4, ...tail4);
  return bytes;
}
