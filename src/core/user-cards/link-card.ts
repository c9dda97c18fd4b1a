import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { Engine } from '../engine';
import { holderBalance, openAccount, postEntry } from '../ledger/ledger';
import { recordTransaction } from '../orders/record-transaction';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';
import { recordUserCardCreated } from '../webhooks/events';
import { activeLinkOfCard, type CardRow } from './card-access';
import type { UserCardRow } from './user-card';

export const LINKED = 'ACTIVE';

export interface CardLink {
  link: UserCardRow;
  /** The link existed already (the same customer linked the same card again). */
  existed: boolean;
}

/**
 * Links a card of the vendor to a customer, inside the caller's transaction; every way a card gets
 * linked (the app's POST /user/card/add, in-store register with a card) comes through here.
 *
 * - The customer's own card again: the existing link. Someone else's: 409 card_already_linked.
 * - Only ACTIVE cards link (422 card_not_active).
 * - Value the card holds itself (a gift card's accounts) moves to the customer: per currency a
 *   pair of entries (out of the card, into the customer; both referencing the card) and one
 *   history record "card_link".
 * - A card whose value was claimed by one customer never links to another (409
 *   card_value_claimed): the value it carried and the history of that move stay with one owner.
 */
export async function linkCard(db: Kysely<DB>, engine: Engine, input: { vendorId: number; userId: number; card: CardRow; storeId: number | null }): Promise<CardLink> {
  const { card, vendorId, userId } = input;
  const existing = await activeLinkOfCard(db, card.id);
  if (existing) {
    if (existing.user_id === userId) return { link: existing, existed: true };
    throw new ServiceError('card_already_linked', undefined, 'number');
  }
  if (card.status !== 'ACTIVE') throw new ServiceError('card_not_active', `This card is ${card.status.toLowerCase()}: only active cards can be linked.`, 'number');
  const claimedBy = await db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select('a.holder_id')
    .where('e.kind', '=', CARD_VALUE_IN)
    .where('e.reference_type', '=', 'card')
    .where('e.reference_id', '=', String(card.id))
    .where('a.holder_id', '!=', userId)
    .executeTakeFirst();
  if (claimedBy) throw new ServiceError('card_value_claimed', undefined, 'number');

  const now = engine.clock.now();
  const link: UserCardRow = {
    id: await nextObjectId(db, engine.nodeId),
    user_id: userId,
    vendor_id: vendorId,
    card_id: card.id,
    status: LINKED,
    created_at: now,
    updated_at: now,
    removed_at: null,
  };
  await db.insertInto('user_cards').values(link).execute();
  await recordUserCardCreated(db, engine, { id: link.id, vendorId, userId, status: link.status, createdAt: now, updatedAt: now, card: { id: card.id, number: card.number } });
  await moveCardValue(db, engine, { vendorId, userId, cardId: card.id, cardNumber: card.number, storeId: input.storeId });
  return { link, existed: false };
}

export const CARD_VALUE_OUT = 'card_value_out';
export const CARD_VALUE_IN = 'card_value_in';

async function moveCardValue(db: Kysely<DB>, engine: Engine, input: { vendorId: number; userId: number; cardId: number; cardNumber: string; storeId: number | null }): Promise<void> {
  const accounts = await db
    .selectFrom('ledger_accounts as a')
    .innerJoin('currencies as c', 'c.id', 'a.currency_id')
    .select(['a.id', 'a.currency_id', 'a.balance', 'c.name', 'c.code'])
    .where('a.vendor_id', '=', input.vendorId)
    .where('a.holder_type', '=', 'card')
    .where('a.holder_id', '=', input.cardId)
    .where('a.balance', '>', 0)
    .execute();
  if (accounts.length === 0) return;
  const vendor = await db.selectFrom('vendors').select('quick_pay_currency_id').where('id', '=', input.vendorId).executeTakeFirstOrThrow();
  const reference = { referenceType: 'card', referenceId: String(input.cardId) };
  let quickPayLoaded = 0;
  const moved: Array<Record<string, unknown>> = [];
  for (const account of accounts) {
    const amount = Number(account.balance);
    await postEntry(db, engine, account.id, { amount: -amount, kind: CARD_VALUE_OUT, ...reference });
    const userAccount = await openAccount(db, engine, { vendorId: input.vendorId, currencyId: account.currency_id, holderType: 'user', holderId: input.userId });
    await postEntry(db, engine, userAccount, { amount, kind: CARD_VALUE_IN, ...reference });
    if (account.currency_id === vendor.quick_pay_currency_id) quickPayLoaded += amount;
    else moved.push({ object: 'reward', kind: 'card_value', name: `From card ${input.cardNumber}`, amount, currency: account.name });
  }
  const quickPayBalance =
    vendor.quick_pay_currency_id === null ? 0 : await holderBalance(db, { holderType: 'user', holderId: input.userId, currencyId: vendor.quick_pay_currency_id });
  await recordTransaction(db, engine, {
    vendorId: input.vendorId,
    userId: input.userId,
    storeId: input.storeId,
    orderId: null,
    kind: 'card_link',
    occurredAt: engine.clock.now(),
    total: quickPayLoaded,
    quickPayUsed: 0,
    quickPayLoaded,
    quickPayBalance,
    items: [],
    taxes: [],
    receipts: [{ card_number: input.cardNumber }],
    rewards: moved,
    status: 'Complete',
  });
}
