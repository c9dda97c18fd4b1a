import { randomInt } from 'node:crypto';
import { normaliseCode } from '../../customers/one-time-codes';
import type { Engine } from '../../engine';

// An eGift's claim code stands alone (whoever holds it may claim the gift), so it is long like a
// password-reset token: 16 Crockford base32 characters (80 bits) shown as XXXX-XXXX-XXXX-XXXX,
// read forgivingly (case, spaces, O/0, I/L/1). Only its keyed digest is stored.

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newClaimCode(): string {
  let raw = '';
  for (let i = 0; i < 16; i++) raw += CROCKFORD[randomInt(0, 32)];
  return raw.match(/.{4}/g)!.join('-');
}

/** The digest a code is stored and looked up by; undefined when the text cannot be a claim code. */
export function claimCodeDigest(engine: Engine, code: string): string | undefined {
  const normal = normaliseCode(code);
  if (!/^[0-9A-HJKMNP-TV-Z]{16}$/.test(normal)) return undefined;
  return engine.sealer.digest(`egift:${normal}`);
}
