import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import { nextObjectId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import type { ChargeRow, ChargeSettlement } from '../charges/payment-charges';
import { settleOwnException } from '../exceptions/payout-guard';
import { deliverGift } from './deliver-gift';

/** What a buyer's request asked for, cleaned: the gift row is written from it. */
export interface EgiftDetails {
  vendorId: number;
  currencyId: number;
  amountMinor: number;
  buyerUserId: number | null;
  billingProfileId: number | null;
  buyer: { name: string; email: string };
  recipient: { name: string; email: string };
  message: string | null;
  imageUrl: string | null;
  card: { brand: string; last4: string };
  /** A future send date (epoch ms), else null. */
  sendAt: number | null;
}

/**
 * What a charge's state does to its gift, in the transaction that records it: a late result
 * (pending) writes the pending gift row with the charge's new state, so a node that stops right
 * after never leaves a charge the gateway may still complete without its gift (the settle job
 * works from gift rows); success sends the gift, a decline marks it declined.
 */
export function egiftSettlement(engine: Engine, details: EgiftDetails | null): ChargeSettlement {
  return {
    async pending(trx, charge) {
      if (!details) return;
      const gift = await trx.selectFrom('egifts').select('id').where('charge_id', '=', charge.id).executeTakeFirst();
      if (!gift) await insertGift(trx, engine, charge, details);
    },
    async succeeded(trx, charge) {
      // Never while staff refund a charge that was paid without its gift (the buyer's retry).
      await settleOwnException(trx, engine, charge.id, 'paid_without_gift');
      const gift = await trx.selectFrom('egifts').select(['id', 'status']).where('charge_id', '=', charge.id).executeTakeFirst();
      if (gift && gift.status !== 'pending') return;
      if (!gift && !details) return;
      const id = gift ? gift.id : await insertGift(trx, engine, charge, details!);
      await deliverGift(trx, engine, id);
    },
    async declined(trx, charge) {
      const now = engine.clock.now();
      await trx
        .updateTable('egifts')
        .set({ status: 'declined', decline_reason: charge.decline_reason, updated_at: now })
        .where('charge_id', '=', charge.id)
        .where('status', '=', 'pending')
        .execute();
    },
  };
}

/**
 * The settlement of an eGift charge as a job sees it (no request details): finishes the gift only
 * if its row exists (sent on success, declined on a decline); a charge without one moves alone.
 */
export function egiftChargeSettlement(engine: Engine): ChargeSettlement {
  return egiftSettlement(engine, null);
}

/** The gift row, pending until its charge succeeds (deliverGift). */
export async function insertGift(trx: Kysely<DB>, engine: Engine, charge: ChargeRow, d: EgiftDetails): Promise<number> {
  const id = await nextObjectId(trx, engine.nodeId);
  const now = engine.clock.now();
  await trx
    .insertInto('egifts')
    .values({
      id,
      vendor_id: d.vendorId,
      currency_id: d.currencyId,
      amount: d.amountMinor,
      charge_id: charge.id,
      buyer_user_id: d.buyerUserId,
      billing_profile_id: d.billingProfileId,
      buyer_name: d.buyer.name,
      buyer_email: d.buyer.email,
      recipient_name: d.recipient.name,
      recipient_email: d.recipient.email,
      message: d.message,
      image_url: d.imageUrl,
      card_brand: d.card.brand,
      card_last4: d.card.last4,
      status: 'pending',
      decline_reason: null,
      claim_code_hash: null,
      sent_at: null,
      claimed_by_user_id: null,
      claimed_at: null,
      claim_transaction_id: null,
      created_at: now,
      updated_at: now,
      send_at: d.sendAt,
    })
    .execute();
  return id;
}
