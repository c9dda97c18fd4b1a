import type { Kysely } from 'kysely';
import { cardNumberKey, serialiseCardData } from '../cards/card';
import { emailKey } from '../customers/contact';
import { entryTier, newMembershipRow, newUserRow } from '../customers/customer-store';
import type { Engine } from '../engine';
import { programMessage } from '../inbox/program-messages';
import { transactionRow } from '../orders/record-transaction';
import { newPublicId, nextObjectIds } from '../storage/ids';
import type { DB } from '../storage/schema';
import { LINKED } from '../user-cards/link-card';
import { balanceUpdatedEvent, customerEvent, userCardCreatedEvent } from '../webhooks/events';
import { type NewWebhookEvent, recordWebhookEvents } from '../webhooks/record-event';
import type { MemberRow } from './member-row';
import { IMPORT_KIND, type ImportProgram, openingHistory, openingPoints, openingReference } from './write-member';

/** What every new member of a batch shares, read once in the batch's transaction. */
export interface BatchContext {
  /** The entry tier (lowest threshold) each membership starts in. */
  tierId: number | null;
  /** The welcome message in a member's language (null: the vendor's), as welcomeMember words it. */
  welcome: (language: string | null) => { title: string; body: string };
}

export async function readBatchContext(trx: Kysely<DB>, vendorId: number): Promise<BatchContext> {
  const vendor = await trx.selectFrom('vendors').select(['name', 'language']).where('id', '=', vendorId).executeTakeFirstOrThrow();
  return {
    tierId: (await entryTier(trx, vendorId))?.id ?? null,
    welcome: (language) => programMessage('welcome', language ?? vendor.language, { vendor: vendor.name }),
  };
}

/**
 * New members that writeMember would write one by one (rows decideMember took, none with a card
 * the program has already: linking one may move its value, which writeMember does), written with
 * one multi-row statement per table: the same rows (customers, memberships in the entry tier,
 * welcome messages, cards and their links, ledger accounts and entries of kind `import`, history
 * records), with ids in the order writeMember takes them. An account opens with its entry's
 * amount rather than at 0 and then moved: nothing reads it in between. The webhook events, with
 * the data the usual writers build, are written after (recordWebhookEvents: the endpoints read
 * once, nothing built when none wants them). Returns each row's
 * customer id. Any failure leaves the caller's savepoint to roll back: every row is then written
 * alone (import-members.ts).
 */
export async function addNewMembers(trx: Kysely<DB>, engine: Engine, program: ImportProgram, context: BatchContext, rows: readonly MemberRow[]): Promise<number[]> {
  const { vendorId } = program;
  const now = engine.clock.now();
  const credits = (row: MemberRow) => [
    ...openingPoints(program, row, now).map((lot) => ({ currencyId: lot.currency.id, amount: lot.points, expiresAt: lot.expiresAt })),
    ...(row.quickPay > 0 && program.quickPay ? [{ currencyId: program.quickPay.id, amount: row.quickPay, expiresAt: null }] : []),
  ];
  const idsOf = (row: MemberRow) => 3 + (row.card ? 2 : 0) + 2 * credits(row).length + (credits(row).length > 0 ? 1 : 0);
  const ids = await nextObjectIds(trx, engine.nodeId, rows.reduce((sum, row) => sum + idsOf(row), 0));
  let next = 0;
  const take = () => ids[next++]!;

  const users = [];
  const memberships = [];
  const messages = [];
  const cards = [];
  const links = [];
  const accounts = [];
  const entries = [];
  const history = [];
  const events: NewWebhookEvent[] = [];
  for (const row of rows) {
    const user = newUserRow(take(), { email: row.email, email_key: row.email ? emailKey(row.email) : null, password_hash: null, first_name: row.firstName, last_name: row.lastName, phone: row.phone, cedula: null, birthdate: row.birthdate, first_vendor_id: vendorId }, now);
    users.push(user);
    // A new account has no former membership whose block would carry over.
    memberships.push(newMembershipRow(take(), { userId: user.id, vendorId, contactConsent: row.contactConsent, language: row.language }, context.tierId, undefined, now));
    messages.push({ id: take(), vendor_id: vendorId, user_id: user.id, kind: 'welcome', ...context.welcome(row.language), dedupe_key: 'welcome', created_at: now, read_at: null, deleted_at: null });
    events.push(customerEvent(trx, 'customer.registered', { vendorId, userId: user.id, via: 'import' }));
    if (row.card) {
      const card = { id: take(), public_id: newPublicId('card'), vendor_id: vendorId, number: row.card, number_key: cardNumberKey(row.card), pin_sealed: null, data: serialiseCardData(undefined), status: 'ACTIVE', created_at: now, updated_at: now, deleted_at: null };
      const link = { id: take(), user_id: user.id, vendor_id: vendorId, card_id: card.id, status: LINKED, created_at: now, updated_at: now, removed_at: null };
      cards.push(card);
      links.push(link);
      events.push(userCardCreatedEvent(trx, { id: link.id, vendorId, userId: user.id, status: link.status, createdAt: now, updatedAt: now, card: { id: card.id, number: card.number } }));
    }
    const reference = openingReference(program, row);
    for (const credit of credits(row)) {
      const account = { id: take(), vendor_id: vendorId, currency_id: credit.currencyId, holder_type: 'user' as const, holder_id: user.id, balance: credit.amount, updated_at: now };
      const entry = { id: take(), vendor_id: vendorId, account_id: account.id, amount: credit.amount, kind: IMPORT_KIND, reference_type: reference.referenceType, reference_id: reference.referenceId, reverses_id: null, origin_node: engine.nodeId, created_at: now, expires_at: credit.expiresAt };
      accounts.push(account);
      entries.push(entry);
      events.push(balanceUpdatedEvent(trx, engine, { vendorId, accountId: account.id, holderType: 'user', holderId: user.id, currencyId: credit.currencyId, entryId: entry.id, amount: credit.amount, balance: credit.amount, kind: IMPORT_KIND, ...reference, createdAt: now }));
    }
    if (credits(row).length > 0) history.push(transactionRow(take(), openingHistory(program, user.id, row, program.quickPay ? row.quickPay : 0, now), now));
  }

  await trx.insertInto('users').values(users).execute();
  await trx.insertInto('user_vendors').values(memberships).execute();
  await trx.insertInto('inbox_messages').values(messages).execute();
  if (cards.length > 0) await trx.insertInto('cards').values(cards).execute();
  if (links.length > 0) await trx.insertInto('user_cards').values(links).execute();
  if (accounts.length > 0) await trx.insertInto('ledger_accounts').values(accounts).execute();
  if (entries.length > 0) await trx.insertInto('ledger_entries').values(entries).execute();
  if (history.length > 0) await trx.insertInto('transactions').values(history).execute();
  await recordWebhookEvents(trx, engine, vendorId, events);
  return users.map((user) => user.id);
}
