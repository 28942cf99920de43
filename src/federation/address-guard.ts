/**
 * The SSRF guard's address rules: which IP addresses a remote fetch may connect to. Everything that is not
 * globally routable unicast is refused unless the operator allowed its range (FEDERATION_ALLOW_PRIVATE).
 */
import { BlockList, isIP } from 'node:net';

export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'unique_local' | 'multicast' | 'unspecified' | 'reserved';

export interface AddressPolicy {
  /** CIDR ranges (IPv4 or IPv6) that may be reached even though they are not public. */
  readonly allow: readonly string[];
}

type Rule = readonly [cidr: string, cls: Exclude<AddressClass, 'public'>];

// Order matters: the first matching rule names the class (0.0.0.0 is 'unspecified' before 0/8 is 'reserved').
const V4_RULES: readonly Rule[] = [
  ['0.0.0.0/32', 'unspecified'],
  ['0.0.0.0/8', 'reserved'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'private'], // carrier-grade NAT: someone's internal network
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'], // includes cloud metadata endpoints
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // includes 255.255.255.255
];

const V6_RULES: readonly Rule[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'reserved'], // deprecated IPv4-compatible addresses
  ['64:ff9b::/96', 'reserved'], // NAT64 could reach any IPv4 address, private ones included
  ['64:ff9b:1::/48', 'reserved'],
  ['100::/64', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['fc00::/7', 'unique_local'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'reserved'], // deprecated site-local
  ['ff00::/8', 'multicast'],
];

function compile(rules: readonly Rule[], type: 'ipv4' | 'ipv6'): readonly (readonly [BlockList, Rule[1]])[] {
  return rules.map(([cidr, cls]) => {
    const list = new BlockList();
    const [net, bits] = cidr.split('/') as [string, string];
    list.addSubnet(net, Number(bits), type);
    return [list, cls] as const;
  });
}

const V4 = compile(V4_RULES, 'ipv4');
const V6 = compile(V6_RULES, 'ipv6');
/** Global unicast IPv6 lives in 2000::/3; anything else not named above is unassigned, so not reachable for us. */
const V6_GLOBAL = (() => {
  const list = new BlockList();
  list.addSubnet('2000::', 3, 'ipv6');
  return list;
})();

/** The embedded IPv4 address of an IPv4-mapped IPv6 address (::ffff:a.b.c.d, in either spelling), if it is one. */
export function unwrapMapped(ip: string): string | undefined {
  if (isIP(ip) !== 6) return undefined;
  // The WHATWG serialiser canonicalises any spelling to lowercase, compressed, all-hex groups.
  let canonical: string;
  try {
    canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const m = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!m) return undefined;
  const hi = parseInt(m[1]!, 16);
  const lo = parseInt(m[2]!, 16);
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

export function classifyAddress(ip: string): AddressClass {
  const mapped = unwrapMapped(ip);
  if (mapped) return classifyAddress(mapped);
  const family = isIP(ip);
  if (family === 4) return V4.find(([list]) => list.check(ip, 'ipv4'))?.[1] ?? 'public';
  if (family === 6) {
    const cls = V6.find(([list]) => list.check(ip, 'ipv6'))?.[1];
    if (cls) return cls;
    return V6_GLOBAL.check(ip, 'ipv6') ? 'public' : 'reserved';
  }
  // Not an IP address at all (or one with a zone id): refuse rather than guess.
  return 'reserved';
}

const allowLists = new WeakMap<AddressPolicy, BlockList>();

function allowList(policy: AddressPolicy): BlockList {
  let list = allowLists.get(policy);
  if (!list) {
    list = new BlockList();
    for (const cidr of policy.allow) {
      const [net, bits] = cidr.split('/') as [string, string | undefined];
      const family = isIP(net);
      if (family === 0) throw new Error(`not a CIDR range: ${cidr}`);
      list.addSubnet(net, bits === undefined ? (family === 4 ? 32 : 128) : Number(bits), family === 4 ? 'ipv4' : 'ipv6');
    }
    allowLists.set(policy, list);
  }
  return list;
}

/** Public, or inside one of the policy's allowed ranges (an IPv4-mapped address counts as its IPv4 address). */
export function isAllowedAddress(ip: string, policy: AddressPolicy): boolean {
  if (classifyAddress(ip) === 'public') return true;
  if (policy.allow.length === 0) return false;
  const list = allowList(policy);
  const mapped = unwrapMapped(ip);
  if (mapped && list.check(mapped, 'ipv4')) return true;
  const family = isIP(ip);
  return family !== 0 && list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
