import { ServiceError } from '../../shared/errors';
import { type CurrencyInfo, currencyInfo } from '../balances/balance-store';
import type { CustomerSession } from '../customers/sessions';
import { type Engine, transact } from '../engine';
import { announceRewardsReady } from '../inbox/announce';
import { holderBalance, openAccount, postEntry } from '../ledger/ledger';
import { recordTransaction } from '../orders/record-transaction';
import { nextObjectId } from '../storage/ids';
import { codeKey, loadPromotion, type PromotionRecord } from './promotion';
import { earnedPointsExpireAt } from '../expiry/points-due-to-expire';

export interface PromotionAward {
  promotion: PromotionRecord;
  reward: { publicId: string; name: string } | null;
  /** Points credited (a reward's cost for a reward promotion). */
  points: number;
  currency: CurrencyInfo;
  /** The customer's balance in that currency afterwards. */
  balance: number;
  transactionId: number;
}

/**
 * POST /vendor/promotion/award: the logged-in customer enters a code of their program. Credits
 * its points (or its reward's cost, so the reward can be redeemed at once) as a history record,
 * at most per_customer_cap times per customer and total_cap times in all, only while ACTIVE and
 * inside its window. Promotion points expire like earned ones but do not count towards tiers.
 */
export async function awardPromotion(engine: Engine, session: CustomerSession, code: string): Promise<PromotionAward> {
  const key = codeKey(code);
  if (key === '' || key.length > 40) throw new ServiceError('validation_failed', 'code must be 1 to 40 characters.', 'code');
  return transact(engine, async (trx) => {
    const found = await trx.selectFrom('promotions').select('id').where('vendor_id', '=', session.vendorId).where('code_key', '=', key).executeTakeFirst();
    if (!found) throw new ServiceError('promotion_code_unknown', undefined, 'code');
    const now = engine.clock.now();
    const promotion = await loadPromotion(trx, session.vendorId, { id: found.id });
    const inWindow = (promotion.startsAt === null || promotion.startsAt <= now) && (promotion.endsAt === null || promotion.endsAt > now);
    if (promotion.status !== 'ACTIVE' || !inWindow) throw new ServiceError('promotion_not_active', undefined, 'code');
    // Counting first takes the promotion's row lock: simultaneous awards of one code queue here.
    const counted = await trx
      .updateTable('promotions')
      .set((eb) => ({ awarded_count: eb('awarded_count', '+', 1), updated_at: now }))
      .where('id', '=', promotion.id)
      .where((eb) => eb.or([eb('total_cap', 'is', null), eb('awarded_count', '<', eb.ref('total_cap'))]))
      .executeTakeFirst();
    if (Number(counted.numUpdatedRows) === 0) throw new ServiceError('promotion_exhausted', undefined, 'code');
    const mine = await trx.selectFrom('promotion_awards').select((eb) => eb.fn.countAll<number>().as('n')).where('promotion_id', '=', promotion.id).where('user_id', '=', session.userId).executeTakeFirstOrThrow();
    if (Number(mine.n) >= promotion.perCustomerCap) throw new ServiceError('promotion_already_awarded', undefined, 'code');

    const prize = await trx
      .selectFrom('promotions as p')
      .leftJoin('spending_rules as r', 'r.id', 'p.reward_id')
      .innerJoin('currencies as c', (join) => join.on((eb) => eb('c.id', '=', eb.fn.coalesce('p.currency_id', 'r.currency_id'))))
      .select(['p.points', 'r.cost', 'r.public_id as reward_public_id', 'r.name as reward_name', 'r.deleted_at as reward_deleted_at', 'c.id as currency_id', 'c.name as currency_name', 'c.code', 'c.status as currency_status'])
      .where('p.id', '=', promotion.id)
      .executeTakeFirstOrThrow();
    if (prize.reward_public_id !== null && prize.reward_deleted_at !== null) throw new ServiceError('promotion_not_active', 'The reward of this promotion no longer exists.', 'code');
    if (prize.currency_status !== 'ACTIVE') throw new ServiceError('currency_not_active', undefined, 'code');
    const points = Number(prize.points ?? prize.cost);
    const currency = currencyInfo({ id: prize.currency_id, name: prize.currency_name, code: prize.code });

    const vendor = await trx.selectFrom('vendors').select(['points_expiry_days', 'quick_pay_currency_id']).where('id', '=', session.vendorId).executeTakeFirstOrThrow();
    const member = { vendorId: session.vendorId, userId: session.userId };
    const accountId = await openAccount(trx, engine, { ...member, currencyId: currency.id, holderType: 'user', holderId: session.userId });
    const expiresAt = earnedPointsExpireAt(vendor.points_expiry_days, now);
    const { balance } = await postEntry(trx, engine, accountId, { amount: points, kind: 'promotion', referenceType: 'promotion', referenceId: promotion.publicId, expiresAt });
    const quickPay = vendor.quick_pay_currency_id === null ? 0 : await holderBalance(trx, { currencyId: vendor.quick_pay_currency_id, holderType: 'user', holderId: session.userId });
    const reward = prize.reward_public_id === null ? null : { publicId: prize.reward_public_id, name: prize.reward_name ?? '' };
    const transactionId = await recordTransaction(trx, engine, {
      ...member,
      storeId: null,
      orderId: null,
      kind: 'promotion',
      occurredAt: now,
      total: 0,
      quickPayUsed: 0,
      quickPayLoaded: 0,
      quickPayBalance: quickPay,
      items: [],
      taxes: [],
      receipts: [],
      rewards: [{ object: 'reward', kind: 'promotion', name: reward?.name ?? promotion.name, promotion: promotion.code, amount: points, currency: currency.name }],
      status: 'Complete',
    });
    await trx.insertInto('promotion_awards').values({ id: await nextObjectId(trx, engine.nodeId), promotion_id: promotion.id, vendor_id: member.vendorId, user_id: member.userId, transaction_id: transactionId, created_at: now }).execute();
    await announceRewardsReady(trx, engine, member, { currencyId: currency.id, before: balance - points, after: balance });
    return { promotion: { ...promotion, awardedCount: promotion.awardedCount + 1 }, reward, points, currency, balance, transactionId };
  });
}
