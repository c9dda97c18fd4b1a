import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import type { Engine } from '../../engine';
import { lockRow } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import type { ChargeRow } from '../charges/payment-charges';
import { closeSettledException, type PaymentExceptionKind } from './payment-exceptions';

// A charge that became a payment exception may still settle by itself (the buyer's retry makes the
// gift, a later poll credits the reload) while staff resolve it. Both sides take the charge's row
// first (FOR UPDATE on PostgreSQL; SQLite runs one writer at a time), so one of them goes second
// and sees what the other did: staff's refund or credit finds the charge settled (409), or the
// settlement finds the refund taken and pays nothing.

/** What staff did with the charge, as the refusal its own settlement then meets. */
const REFUSALS = { refunding: 'payment_refund_pending', refunded: 'payment_refunded', credited: 'payment_credited' } as const;

/**
 * Run by a charge's own settlement before it pays out, in that transaction. While staff refund the
 * charge (`refunding`: the gateway is being asked, or its answer was lost) nothing is paid: 409
 * payment_refund_pending, the transaction rolls back and the charge stays as it was; a refund the
 * gateway refuses reopens the exception, and the next attempt pays. A charge staff refunded or
 * credited: 409 payment_refunded / payment_credited. Otherwise the charge's open exception of
 * `kind` is closed as settled.
 */
export async function settleOwnException(trx: Kysely<DB>, engine: Engine, chargeId: number, kind: PaymentExceptionKind): Promise<void> {
  await lockRow(trx, engine.dialect, 'payment_charges', chargeId);
  const statuses = (await trx.selectFrom('payment_exceptions').select('status').where('charge_id', '=', chargeId).execute()).map((row) => row.status);
  const refusal = statuses.find((status): status is keyof typeof REFUSALS => Object.hasOwn(REFUSALS, status));
  if (refusal) throw new ServiceError(REFUSALS[refusal]);
  if (statuses.includes('open')) await closeSettledException(trx, engine, chargeId, kind);
}

/** A charge staff refunded comes to nothing: a retry or a status poll is told so (409 payment_refunded). */
export function refuseRefundedCharge(charge: Pick<ChargeRow, 'status'>): void {
  if (charge.status === 'refunded') throw new ServiceError('payment_refunded');
}
