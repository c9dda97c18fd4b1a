import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashSecret, secretMatches } from '../../src/core/credentials/secrets';

// Stored credential hashes must not change with how they are computed (every stored key and token).
describe('hashSecret', () => {
  it('is the hex SHA-256 of the UTF-8 text', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const secret of ['', 'pca_AbC-_xyz', 'é😀\u2028', 'x'.repeat(1000)]) {
      expect(hashSecret(secret)).toBe(createHash('sha256').update(secret, 'utf8').digest('hex'));
      expect(secretMatches(secret, hashSecret(secret))).toBe(true);
    }
  });
});
