import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import { type CurrencyInfo, currencyInfo } from '../../balances/balance-store';
import { linkUserToVendor } from '../../customers/customer-store';
import type { CustomerSession } from '../../customers/sessions';
import { type Engine, transact } from '../../engine';
import { recordEgiftEvent } from '../../webhooks/events';
import type { DB } from '../../storage/schema';
import { creditQuickPay, quickPayCurrencyOf } from '../quick-pay/credit-quick-pay';
import { claimCodeDigest } from './claim-code';

export interface ClaimedEgift {
  egiftId: number;
  vendor: { id: number; name: string };
  /** Minor units. */
  amount: number;
  currency: CurrencyInfo;
  from: { name: string };
  message: string | null;
  imageUrl: string | null;
  claimedAt: number;
  /** The history record of the credit. */
  transactionId: number;
  /** The quick-pay balance right after the credit, minor units. */
  balanceAfter: number;
}

/** Another claim of the same gift committed first (two claims at once). */
class ClaimRace extends Error {}

/**
 * POST /user/egift/claim: the logged-in customer enters the code emailed to the recipient; the
 * gift's amount is credited to their quick-pay balance with the gift's vendor (one ledger entry and
 * one history record of kind `egift`), exactly once. Claiming again with the same account answers
 * the first claim and moves nothing; another account gets 409 egift_already_claimed. A gift of
 * another vendor is 422 egift_other_vendor; an unknown code 400 invalid_egift_code; a gift whose
 * currency is no longer the vendor's quick-pay currency 422 currency_not_active (it stays claimable).
 */
export async function claimEgift(engine: Engine, session: CustomerSession, code: string): Promise<ClaimedEgift> {
  const digest = claimCodeDigest(engine, code);
  if (!digest) throw new ServiceError('invalid_egift_code', undefined, 'code');
  try {
    return await transact(engine, async (trx) => {
      const gift = await findGift(trx, digest, session);
      if (gift.status === 'claimed') return claimedBefore(trx, gift, session);
      // Credited in the gift's own currency (what the buyer paid), which must still be the
      // vendor's quick-pay currency and usable now: a gift bought before the program switched
      // its quick-pay currency is refused, never converted or credited in another currency.
      const currency = await quickPayCurrencyOf(trx, gift.vendor_id);
      if (currency.id !== gift.currency_id) {
        throw new ServiceError('currency_not_active', `This eGift is in a currency ${gift.vendor_name} no longer uses for quick pay: please contact the program.`, 'code');
      }
      const now = engine.clock.now();
      const taken = await trx
        .updateTable('egifts')
        .set({ status: 'claimed', claimed_by_user_id: session.userId, claimed_at: now, updated_at: now })
        .where('id', '=', gift.id)
        .where('status', '=', 'sent')
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) throw new ClaimRace();

      await linkUserToVendor(trx, engine, { userId: session.userId, vendorId: gift.vendor_id, via: 'app' });
      const { transactionId, balance } = await creditQuickPay(trx, engine, {
        vendorId: gift.vendor_id,
        userId: session.userId,
        amountMinor: Number(gift.amount),
        currencyId: gift.currency_id,
        kind: 'egift',
        referenceType: 'egift',
        referenceId: String(gift.id),
        receipts: [{ object: 'egift', egift_id: gift.id, from: gift.buyer_name }],
      });
      await trx.updateTable('egifts').set({ claim_transaction_id: transactionId }).where('id', '=', gift.id).execute();
      await recordEgiftEvent(trx, engine, 'egift.claimed', { id: gift.id, vendorId: gift.vendor_id });
      return claimedOf(gift, currencyInfo(currency), now, transactionId, balance);
    });
  } catch (error) {
    if (!(error instanceof ClaimRace)) throw error;
    // The other claim has committed: answer as if this one came second.
    const gift = await findGift(engine.db, digest, session);
    return claimedBefore(engine.db, gift, session);
  }
}

type GiftRow = Awaited<ReturnType<typeof findGiftRow>>;

function findGiftRow(db: Kysely<DB>, digest: string) {
  return db
    .selectFrom('egifts as g')
    .innerJoin('vendors as v', 'v.id', 'g.vendor_id')
    .selectAll('g')
    .select('v.name as vendor_name')
    .where('g.claim_code_hash', '=', digest)
    .executeTakeFirst();
}

async function findGift(db: Kysely<DB>, digest: string, session: CustomerSession): Promise<NonNullable<GiftRow>> {
  const gift = await findGiftRow(db, digest);
  if (!gift || (gift.status !== 'sent' && gift.status !== 'claimed')) throw new ServiceError('invalid_egift_code', undefined, 'code');
  if (gift.vendor_id !== session.vendorId) throw new ServiceError('egift_other_vendor', `This eGift is for ${gift.vendor_name}: claim it in that program's app.`, 'code');
  return gift;
}

async function claimedBefore(db: Kysely<DB>, gift: NonNullable<GiftRow>, session: CustomerSession): Promise<ClaimedEgift> {
  if (gift.claimed_by_user_id !== session.userId || gift.claim_transaction_id === null || gift.claimed_at === null) {
    throw new ServiceError('egift_already_claimed', undefined, 'code');
  }
  const [currency, record] = await Promise.all([
    db.selectFrom('currencies').select(['id', 'name', 'code']).where('id', '=', gift.currency_id).executeTakeFirstOrThrow(),
    db.selectFrom('transactions').select('quick_pay_balance').where('id', '=', gift.claim_transaction_id).executeTakeFirstOrThrow(),
  ]);
  return claimedOf(gift, currencyInfo(currency), gift.claimed_at, gift.claim_transaction_id, Number(record.quick_pay_balance));
}

function claimedOf(gift: NonNullable<GiftRow>, currency: CurrencyInfo, claimedAt: number, transactionId: number, balanceAfter: number): ClaimedEgift {
  return {
    egiftId: gift.id,
    vendor: { id: gift.vendor_id, name: gift.vendor_name },
    amount: Number(gift.amount),
    currency,
    from: { name: gift.buyer_name },
    message: gift.message,
    imageUrl: gift.image_url,
    claimedAt,
    transactionId,
    balanceAfter,
  };
}
