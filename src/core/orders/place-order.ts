import type { Kysely } from 'kysely';
import { refuseBlockedLink } from '../customer-care/blocked';
import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import { currencyInfo } from '../balances/balance-store';
import type { StoreScope } from '../credentials/authenticate';
import { holdProgramMoney } from '../currencies/program-money';
import { linkUserToVendor, type UserRow } from '../customers/customer-store';
import { seenAtCounter } from '../customers/seen-at-counter';
import { type Engine, transact } from '../engine';
import { recordCheckInEvent, recordOrderEvent } from '../webhooks/events';
import type { StoreEvent } from '../events/store-events';
import { accountBalance, openAccount, postEntry } from '../ledger/ledger';
import { notifyAutoReloadQueued, queueAutoReloadOnCrossing } from '../payments/auto-reload/auto-reloads';
import { identifyCustomer, refuseUnservedAccount, withCustomerFromCentral } from '../onscreen/identify-customer';
import { onceMoreOnClash } from '../storage/once-more-on-clash';
import { counterOf, findOpenSession, loadCounterInfo, type PosSessionRow, sessionEvent } from '../onscreen/pos-session';
import { lockKey } from '../storage/dialect';
import { isUniqueViolation } from '../storage/errors';
import { nextObjectId } from '../storage/ids';
import { prepared, preparedInsert } from '../storage/prepared';
import type { DB } from '../storage/schema';
import { balancesAfter } from './balances-after';
import { loyaltyExpiringAfter } from './loyalty-expiring';
import { enforceOfflineCaps } from './offline-caps';
import { pointsFor, ruleApplies } from './earning';
import { type CleanOrder, cleanOrder, noCustomerNamed, type OrderInput } from './order-input';
import { type OrderResult, tierShown } from './order-result';
import { recordTransaction } from './record-transaction';
import { refuseReusedReceipt } from './receipt-reuse';
import { promoteTier, recordPromotion } from './tier-progress';
import { refuseConflictingIdentification } from './identification-conflict';
import { announceRewardsReady } from '../inbox/announce';
import { earnedPointsExpireAt } from '../expiry/points-due-to-expire';

const ACTIVE = 'ACTIVE';

const insertOrderRow = preparedInsert('orders');

/**
 * POST /order: in one transaction, spends quick pay (never below zero), redeems rewards, earns
 * points by the vendor's earning rules on the subtotal, writes the ledger entries and one history
 * record, and closes the customer's session at the store. `receipt_number` is unique per store:
 * resending an order returns the first result and moves nothing again.
 */
export async function placeOrder(engine: Engine, scope: StoreScope, input: OrderInput): Promise<OrderResult> {
  const counter = counterOf(scope);
  try {
    // A customer new to the program buying at two tills at once: both make the membership (PostgreSQL).
    const { result, events, autoReloadQueued } = await onceMoreOnClash(engine.dialect, () => withCustomerFromCentral(engine, input.identification, () => transact(engine, async (trx) => {
      // A sale is money in the quick-pay currency: its code cannot change until this commits, and a
      // change that committed first is read below (PostgreSQL; program-money.ts).
      await holdProgramMoney(trx, engine.dialect, counter.vendorId);
      // The vendor's settings, currencies and rules come from memory (program-cache).
      const { vendor, store, program } = await loadCounterInfo(engine, trx, counter);
      const quickPayCurrency = vendor.quick_pay_currency_id === null ? undefined : program.currencies.find((c) => c.id === vendor.quick_pay_currency_id && c.deleted_at === null);
      const digits = quickPayCurrency?.code ? minorUnitDigits(quickPayCurrency.code) : 2;
      const now = engine.clock.now();
      const order = cleanOrder(input, digits, now);

      // Copies of one receipt sent at once (a till's retry) wait here for each other, so the
      // second finds the first's result instead of judging the balance the first just spent.
      await lockReceipt(trx, engine, counter.storeId, order.receiptNumber);
      const previous = await findOrder(trx, counter.storeId, order.receiptNumber);
      if (previous) {
        await refuseReusedReceipt(trx, engine, previous, order, { input, vendorId: vendor.id, storeId: counter.storeId, country: store.country, digits });
        return { result: replyOf(previous), events: [] as StoreEvent[], autoReloadQueued: false };
      }

      const { user, session } = await customerOfOrder(trx, engine, counter, store.country, input);
      const link = await linkUserToVendor(trx, engine, { userId: user.id, vendorId: vendor.id, byCounter: true, via: 'counter' });
      // A membership made just now is never blocked: judging the one read (or made) is the same.
      refuseBlockedLink(link);
      const orderId = await nextObjectId(trx, engine.nodeId);
      const reference = { referenceType: 'order', referenceId: String(orderId) };
      const member = { vendorId: vendor.id, userId: user.id };

      // Quick pay.
      let autoReloadQueued = false;
      if (order.quickPay > 0) {
        if (!quickPayCurrency) throw new ServiceError('quick_pay_not_offered', undefined, 'quick_pay');
        if (quickPayCurrency.status !== ACTIVE) throw new ServiceError('currency_not_active', undefined, 'quick_pay');
        const accountId = await openAccount(trx, engine, { ...member, currencyId: quickPayCurrency.id, holderType: 'user', holderId: user.id });
        if ((await accountBalance(trx, accountId)) < order.quickPay) throw new ServiceError('insufficient_balance', undefined, 'quick_pay');
        // Judged again on the balance the debit itself returns: the UPDATE waits for a concurrent
        // spend (PostgreSQL row lock), so two orders can never both take the last of the balance.
        const after = await postEntry(trx, engine, accountId, { amount: -order.quickPay, kind: 'spend', ...reference });
        if (after.balance < 0) throw new ServiceError('insufficient_balance', undefined, 'quick_pay');
        // Auto reload (payments): a spend that crosses the customer's threshold queues one reload.
        const before = after.balance + order.quickPay;
        autoReloadQueued = (await queueAutoReloadOnCrossing(trx, engine, { ...member, balanceBefore: before, balanceAfter: after.balance, orderId })) !== null;
      }

      // Rewards.
      const redeemed: OrderResult['redeemed'] = [];
      for (const rewardId of order.redemptions) {
        const reward = await trx
          .selectFrom('spending_rules as r')
          .innerJoin('currencies as c', 'c.id', 'r.currency_id')
          .select(['r.id', 'r.public_id', 'r.name', 'r.cost', 'r.status', 'r.starts_at', 'r.ends_at', 'r.currency_id', 'c.name as currency_name', 'c.code', 'c.status as currency_status'])
          .where('r.vendor_id', '=', vendor.id)
          .where('r.public_id', '=', rewardId)
          .where('r.deleted_at', 'is', null)
          // A deleted currency is gone for its clients: its points buy nothing.
          .where('c.deleted_at', 'is', null)
          .executeTakeFirst();
        // Like earning rules, judged at the moment of sale (an offline till may send it later). A
        // reward priced in a cash currency (made cash before that was refused) would cost money.
        if (!reward || isCash(reward) || !ruleApplies(reward, order.orderedAt)) throw new ServiceError('reward_not_available', `The reward ${rewardId} is not available.`, 'redemptions');
        if (reward.currency_status !== ACTIVE) throw new ServiceError('currency_not_active', undefined, 'redemptions');
        const accountId = await openAccount(trx, engine, { ...member, currencyId: reward.currency_id, holderType: 'user', holderId: user.id });
        const notEnough = () => new ServiceError('insufficient_points', `Not enough points for "${reward.name}".`, 'redemptions');
        if ((await accountBalance(trx, accountId)) < reward.cost) throw notEnough();
        if ((await postEntry(trx, engine, accountId, { amount: -reward.cost, kind: 'redeem', ...reference })).balance < 0) throw notEnough();
        redeemed.push({ rewardId: reward.public_id, name: reward.name, currency: currencyInfo({ id: reward.currency_id, name: reward.currency_name, code: reward.code }), cost: reward.cost });
      }

      // A paired store that cannot reach central spends within the program's offline caps.
      if (engine.programRole === 'replica' && !engine.centralLink.reachable) {
        await enforceOfflineCaps(trx, { nodeId: engine.nodeId, vendorId: vendor.id, userId: user.id, quickPay: order.quickPay, points: redeemed.reduce((sum, r) => sum + r.cost, 0), now, digits });
      }

      // Points earned on the subtotal.
      const earned: OrderResult['earned'] = [];
      const rules = program.earningRules.flatMap((r) => {
        const c = program.currencies.find((currency) => currency.id === r.currency_id && currency.deleted_at === null);
        return c ? [{ ...r, currency_name: c.name, code: c.code, currency_status: c.status }] : [];
      });
      const expiresAt = earnedPointsExpireAt(vendor.points_expiry_days, now);
      for (const rule of rules) {
        // A rule counting in a cash currency would pay money out as points: it earns nothing.
        if (!ruleApplies(rule, order.orderedAt) || rule.currency_status !== ACTIVE || isCash(rule)) continue;
        const points = pointsFor(rule, order.subtotal);
        if (points <= 0) continue;
        // A rule of many points per cent on a huge subtotal: refused rather than rounded.
        if (!Number.isSafeInteger(points)) throw new ServiceError('validation_failed', `subtotal earns more ${rule.currency_name} than a balance can hold.`, 'subtotal');
        const accountId = await openAccount(trx, engine, { ...member, currencyId: rule.currency_id, holderType: 'user', holderId: user.id });
        const { balance } = await postEntry(trx, engine, accountId, { amount: points, kind: 'earn', expiresAt, ...reference });
        await announceRewardsReady(trx, engine, member, { currencyId: rule.currency_id, before: balance - points, after: balance });
        earned.push({ ruleName: rule.name, currency: currencyInfo({ id: rule.currency_id, name: rule.currency_name, code: rule.code }), points });
      }
      const promotion = earned.length > 0 ? await promoteTier(trx, engine, member, program.tiers, await membershipToPromote(trx, engine, link)) : null;
      const tierNow = promotion?.to ?? program.tiers.find((t) => t.id === link.tier_id) ?? null;

      const events: StoreEvent[] = [];
      // The order completes the customer's visit: their open session closes, wherever it was opened.
      const closing = session ?? (await openSessionOfMember(trx, user.id, vendor.id))[0];
      // Only while still open: a check-in elsewhere may have moved it since it was read (PostgreSQL),
      // and that close stands, announced by whoever made it.
      if (closing && (await closeByOrder(trx, now, closing.id)).length > 0) {
        await recordCheckInEvent(trx, engine, 'check_in.closed', closing, { at: now, reason: 'order' });
        events.push(sessionEvent('session.closed', closing, now));
      }

      const balances = await balancesAfter(trx, member, quickPayCurrency?.id ?? null, program.currencies);
      // Read only where points expire (three reads inside the order's write: a program without
      // expiry pays none; lots left from before expiry was turned off keep the panel's estimate).
      const loyaltyExpiring = expiresAt === null ? {} : await loyaltyExpiringAfter(trx, member, balances.loyalty, now);
      const pointsEarned = earned.reduce((sum, e) => sum + e.points, 0);
      const pointsSpent = redeemed.reduce((sum, r) => sum + r.cost, 0);
      const result: OrderResult = {
        orderId,
        receiptNumber: order.receiptNumber,
        status: 'Complete',
        orderedAt: order.orderedAt,
        user: { id: user.id, firstName: user.first_name, lastName: seenAtCounter(user, link).last_name },
        pointsEarned,
        pointsSpent,
        quickPayUsed: order.quickPay,
        earned,
        redeemed,
        balances,
        // The history record's id is known before the order is written, so the order (and its
        // stored reply) is written once.
        transactionId: pointsEarned > 0 || pointsSpent > 0 || order.quickPay > 0 ? await nextObjectId(trx, engine.nodeId) : null,
        digits,
        // What a void of this order may take back to (read above, before any promotion).
        ...(earned.length > 0 ? { tierBefore: { id: link.tier_id, since: link.tier_since } } : {}),
        tierAfter: { current: tierShown(tierNow), next: tierShown(program.tiers.find((t) => t.threshold > (tierNow?.threshold ?? -1)) ?? null) },
        ...(autoReloadQueued ? { autoReloadQueued } : {}),
        ...(Object.keys(loyaltyExpiring).length > 0 ? { loyaltyExpiring } : {}),
      };
      await insertOrder(trx, { orderId, counter, userId: user.id, sessionId: closing?.id ?? null, order, result, createdAt: now, offline: engine.programRole === 'replica' && !engine.centralLink.reachable });
      if (result.transactionId !== null) {
        await recordTransaction(trx, engine, {
          id: result.transactionId,
          vendorId: vendor.id,
          userId: user.id,
          storeId: counter.storeId,
          orderId,
          kind: 'order',
          occurredAt: order.orderedAt,
          total: order.total,
          quickPayUsed: order.quickPay,
          quickPayLoaded: 0,
          quickPayBalance: balances.quickPay.amount,
          items: order.items,
          taxes: order.taxes,
          receipts: [{ receipt_number: order.receiptNumber, till: order.till, payment_method: order.paymentMethod }],
          rewards: [
            ...earned.map((e) => ({ object: 'reward', kind: 'earned', name: e.ruleName, amount: e.points, currency: e.currency.name })),
            ...redeemed.map((r) => ({ object: 'reward', kind: 'redeemed', id: r.rewardId, name: r.name, amount: r.cost, currency: r.currency.name })),
          ],
          status: 'Complete',
        });
      }
      // The promotion's own history record: it names the order, so it is written after it.
      if (promotion) {
        const receipt = { receipt_number: order.receiptNumber, till: order.till, payment_method: order.paymentMethod };
        await recordPromotion(trx, engine, member, promotion, { orderId, storeId: counter.storeId, receipt, quickPayBalance: balances.quickPay.amount, orderedAt: order.orderedAt });
      }
      await recordOrderEvent(trx, engine, 'order.placed', { id: orderId, vendorId: vendor.id });
      events.push({ type: 'order.completed', vendorId: vendor.id, storeId: counter.storeId, sessionId: closing?.id ?? null, orderId, at: now });
      return { result, events, autoReloadQueued };
    })));
    for (const event of events) engine.events.publish(event);
    if (autoReloadQueued) notifyAutoReloadQueued(engine);
    return result;
  } catch (error) {
    // Two copies of one receipt sent at once on PostgreSQL: the second finds the first's result.
    if (isUniqueViolation(error)) {
      const previous = await findOrder(engine.db, counter.storeId, input.receiptNumber.trim());
      if (previous) return replyOf(previous);
    }
    throw error;
  }
}

/** What a resend is answered: the sale's reply, or once voided the void's (status Voided, the balances after it). */
function replyOf(order: { reply: string; void_reply: string | null }): OrderResult {
  return JSON.parse(order.void_reply ?? order.reply) as OrderResult;
}

/** A currency with an ISO code is money (quick pay), never points a rule earns or a reward costs. */
function isCash(currency: { code: string | null }): boolean {
  return currency.code !== null;
}

const orderByReceipt = prepared((db, storeId: number, receiptNumber: string) => db.selectFrom('orders').selectAll().where('store_id', '=', storeId).where('receipt_number', '=', receiptNumber));
const closeByOrder = prepared((db, now: number, id: number) =>
  db.updateTable('pos_sessions').set({ status: 'closed', closed_at: now, closed_reason: 'order', updated_at: now }).where('id', '=', id).where('status', '=', 'active').returning('id'),
);
const openSessionOfMember = prepared((db, userId: number, vendorId: number) =>
  db.selectFrom('pos_sessions').selectAll().where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('status', '=', 'active'),
);

/** Serialises the commands on one receipt of a store (placing, resending, voiding it). */
export function lockReceipt(db: Kysely<DB>, engine: Engine, storeId: number, receiptNumber: string): Promise<void> {
  return lockKey(db, engine.dialect, `receipt:${storeId}:${receiptNumber}`);
}

export async function findOrder(db: Kysely<DB>, storeId: number, receiptNumber: string) {
  return (await orderByReceipt(db, storeId, receiptNumber))[0];
}

/** The order's customer: the open session named by its hash (a card_number beside it must name the same one), or anyone check-in would identify. */
async function customerOfOrder(
  db: Kysely<DB>,
  engine: Engine,
  counter: { vendorId: number; storeId: number },
  country: string,
  input: OrderInput,
): Promise<{ user: UserRow; session: PosSessionRow | null }> {
  if (input.sessionHash) {
    const session = await findOpenSession(db, counter, input.sessionHash);
    const user = await db.selectFrom('users').selectAll().where('id', '=', session.user_id).executeTakeFirstOrThrow();
    // The session may predate a deactivation or deletion: the hash must not serve what identifying refuses.
    refuseUnservedAccount(user, 'pos_session_hash');
    await refuseConflictingIdentification(db, engine, { vendorId: counter.vendorId, country, identification: input.identification }, user.id);
    return { user, session };
  }
  if (!input.identification) throw noCustomerNamed();
  const found = await identifyCustomer(db, engine, { vendorId: counter.vendorId, country, identification: input.identification });
  return { user: found.user, session: null };
}

async function insertOrder(
  db: Kysely<DB>,
  input: {
    orderId: number;
    counter: { vendorId: number; storeId: number; posId: number | null };
    userId: number;
    sessionId: number | null;
    order: CleanOrder;
    result: OrderResult;
    createdAt: number;
    /** Sold by a paired store while central was unreachable (offline caps count these). */
    offline?: boolean;
  },
): Promise<void> {
  const { order, result } = input;
  await insertOrderRow(db, {
    id: input.orderId,
    vendor_id: input.counter.vendorId,
    store_id: input.counter.storeId,
    pos_id: input.counter.posId,
    user_id: input.userId,
    session_id: input.sessionId,
    receipt_number: order.receiptNumber,
    till: order.till,
    subtotal: order.subtotal,
    total: order.total,
    taxes: JSON.stringify(order.taxes),
    items: JSON.stringify(order.items),
    payment_method: order.paymentMethod,
    ordered_at: order.orderedAt,
    quick_pay_used: order.quickPay,
    points_earned: result.pointsEarned,
    points_spent: result.pointsSpent,
    redemptions: JSON.stringify(result.redeemed),
    status: 'complete',
    reply: JSON.stringify(result),
    void_reply: null,
    created_at: input.createdAt,
    voided_at: null,
    offline: input.offline ? 1 : 0,
  });
}

/**
 * The membership a sale's promotion starts from. On PostgreSQL it is read again under a row lock: a
 * void of another sale of the member (takeBackTier, which locks it too) may have moved the tier since
 * the sale read it, and promoting from the stale tier left the member below what their points reach.
 * SQLite runs one writer at a time: the row read at the start is current.
 */
async function membershipToPromote(trx: Kysely<DB>, engine: Engine, link: { id: number; tier_id: number | null }): Promise<{ id: number; tier_id: number | null }> {
  if (engine.dialect !== 'postgres') return link;
  return trx.selectFrom('user_vendors').select(['id', 'tier_id']).where('id', '=', link.id).forUpdate().executeTakeFirstOrThrow();
}
