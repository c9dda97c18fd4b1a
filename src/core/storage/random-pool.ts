import { randomFillSync } from 'node:crypto';

// Random bytes for identifiers made on hot paths (a check-in's session hash, public ids): one
// crypto.randomBytes call costs ~5.6 µs, a slice of a pool refilled from the same CSPRNG ~0.1 µs
// (Node's randomUUID keeps such a cache too). Each byte is handed out once. Not for keys or secrets,
// which keep their own calls (credentials/secrets.ts).
const pool = Buffer.allocUnsafe(4096);
let offset = pool.length;

/** Where the next `size` unused bytes of the pool start (refilled when too few are left). */
function take(size: number): number {
  if (!Number.isInteger(size) || size < 1 || size > pool.length) throw new RangeError(`1 to ${pool.length} pooled random bytes at once, not ${size}`);
  if (offset + size > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += size;
  return start;
}

/** `size` fresh random bytes (a copy: the pool is reused). */
export function pooledRandomBytes(size: number): Buffer {
  const start = take(size);
  return Buffer.from(pool.subarray(start, start + size));
}

/** `size` fresh random bytes as lowercase hex. */
export function pooledRandomHex(size: number): string {
  const start = take(size);
  return pool.toString('hex', start, start + size);
}
