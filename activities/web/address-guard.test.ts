import { classifyAddress, isPublicAddress, parseIPv6 } from './address-guard';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['169.254.10.10', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['[::ffff:10.0.0.1]', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    // IPv4-translated (SIIT) forms are refused whatever they embed.
    ['::ffff:0:127.0.0.1', 'reserved'],
    ['::ffff:0:7f00:1', 'reserved'],
    ['::ffff:0:8.8.8.8', 'reserved'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b:1::8.8.8.8', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    // ISATAP interface ids carry an IPv4 address under any prefix.
    ['2606:4700::5efe:127.0.0.1', 'loopback'],
    ['2606:4700::200:5efe:10.1.2.3', 'private'],
    ['fe80::1%eth0', 'link-local'],
    ['not-an-ip', 'reserved'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it('parses IPv6 forms into 16 bytes and rejects malformed ones', () => {
    expect(parseIPv6('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toHaveLength(16);
    expect(parseIPv6('1::2::3')).toBeUndefined();
    expect(parseIPv6('1:2:3')).toBeUndefined();
    expect(parseIPv6('12345::')).toBeUndefined();
  });
});
