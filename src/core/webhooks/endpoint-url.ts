import { BlockList, isIP } from 'node:net';
import { ServiceError } from '../../shared/errors';
import { embeddedIpv4 } from './embedded-ipv4';

// Where a program's events may be sent. Production endpoints are https:// on public addresses;
// plain http:// and loopback, private, link-local or otherwise internal addresses only when the
// node runs with --webhooks-allow-private (tests, on-premises receivers). The same rule is applied
// again to every address a host name resolves to when a delivery connects (see http-sender.ts),
// so a public name that points inside the network is refused too. An IPv6 address carrying an
// IPv4 one (NAT64, 6to4, Teredo, mapped or compatible forms) is judged by that IPv4 address.

const internal = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  internal.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  // NAT64 for local use (RFC 8215): where the IPv4 address sits depends on the operator's prefix
  // length, so the whole block is internal (the well-known 64:ff9b::/96 is judged by its IPv4).
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  internal.addSubnet(network, prefix, 'ipv6');
}

/**
 * True for loopback, private, link-local, carrier-grade NAT, multicast and unspecified addresses,
 * and for IPv6 addresses that carry such an IPv4 address.
 */
export function isInternalAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return internal.check(bare, 'ipv4');
  if (family === 6) return internal.check(bare, 'ipv6') || embeddedIpv4(bare).some((v4) => internal.check(v4, 'ipv4'));
  return false;
}

const MAX_URL_LENGTH = 2000;

/** The URL as stored, or a 400 saying why it cannot receive events from this node. */
export function checkEndpointUrl(value: string, allowPrivate: boolean): string {
  const refuse = (why: string) => new ServiceError('webhook_url_not_allowed', why, 'url');
  const text = value.trim();
  if (text.length > MAX_URL_LENGTH) throw refuse(`The URL is longer than ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('The URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('Webhook URLs start with https://.');
  if (url.username !== '' || url.password !== '') throw refuse('The URL may not hold a user name or password.');
  if (url.hash !== '') throw refuse('The URL may not have a #fragment.');
  // Port 0 is no port a receiver can listen on: every delivery would fail to connect.
  if (url.port === '0') throw refuse('The URL names port 0, which no receiver listens on.');
  if (allowPrivate) return url.toString();
  if (url.protocol !== 'https:') throw refuse('Webhook URLs must use https:// (plain http:// only on nodes started with --webhooks-allow-private).');
  const host = url.hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || isInternalAddress(host)) {
    throw refuse('Webhook URLs must point to a public address (loopback and private addresses only on nodes started with --webhooks-allow-private).');
  }
  return url.toString();
}
