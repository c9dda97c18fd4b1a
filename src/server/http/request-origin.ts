import type { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** A host name, IPv4 or [IPv6] address, and an optional port: what a Host header means to hold. */
const HOST = /^(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

/** The last Host found usable: nearly every request of a node carries the same one. */
let lastUsableHost: string | null = null;

/**
 * scheme://host[:port] the client used to reach this node, for the absolute links of a reply. A Host
 * that is missing, empty or not a host[:port] (HTTP/1.0 sends none; anyone can send `a<b` or a port
 * over 65535) is not used: the links go to the address the request reached instead, which the
 * client could connect to, so they stay absolute and usable (a relative link would break clients
 * that expect the documented absolute URLs).
 */
export function requestOrigin(request: FastifyRequest): string {
  const host = request.host;
  return `${schemeOf(request)}://${usableHost(host) ? host : reachedAddress(request)}`;
}

/**
 * Where the caller reached the node, for links only the caller follows (list pages, flags): its
 * origin, plus the path of --public-url when the caller came by that origin. A proxy that serves
 * the node under a path (`https://shop.example/pc/…`, the prefix stripped) forwards its host, not
 * the prefix: `next_page_url` without `/pc` was the proxy's 404.
 */
export function callerBase(request: FastifyRequest): string {
  const origin = requestOrigin(request);
  const publicUrl = request.server.publicUrl;
  // The origin part is compared without case (a Host header may be written in capitals).
  if (!publicUrl || publicUrl[origin.length] !== '/' || publicUrl.slice(0, origin.length).toLowerCase() !== origin.toLowerCase()) return origin;
  return origin + publicUrl.slice(origin.length);
}

/**
 * http or https, nothing else: behind a trusted proxy (--trust-proxy) `request.protocol` is the
 * X-Forwarded-Proto a client may have written, and emailed links (a reset token) are built on it.
 */
function schemeOf(request: FastifyRequest): 'http' | 'https' {
  return request.protocol === 'https' ? 'https' : 'http';
}

function usableHost(host: unknown): host is string {
  if (typeof host !== 'string') return false;
  if (host === lastUsableHost) return true;
  const match = HOST.exec(host);
  if (!match || Number(match[1] ?? 0) > 65_535) return false;
  // The pattern lets through what URL still refuses (1.2.3.999, [1:2]): URL has the last word.
  if (!URL.canParse(`http://${host}`)) return false;
  lastUsableHost = host;
  return true;
}

/** The node's own address on this connection (no IPv6 zone: URLs have no place for one). */
/** scheme://address:port this request reached on the node itself, whatever its Host header says. */
export function reachedOrigin(request: FastifyRequest): string {
  return `${schemeOf(request)}://${reachedAddress(request)}`;
}

function reachedAddress(request: FastifyRequest): string {
  const socket = request.raw.socket as Socket | undefined;
  const localAddress = socket?.localAddress;
  const localPort = socket?.localPort;
  if (!localAddress) return 'localhost';
  const address = localAddress.includes(':') ? `[${localAddress.split('%')[0]}]` : localAddress;
  return localPort ? `${address}:${localPort}` : address;
}
