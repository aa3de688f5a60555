// Which IP addresses a production webhook may never reach. A webhook destination is chosen by a
// developer, so without these rules Tributary could be used to probe or attack its own network
// (server-side request forgery): the loopback interface, private networks, cloud metadata services.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

interface RangeRule {
  reason: string;
  ipv4?: readonly string[];
  ipv6?: readonly string[];
}

// Checked in order, so a specific rule (metadata) wins over the broader one containing it (link-local).
const RULES: readonly RangeRule[] = [
  { reason: 'unspecified address', ipv4: ['0.0.0.0/8'], ipv6: ['::/128'] },
  { reason: 'loopback address', ipv4: ['127.0.0.0/8'], ipv6: ['::1/128'] },
  {
    reason: 'cloud metadata address',
    // AWS/GCP/Azure/OpenStack IMDS, Azure WireServer, Alibaba metadata, AWS IMDS over IPv6.
    ipv4: ['169.254.169.254/32', '168.63.129.16/32', '100.100.100.200/32'],
    ipv6: ['fd00:ec2::254/128'],
  },
  { reason: 'private address', ipv4: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] },
  { reason: 'carrier-grade NAT address', ipv4: ['100.64.0.0/10'] },
  { reason: 'link-local address', ipv4: ['169.254.0.0/16'], ipv6: ['fe80::/10'] },
  // fec0::/10 is the deprecated site-local range: still private in practice.
  { reason: 'unique-local address', ipv6: ['fc00::/7', 'fec0::/10'] },
  { reason: 'multicast address', ipv4: ['224.0.0.0/4'], ipv6: ['ff00::/8'] },
  {
    reason: 'reserved address',
    ipv4: [
      '192.0.0.0/24', // IETF protocol assignments
      '192.0.2.0/24', // documentation
      '192.88.99.0/24', // 6to4 relay anycast
      '198.18.0.0/15', // benchmarking
      '198.51.100.0/24', // documentation
      '203.0.113.0/24', // documentation
      '240.0.0.0/4', // reserved, including broadcast
    ],
    ipv6: [
      '::/96', // IPv4-compatible (deprecated)
      '100::/64', // discard-only
      '2001::/23', // IETF protocol assignments, including Teredo tunnels
      '2001:db8::/32', // documentation
      '3fff::/20', // documentation
      '64:ff9b:1::/48', // local-use NAT64
    ],
  },
];

function addRanges(list: BlockList, ranges: readonly string[] | undefined, family: 'ipv4' | 'ipv6'): void {
  for (const range of ranges ?? []) {
    const [network, prefix] = range.split('/');
    list.addSubnet(network!, Number(prefix), family);
  }
}

const COMPILED = RULES.map((rule) => {
  const list = new BlockList();
  addRanges(list, rule.ipv4, 'ipv4');
  addRanges(list, rule.ipv6, 'ipv6');
  return { reason: rule.reason, list };
});

/** The eight 16-bit groups of an IPv6 address (zone id dropped), or null when it is not IPv6. */
export function ipv6Groups(address: string): number[] | null {
  const bare = address.split('%')[0] ?? '';
  if (!isIPv6(bare)) return null;
  let text = bare;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const zeros = halves.length > 1 ? new Array<string>(8 - head.length - rest.length).fill('0') : [];
  return [...head, ...zeros, ...rest].map((group) => Number.parseInt(group, 16));
}

const ipv4FromGroups = (high: number, low: number): string =>
  [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * The IPv4 address carried inside an IPv6 one by the forms that route to IPv4 hosts:
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4 (2002:aabb:ccdd::).
 */
export function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = g;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  if (upperZero && g4 === 0 && g5 === 0xffff) return ipv4FromGroups(g6, g7);
  if (upperZero && g4 === 0xffff && g5 === 0) return ipv4FromGroups(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return ipv4FromGroups(g6, g7);
  }
  if (g0 === 0x2002) return ipv4FromGroups(g1 ?? 0, g2 ?? 0);
  return null;
}

function matchRule(address: string, family: 'ipv4' | 'ipv6'): string | null {
  for (const { reason, list } of COMPILED) {
    if (list.check(address, family)) return reason;
  }
  return null;
}

/**
 * Why a webhook may not be sent to `address`, or null when it is a public unicast address.
 * Anything that is not an IP address at all is refused too.
 */
export function blockedAddressReason(address: string): string | null {
  if (isIPv4(address)) return matchRule(address, 'ipv4');
  const bare = address.split('%')[0] ?? '';
  if (!isIPv6(bare)) return 'not an IP address';
  const inner = embeddedIpv4(bare);
  if (inner !== null) {
    const innerReason = matchRule(inner, 'ipv4');
    if (innerReason !== null) return `${innerReason} (IPv4 ${inner} embedded in IPv6)`;
  }
  return matchRule(bare, 'ipv6');
}
