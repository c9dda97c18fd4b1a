import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

// Machine secrets (API keys, tokens, client secrets) carry 256 random bits, so a fast SHA-256
// digest is enough to store them: nobody can brute-force the space, and lookups stay one index hit.
// Human passwords are a different matter and use argon2id (accounts issue).

export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  // One-shot hash (UTF-8 in, hex out): every authenticated call hashes its credential, and building
  // a Hash object per call was ~3x the cost.
  return hash('sha256', secret, 'hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The last characters of a secret, kept so an operator can tell keys apart in a listing. */
export function secretHint(secret: string): string {
  return secret.slice(-4);
}

/**
 * Seals values the interface must hand back (a card's pin) with AES-256-GCM under the node's key,
 * which lives outside the database (the data folder's node.key or PUNCHCARD_NODE_KEY).
 */
export class Sealer {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new RangeError('the node key must be 32 bytes');
    this.#key = key;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /**
   * Keyed digest (HMAC-SHA256 under the node key) for short secrets such as 6-digit codes: a leaked
   * database alone cannot be brute-forced back to them.
   */
  digest(value: string): string {
    return createHmac('sha256', this.#key).update(value, 'utf8').digest('hex');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown sealed value format');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
