import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import { toMajorUnits } from '../../shared/money';
import { toUnixSeconds } from '../../shared/time';
import { currencyInfo, upcomingLots } from '../balances/balance-store';
import { expiringByDay } from '../balances/expirations';
import { seenAtCounter } from '../customers/seen-at-counter';
import type { Engine } from '../engine';
import type { OrderResult } from '../orders/order-result';
import { declineCode } from '../payments/gateway/payment-errors';
import type { DB } from '../storage/schema';
import { type NewWebhookEvent, recordWebhookEvent } from './record-event';

// The event writers: one per kind, each called inside the transaction that causes the event, so
// other code (a sync apply at central, say) can call the same ones. Each builds the documented
// payload (docs/decisions.md, "Webhooks (issue 14)") only when an endpoint of the vendor wants it.
// Times in payloads are Unix seconds and amounts are numbers as the legacy replies show them
// (12.5 for USD 12.50, whole points), like the two events the original service documents.

type Db = Kysely<DB>;

/** `occurredAt`: the original time of an event that happened elsewhere (an offline store); now when absent. */
export interface EventTime {
  occurredAt?: number;
}

/**
 * The customer as every customer event of the vendor shows them (the documented `user` object): as
 * the program sees them, by name only while a counter enrolled them from another program and they
 * have not confirmed the membership (seenAtCounter).
 */
export async function customerPayload(db: Db, vendorId: number, userId: number) {
  const user = await db
    .selectFrom('users as u')
    .leftJoin('user_vendors as m', (join) => join.onRef('m.user_id', '=', 'u.id').on('m.vendor_id', '=', vendorId).on('m.removed_at', 'is', null))
    .select(['u.id', 'u.first_name', 'u.last_name', 'u.email', 'u.phone', 'u.birthdate', 'u.status', 'm.counter_enrolled'])
    .where('u.id', '=', userId)
    .executeTakeFirst();
  if (!user) return { user_id: userId, first_name: null, last_name: null, email_address: null, birthdate: null, status: 'deleted' };
  const shown = seenAtCounter(user, { counter_enrolled: user.counter_enrolled ?? 0 });
  return {
    user_id: user.id,
    first_name: shown.first_name,
    last_name: shown.last_name,
    email_address: shown.email,
    birthdate: shown.birthdate === null ? null : toUnixSeconds(shown.birthdate),
    status: user.status,
  };
}

async function currencyOf(db: Db, currencyId: number) {
  const row = await db.selectFrom('currencies').select(['id', 'name', 'code']).where('id', '=', currencyId).executeTakeFirstOrThrow();
  return currencyInfo(row);
}

/**
 * Every payload's `currency`: one shape, `{currency_id, name, code}` (code null for a loyalty
 * currency), as the legacy replies' `currency {id, name, code}` with the webhooks' `<entity>_id` key.
 */
type CurrencyPayload = { currency_id: number | null; name: string; code: string | null };

function currencyPayload(currency: { id: number; name: string; code: string | null }): CurrencyPayload {
  return { currency_id: currency.id, name: currency.name, code: currency.code };
}

const at = (time: EventTime): { occurredAt?: number } => (time.occurredAt === undefined ? {} : { occurredAt: time.occurredAt });

/** `user_card.created`: a customer linked a card (documented: user_card_id, user, card, dates, status). The pin is never sent. */
export function recordUserCardCreated(
  db: Db,
  engine: Engine,
  link: { id: number; vendorId: number; userId: number; status: string; createdAt: number; updatedAt: number; card: { id: number; number: string } },
  time: EventTime = {},
) {
  return recordWebhookEvent(db, engine, userCardCreatedEvent(db, link, time));
}

/** recordUserCardCreated's event, unwritten (recordWebhookEvents writes many at once). */
export function userCardCreatedEvent(db: Db, link: Parameters<typeof recordUserCardCreated>[2], time: EventTime = {}): NewWebhookEvent {
  return {
    vendorId: link.vendorId,
    type: 'user_card.created',
    ...at(time),
    data: async () => ({
      user_card_id: link.id,
      user: await customerPayload(db, link.vendorId, link.userId),
      // Every card of a program is a loyalty card (the documented cardType); the pin is never sent.
      card: { card_id: link.card.id, cardType: 'loyalty', number: link.card.number, pin: null },
      date_created: toUnixSeconds(link.createdAt),
      date_updated: toUnixSeconds(link.updatedAt),
      status: link.status,
    }),
  };
}

/**
 * `balance.updated`: any ledger entry on a customer's or a card's account (earn, spend, reload,
 * eGift, expiry, void…). `balance.amount` is the change; `balance.total` the balance after it.
 */
export function recordBalanceUpdated(
  db: Db,
  engine: Engine,
  movement: {
    vendorId: number;
    accountId: number;
    holderType: string;
    holderId: number;
    currencyId: number;
    entryId: number;
    amount: number;
    balance: number;
    kind: string;
    referenceType: string | null;
    referenceId: string | null;
    createdAt: number;
  },
  time: EventTime = {},
) {
  return recordWebhookEvent(db, engine, balanceUpdatedEvent(db, engine, movement, time));
}

/** recordBalanceUpdated's event, unwritten (recordWebhookEvents writes many at once). */
export function balanceUpdatedEvent(db: Db, engine: Engine, movement: Parameters<typeof recordBalanceUpdated>[2], time: EventTime = {}): NewWebhookEvent {
  return {
    vendorId: movement.vendorId,
    type: 'balance.updated',
    ...at(time),
    data: async () => {
      const currency = await currencyOf(db, movement.currencyId);
      const lots = await upcomingLots(db, [movement.accountId], engine.clock.now());
      const major = (minor: number) => toMajorUnits(minor, currency.digits);
      return {
        user: movement.holderType === 'user' ? await customerPayload(db, movement.vendorId, movement.holderId) : null,
        card: movement.holderType === 'card' ? { card_id: movement.holderId } : null,
        balance: {
          amount: major(movement.amount),
          total: major(movement.balance),
          currency: currencyPayload(currency),
          expiring: expiringByDay(lots, movement.balance).map((lot) => ({ amount: major(lot.amount), date: toUnixSeconds(lot.at) })),
        },
        transaction_detail: {
          entry_id: movement.entryId,
          kind: movement.kind,
          reference_type: movement.referenceType,
          reference_id: movement.referenceId,
          date_created: toUnixSeconds(movement.createdAt),
        },
      };
    },
  };
}

/** `customer.registered` (an account joined the program, in the app or at a counter) and `customer.updated` (profile changes, deactivation). */
export function recordCustomerEvent(db: Db, engine: Engine, type: 'customer.registered' | 'customer.updated', member: { vendorId: number; userId: number; via?: string }, time: EventTime = {}) {
  return recordWebhookEvent(db, engine, customerEvent(db, type, member, time));
}

/** recordCustomerEvent's event, unwritten (recordWebhookEvents writes many at once). */
export function customerEvent(db: Db, type: 'customer.registered' | 'customer.updated', member: { vendorId: number; userId: number; via?: string }, time: EventTime = {}): NewWebhookEvent {
  return {
    vendorId: member.vendorId,
    type,
    ...at(time),
    data: async () => ({ user: await customerPayload(db, member.vendorId, member.userId), ...(member.via ? { via: member.via } : {}) }),
  };
}

/** `customer.deleted`: the customer left the program (account deletion). Ids only: the person is erased. */
export function recordCustomerDeleted(db: Db, engine: Engine, member: { vendorId: number; userId: number }, time: EventTime = {}) {
  return recordWebhookEvent(db, engine, { vendorId: member.vendorId, type: 'customer.deleted', ...at(time), data: () => ({ user_id: member.userId }) });
}

export interface SessionFacts {
  id: number;
  vendor_id: number;
  store_id: number;
  pos_id: number | null;
  user_id: number;
  identified_by: string;
  opened_by: string;
  created_at: number;
}

/** `check_in.opened` and `check_in.closed` (reason: closed, order, moved, deleted, expired). */
export function recordCheckInEvent(
  db: Db,
  engine: Engine,
  type: 'check_in.opened' | 'check_in.closed',
  session: SessionFacts,
  closed: { at: number; reason: string } | null = null,
  time: EventTime = {},
) {
  return recordWebhookEvent(db, engine, {
    vendorId: session.vendor_id,
    type,
    ...at(time),
    data: async () => ({
      check_in_id: session.id,
      store_id: session.store_id,
      pos_id: session.pos_id,
      user: await customerPayload(db, session.vendor_id, session.user_id),
      identified_by: session.identified_by,
      opened_by: session.opened_by,
      date_created: toUnixSeconds(session.created_at),
      ...(closed ? { date_closed: toUnixSeconds(closed.at), closed_reason: closed.reason } : {}),
    }),
  });
}

/** Digits of the vendor's quick-pay currency (money amounts of orders, reloads, eGifts); 2 without one. */
async function cashDigits(db: Db, vendorId: number): Promise<number> {
  const row = await db
    .selectFrom('vendors as v')
    .leftJoin('currencies as c', 'c.id', 'v.quick_pay_currency_id')
    .select('c.code')
    .where('v.id', '=', vendorId)
    .executeTakeFirst();
  return row?.code ? minorUnitDigits(row.code) : 2;
}

/**
 * An order's points per loyalty currency, from its stored reply: `points_earned` and `points_spent`
 * add every currency up (40 points and 8 stamps read 48), so a program with several says each one's.
 */
function loyaltyOfOrder(reply: string): Array<{ currency: CurrencyPayload; earned: number; spent: number }> {
  const { earned, redeemed } = JSON.parse(reply) as Pick<OrderResult, 'earned' | 'redeemed'>;
  const byCurrency = new Map<number, { currency: CurrencyPayload; earned: number; spent: number }>();
  const entryOf = (currency: OrderResult['earned'][number]['currency']) => {
    let entry = byCurrency.get(currency.id);
    if (!entry) byCurrency.set(currency.id, (entry = { currency: currencyPayload(currency), earned: 0, spent: 0 }));
    return entry;
  };
  for (const e of earned ?? []) entryOf(e.currency).earned += e.points;
  for (const r of redeemed ?? []) entryOf(r.currency).spent += r.cost;
  return [...byCurrency.values()];
}

/** `order.placed` and `order.voided`: receipt, store, customer, totals, points earned and spent (in all and per currency), quick pay used. */
export function recordOrderEvent(db: Db, engine: Engine, type: 'order.placed' | 'order.voided', order: { id: number; vendorId: number }, time: EventTime = {}) {
  return recordWebhookEvent(db, engine, {
    vendorId: order.vendorId,
    type,
    ...at(time),
    data: async () => {
      const row = await db.selectFrom('orders').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
      const digits = await cashDigits(db, row.vendor_id);
      const money = (minor: number) => toMajorUnits(minor, digits);
      return {
        order_id: row.id,
        receipt_number: row.receipt_number,
        store_id: row.store_id,
        pos_id: row.pos_id,
        user: await customerPayload(db, order.vendorId, row.user_id),
        status: row.status,
        subtotal: money(row.subtotal),
        total: money(row.total),
        quick_pay_used: money(row.quick_pay_used),
        points_earned: row.points_earned,
        points_spent: row.points_spent,
        loyalty: loyaltyOfOrder(row.reply),
        date_ordered: toUnixSeconds(row.ordered_at),
        date_voided: row.voided_at === null ? null : toUnixSeconds(row.voided_at),
      };
    },
  });
}

/** `reload.succeeded` and `reload.failed`: a reload charged to a saved card (the app's reload or an auto reload). */
export function recordReloadEvent(db: Db, engine: Engine, type: 'reload.succeeded' | 'reload.failed', charge: { id: number; vendorId: number }, time: EventTime = {}) {
  return recordWebhookEvent(db, engine, {
    vendorId: charge.vendorId,
    type,
    ...at(time),
    data: async () => {
      const row = await db.selectFrom('payment_charges').selectAll().where('id', '=', charge.id).executeTakeFirstOrThrow();
      const digits = minorUnitDigits(row.currency);
      // The quick-pay currency charged; a charge older than that column (migration 0009) names only its ISO code.
      const currency = row.currency_id === null ? { currency_id: null, name: row.currency, code: row.currency } : currencyPayload(await currencyOf(db, row.currency_id));
      return {
        reload_id: row.id,
        user: row.user_id === null ? null : await customerPayload(db, charge.vendorId, row.user_id),
        automatic: row.purpose === 'auto_reload',
        amount: toMajorUnits(row.amount, digits),
        currency,
        status: row.status,
        // the gateway's word, as first published; decline_code is the API's code for it
        decline_reason: row.decline_reason,
        decline_code: row.decline_reason === null ? null : declineCode(row.decline_reason),
        transaction_id: row.transaction_id,
        date_created: toUnixSeconds(row.created_at),
      };
    },
  });
}

/** `auto_reload.ran`: the auto reload a spend queued has finished (completed, declined or cancelled). */
export function recordAutoReloadRan(db: Db, engine: Engine, autoReload: { id: number; vendorId: number }, time: EventTime = {}) {
  return recordWebhookEvent(db, engine, {
    vendorId: autoReload.vendorId,
    type: 'auto_reload.ran',
    ...at(time),
    data: async () => {
      const row = await db.selectFrom('auto_reloads').selectAll().where('id', '=', autoReload.id).executeTakeFirstOrThrow();
      const digits = await cashDigits(db, row.vendor_id);
      return {
        auto_reload_id: row.id,
        user: await customerPayload(db, autoReload.vendorId, row.user_id),
        amount: toMajorUnits(row.amount, digits),
        threshold: toMajorUnits(row.threshold, digits),
        order_id: row.order_id,
        reload_id: row.charge_id,
        status: row.status,
        date_created: toUnixSeconds(row.created_at),
      };
    },
  });
}

/** `egift.sent` (paid and emailed to the recipient) and `egift.claimed`. Never the claim code. */
export function recordEgiftEvent(db: Db, engine: Engine, type: 'egift.sent' | 'egift.claimed', egift: { id: number; vendorId: number }, time: EventTime = {}) {
  return recordWebhookEvent(db, engine, {
    vendorId: egift.vendorId,
    type,
    ...at(time),
    data: async () => {
      const row = await db.selectFrom('egifts').selectAll().where('id', '=', egift.id).executeTakeFirstOrThrow();
      const currency = await currencyOf(db, row.currency_id);
      return {
        egift_id: row.id,
        amount: toMajorUnits(row.amount, currency.digits),
        currency: currencyPayload(currency),
        buyer_email: row.buyer_email,
        recipient_email: row.recipient_email,
        claimed_by: row.claimed_by_user_id === null ? null : await customerPayload(db, egift.vendorId, row.claimed_by_user_id),
        status: row.status,
        date_created: toUnixSeconds(row.created_at),
      };
    },
  });
}

/** `tier.changed`: a member moved to another tier. */
export function recordTierChanged(
  db: Db,
  engine: Engine,
  change: { vendorId: number; userId: number; fromTierId: number | null; toTierId: number },
  time: EventTime = {},
) {
  return recordWebhookEvent(db, engine, {
    vendorId: change.vendorId,
    type: 'tier.changed',
    ...at(time),
    data: async () => {
      const tiers = await db.selectFrom('tiers').select(['id', 'public_id', 'name', 'threshold']).where('id', 'in', [change.toTierId, change.fromTierId ?? change.toTierId]).execute();
      const tier = (id: number | null) => {
        const row = tiers.find((t) => t.id === id);
        return row ? { tier_id: row.public_id, name: row.name, threshold: row.threshold } : null;
      };
      return { user: await customerPayload(db, change.vendorId, change.userId), from: tier(change.fromTierId), to: tier(change.toTierId) };
    },
  });
}

/** `points.expired`: the expiry job removed points from a customer's account (one event per account and run). */
export function recordPointsExpired(
  db: Db,
  engine: Engine,
  expiry: { vendorId: number; userId: number; currencyId: number; points: number; balance: number },
  time: EventTime = {},
) {
  return recordWebhookEvent(db, engine, {
    vendorId: expiry.vendorId,
    type: 'points.expired',
    ...at(time),
    data: async () => {
      const currency = await currencyOf(db, expiry.currencyId);
      return {
        user: await customerPayload(db, expiry.vendorId, expiry.userId),
        currency: currencyPayload(currency),
        points: expiry.points,
        balance: expiry.balance,
      };
    },
  });
}
