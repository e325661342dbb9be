import { BlockList, isIP } from 'node:net';

// Where a tenant's webhook URL may lead. A URL is text anyone in an organization's administration
// types; the gateway runs inside someone's network. Every attempt checks the address it connects to.

/** Never reached, whatever the setting: cloud metadata services, and addresses no host answers on. */
const neverReached = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['169.254.169.254', 32], // AWS, GCP, Azure, OpenStack metadata
  ['169.254.170.2', 32], // AWS ECS task metadata
  ['100.100.100.200', 32], // Alibaba Cloud metadata
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  neverReached.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['fd00:ec2::254', 128], // AWS metadata over IPv6
  ['64:ff9b::', 96], // NAT64: an IPv4 address inside
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: an IPv4 address inside
  ['ff00::', 8], // multicast
] as const)
  neverReached.addSubnet(network, prefix, 'ipv6');

/** Reached only with WEBHOOK_ALLOW_PRIVATE: loopback, private networks, carrier-grade NAT, link-local, unique-local. */
const privateNetworks = new BlockList();
for (const [network, prefix] of [
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  privateNetworks.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
] as const)
  privateNetworks.addSubnet(network, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** An IPv4 address inside IPv6 (`::ffff:10.0.0.1`, `::ffff:a00:1`, or the deprecated `::10.0.0.1`), as IPv4. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^::(?:ffff(?::0{1,4})?:)?(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return undefined;
  if (match[1]) return match[1];
  const [high, low] = [Number.parseInt(match[2], 16), Number.parseInt(match[3], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** An address as the block lists check it (brackets and zone dropped, IPv4 out of IPv6); undefined for no IP address. */
function normalized(address: string): [ip: string, family: 'ipv4' | 'ipv6'] | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return [bare, 'ipv4'];
  if (version !== 6) return undefined;
  const v4 = embeddedIpv4(bare.toLowerCase());
  return v4 && isIP(v4) === 4 ? [v4, 'ipv4'] : [bare, 'ipv6'];
}

/** Why the gateway may not connect to this IP address; undefined when it may. */
export function addressProblem(address: string, allowPrivate: boolean): string | undefined {
  const ip = normalized(address);
  if (!ip) return `${address} is not an IP address`;
  if (neverReached.check(...ip)) return `${address} is a reserved or metadata address`;
  if (!allowPrivate && privateNetworks.check(...ip)) return `${address} is a private, loopback or link-local address`;
  return undefined;
}

const isLoopbackName = (hostname: string) => hostname === 'localhost' || hostname.endsWith('.localhost');

function isLoopback(hostname: string): boolean {
  const ip = normalized(hostname);
  return ip ? loopback.check(...ip) : isLoopbackName(hostname);
}

/** Longest endpoint URL. */
export const MAX_URL_LENGTH = 2048;

/**
 * Why a webhook URL is refused; undefined when it is one. https only (http only to a loopback host
 * with `allowPrivate`), no credentials, no fragment; a literal address is checked as a resolved one
 * is. A host name is checked when it is resolved, at every attempt.
 */
export function urlProblem(text: string, allowPrivate: boolean): string | undefined {
  if (text.length > MAX_URL_LENGTH) return `url is longer than ${MAX_URL_LENGTH} characters`;
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url?.hostname) return 'url is not an absolute URL';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivate && isLoopback(url.hostname)))
    return allowPrivate ? 'url must be https:// (http:// only to a loopback host)' : 'url must be https://';
  if (url.username || url.password) return 'url must not hold credentials (put a token in its path or query instead)';
  if (url.hash) return 'url must not have a fragment';
  if (!allowPrivate && isLoopbackName(url.hostname)) return `url: ${url.hostname} is a loopback host`;
  const problem = normalized(url.hostname) && addressProblem(url.hostname, allowPrivate);
  return problem ? `url: ${problem}` : undefined;
}
