import { isIPv6 } from 'node:net';

// IPv6 addresses that carry an IPv4 address reach that IPv4 host: through the host's own stack
// (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d), a
// NAT64 gateway (64:ff9b::/96), a 6to4 relay (2002::/16) or a Teredo relay (2001::/32). Such an
// address is as internal as the IPv4 address inside it, so the webhook checks judge that one too.

/** The 16 bytes of an IPv6 address in text form (a `%zone` dropped), or null when it is not one. */
export function ipv6Bytes(address: string): Uint8Array | null {
  const text = address.replace(/%.*$/, '');
  if (!isIPv6(text)) return null;
  // A trailing dotted quad stands for the last two groups.
  const quad = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const hex = quad ? `${quad[1]}${((Number(quad[2]) << 8) | Number(quad[3])).toString(16)}:${((Number(quad[4]) << 8) | Number(quad[5])).toString(16)}` : text;
  const [head = '', tail] = hex.split('::');
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groupsOf(head);
  const right = tail === undefined ? [] : groupsOf(tail);
  const groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return bytes;
}

const dotted = (bytes: Uint8Array, from: number, flip = 0) => Array.from(bytes.subarray(from, from + 4), (b) => b ^ flip).join('.');
const zeros = (bytes: Uint8Array, from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
const startsWith = (bytes: Uint8Array, prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

/** Every IPv4 address the IPv6 address carries (none for a plain IPv6 address or a non-address). */
export function embeddedIpv4(address: string): string[] {
  const bytes = ipv6Bytes(address);
  if (!bytes) return [];
  // ::a.b.c.d (compatible, :: and ::1 included) and ::ffff:a.b.c.d (mapped).
  if (zeros(bytes, 0, 10) && (zeros(bytes, 10, 12) || (bytes[10] === 0xff && bytes[11] === 0xff))) return [dotted(bytes, 12)];
  // ::ffff:0:a.b.c.d (translated, SIIT).
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12)) return [dotted(bytes, 12)];
  // 64:ff9b::a.b.c.d (NAT64, well-known prefix).
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b]) && zeros(bytes, 4, 12)) return [dotted(bytes, 12)];
  // 2002:AABB:CCDD::/48 (6to4): the relay's IPv4 address in bits 16-47.
  if (startsWith(bytes, [0x20, 0x02])) return [dotted(bytes, 2)];
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (Teredo): the server, and the client's address inverted.
  if (startsWith(bytes, [0x20, 0x01, 0x00, 0x00])) return [dotted(bytes, 4), dotted(bytes, 12, 0xff)];
  return [];
}
