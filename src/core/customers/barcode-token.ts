import { randomInt } from 'node:crypto';
import { ServiceError } from '../../shared/errors';
import { hashSecret } from '../credentials/secrets';
import { type Engine, transact } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { CustomerSession } from './sessions';

/** The only token type the interface knows: an identifying barcode for check-in. */
export const BARCODE_TOKEN_TYPE = 2;
/** Long enough to walk to the counter, short enough that a screenshot soon stops working. */
export const BARCODE_TOKEN_TTL_MINUTES = 15;
/** Every app token starts with this, so check-in tells it from card numbers and phones at a glance. */
export const BARCODE_TOKEN_PREFIX = 'PC';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export interface BarcodeToken {
  id: number;
  token: string;
  createdAt: number;
  expiresAt: number;
}

/** A fresh token (PC + 16 base32 characters, 80 bits) the customer's app shows as a barcode. */
export function requestBarcodeToken(engine: Engine, session: CustomerSession, tokenType: number): Promise<BarcodeToken> {
  if (tokenType !== BARCODE_TOKEN_TYPE) throw new ServiceError('validation_failed', 'token_type must be 2 (barcode).', 'token_type');
  let token = BARCODE_TOKEN_PREFIX;
  for (let i = 0; i < 16; i++) token += ALPHABET[randomInt(0, 32)];
  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    const record = { id: await nextObjectId(trx, engine.nodeId), token, createdAt: now, expiresAt: now + BARCODE_TOKEN_TTL_MINUTES * 60_000 };
    await trx
      .insertInto('barcode_tokens')
      .values({
        id: record.id,
        user_id: session.userId,
        vendor_id: session.vendorId,
        token_hash: hashSecret(token),
        token_type: BARCODE_TOKEN_TYPE,
        created_at: now,
        expires_at: record.expiresAt,
      })
      .execute();
    return record;
  });
}
