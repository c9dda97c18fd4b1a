import type { Server } from 'node:http';
import { isIPv6 } from 'node:net';

/**
 * A client as per-client limits count it: an IPv4 address, or the /64 block of an IPv6 one — one
 * subscriber's network, whose 2^64 addresses an attacker otherwise had as so many "clients"
 * (every per-client rate limit was sprayed around from one /64).
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.split('%', 1)[0]!.toLowerCase().split('::');
  const front = head === '' ? [] : head.split(':');
  const back = ip.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}

/**
 * At most `max` open connections per client (clientKey) on this server: one client held every file
 * handle the node may open with connections that send a byte now and then, and the counter's own
 * requests failed. Off behind a trusted proxy (every connection comes from the proxy there).
 */
export function limitConnectionsPerClient(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return;
    const key = clientKey(address);
    const count = (open.get(key) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
