import { isIP } from 'node:net';

/**
 * --trust-proxy (PUNCHCARD_TRUST_PROXY): which reverse proxies' X-Forwarded-For (and -Proto,
 * -Host) the node believes, so `request.ip` — what every per-client rate limit counts by — is the
 * client's address, not the proxy's. Off by default: the headers are anyone's to write.
 * - addresses: the proxies' addresses or CIDR ranges (and proxy-addr's `loopback`, `linklocal`,
 *   `uniquelocal`); the client is the nearest address in X-Forwarded-For that is not one of them;
 * - hops: how many proxies stand in front of the node, whoever they are (only where the node is
 *   reachable through them alone: a direct caller's X-Forwarded-For would be believed).
 */
export type TrustProxy = { addresses: string[] } | { hops: number };

/** What Fastify's `trustProxy` takes for a setting. */
export type FastifyTrustProxy = string[] | ((address: string, hop: number) => boolean);

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 32;

/** Reads the option's text: a hop count (1–32), or addresses and CIDR ranges separated by commas. */
export function parseTrustProxy(text: string): TrustProxy {
  const value = text.trim();
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops < 1 || hops > MAX_HOPS) throw new Error(`a hop count is a whole number from 1 to ${MAX_HOPS}, not ${JSON.stringify(text)}.`);
    return { hops };
  }
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry === '')) throw new Error(`list the proxies' addresses or CIDR ranges separated by commas (e.g. 10.0.0.5,192.168.1.0/24), or give a hop count; not ${JSON.stringify(text)}.`);
  for (const entry of entries) checkEntry(entry);
  return { addresses: entries.map((entry) => entry.toLowerCase()) };
}

function checkEntry(entry: string): void {
  if (NAMED_RANGES.has(entry.toLowerCase())) return;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = address.includes('%') ? 0 : isIP(address);
  if (family === 0) throw new Error(`${JSON.stringify(entry)} is not an IP address or CIDR range (e.g. 10.0.0.5, 192.168.1.0/24, fd00::/8, loopback).`);
  if (slash < 0) return;
  const prefix = entry.slice(slash + 1);
  const bits = family === 4 ? 32 : 128;
  // Not /0: trusting every address is a forged X-Forwarded-For believed from anyone.
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) < 1 || Number(prefix) > bits) throw new Error(`${JSON.stringify(entry)}: the prefix length after "/" is a whole number from 1 to ${bits}.`);
}

/**
 * The setting as Fastify's `trustProxy`. A hop count is a function: Fastify takes a bare number as
 * "trust nobody" (a number cannot tell a proxy from a direct caller), which would silently ignore it.
 */
export function fastifyTrustProxy(setting: TrustProxy | null | undefined): FastifyTrustProxy | undefined {
  if (!setting) return undefined;
  if ('hops' in setting) {
    const { hops } = setting;
    return (_address, hop) => hop < hops;
  }
  return setting.addresses;
}
