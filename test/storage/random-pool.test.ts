import { describe, expect, it } from 'vitest';
import { pooledRandomBytes, pooledRandomHex } from '../../src/core/storage/random-pool';

describe('pooled random bytes', () => {
  it('hands out fresh bytes of the size asked, across refills of the pool', () => {
    const seen = new Set<string>();
    // 1,000 × 16 bytes: the 4 KB pool is refilled several times, and a slice never straddles a refill.
    for (let i = 0; i < 1000; i++) {
      const hex = pooledRandomHex(16);
      expect(hex).toMatch(/^[0-9a-f]{32}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(1000);
    const bytes = pooledRandomBytes(20);
    expect(bytes).toHaveLength(20);
  });

  it('returns copies: a later take does not change bytes already handed out', () => {
    const first = pooledRandomBytes(4000);
    const kept = Buffer.from(first);
    pooledRandomBytes(4000); // forces a refill of the pool first was sliced from
    expect(first.equals(kept)).toBe(true);
  });

  it('refuses sizes it cannot serve', () => {
    expect(() => pooledRandomBytes(0)).toThrow(RangeError);
    expect(() => pooledRandomHex(4097)).toThrow(RangeError);
    expect(() => pooledRandomBytes(1.5)).toThrow(RangeError);
  });
});
