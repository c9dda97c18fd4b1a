import type { ExpressionBuilder, Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { type Engine, isChainCentral, transact } from '../engine';
import { overwriteOlderVersions, overwriteOlderVersionsOf } from '../sync/capture/overwrite-older-versions';
import { recordCheckInEvent, recordCustomerDeleted } from '../webhooks/events';
import { forgetPersonInWebhookEvents } from '../webhooks/forget-person';
import { detachQueuedCards, queueCardDetachments } from '../payments/billing-profiles/detach-cards';
import { queueMessage } from '../messaging/queue-message';
import type { DB } from '../storage/schema';
import { forgetOldPages } from '../storage/forget-old-pages';
import { publishAll, sessionEvent } from '../onscreen/pos-session';
import { loadUser, loadVendor, messageLocale } from './customer-store';
import { CODE_POLICY, consumeCode, issueCode } from './one-time-codes';
import { describeForfeit, forfeitHeldBalances, heldAtProgram, refuseWhileHoldingMoney } from './departure-balances';
import { WIPED_PERSON } from './personal-data';
import type { CustomerSession } from './sessions';
import { endAllSessions } from './sessions';
import { emailKey } from './contact';
import { forgetPersonInImportFiles } from '../import/forget-person-in-imports';

/**
 * Step 1 (DELETE /vendor/{vendor_id}/customers/{user_id}/submit): emails a deletion code. The path
 * must name the session's own vendor and account; any other is reported as not found. Money held
 * at the program refuses it unless `forfeitBalances` (409 stored_value_remaining); the email says
 * what the deletion gives up (money, points).
 */
export function requestAccountDeletion(engine: Engine, session: CustomerSession, target: { vendorId: number; userId: number }, forfeitBalances = false): Promise<void> {
  if (target.vendorId !== session.vendorId || target.userId !== session.userId) return Promise.reject(new ServiceError('user_not_found'));
  return transact(engine, async (trx) => {
    const [user, vendor] = await Promise.all([loadUser(trx, session.userId), loadVendor(trx, session.vendorId)]);
    if (!user.email) throw new ServiceError('validation_failed', 'The account has no email address to send the code to.', 'email_address');
    const held = await heldAtProgram(trx, vendor.id, user.id);
    refuseWhileHoldingMoney(held, forfeitBalances);
    const code = await issueCode(trx, engine, { userId: user.id, vendorId: vendor.id, purpose: 'account_deletion' });
    const locale = await messageLocale(trx, user.id, vendor);
    const forfeits = describeForfeit(held, locale);
    await queueMessage(trx, engine, {
      vendorId: vendor.id,
      channel: 'email',
      to: user.email,
      userId: user.id,
      template: 'account_deletion',
      locale,
      params: { first_name: user.first_name, code, vendor_name: vendor.name, expires_minutes: String(CODE_POLICY.account_deletion.ttlMinutes), ...(forfeits ? { forfeits } : {}) },
    });
  });
}

/**
 * Step 2 (DELETE /vendor/{vendor_id}/customers with the code): the customer leaves this vendor —
 * its profile, linked cards and app barcodes here are removed and its sessions end; its saved cards
 * (billing profiles) here are deleted, auto reload is turned off and auto reloads not yet charged
 * are cancelled. When no other vendor still holds the account, the person is erased: name, email,
 * phone, ids, address and password are wiped, the saved cards lose their cardholder name, postal
 * code, description and gateway token (the gateway detaches them: queued, sent after the commit),
 * eGifts lose the buyer's name and email (and the recipient's, for gifts they claimed), stored
 * webhook events (delivered or not) and rating comments lose them too, and the account can never
 * log in again. Ledger entries and
 * charges stay (they are the merchant's books) but point at an anonymous account, and so do the
 * billing profile rows they name (brand, last four digits and expiry only). Money still held at
 * the program refuses it unless `forfeitBalances` (asked again here: it may have come since the
 * code); what is held then goes to zero by `forfeit` entries, points included.
 */
export async function confirmAccountDeletion(engine: Engine, input: { vendorId: number; code: string; forfeitBalances?: boolean }): Promise<void> {
  const left = await transact(engine, async (trx) => {
    const consumed = await consumeCode(trx, engine, 'account_deletion', input.code);
    if (consumed.vendorId !== input.vendorId) throw new ServiceError('invalid_code', undefined, 'code');
    // Money may have come since the code was sent (a reload, an eGift): asked again. A refusal
    // rolls back, the code with it, so the same code confirms once the customer gives it up.
    refuseWhileHoldingMoney(await heldAtProgram(trx, consumed.vendorId, consumed.userId), input.forfeitBalances ?? false);
    return leaveProgram(trx, engine, consumed.userId, consumed.vendorId);
  });
  afterLeaving(engine, left);
}

/** What a departure closed (the queue's sessions, published after the commit) and whether the person was erased. */
export interface Departure {
  closedSessions: ReturnType<typeof sessionEvent>[];
  erased: boolean;
}

/**
 * The person leaves one program, inside the caller's transaction (the customer's confirmed request,
 * or staff acting on it: customer-care/remove-member.ts); see confirmAccountDeletion for what goes.
 * The callers decided that what is still held may go: it goes as breakage (forfeitHeldBalances).
 */
export async function leaveProgram(trx: Kysely<DB>, engine: Engine, userId: number, vendorId: number): Promise<Departure> {
  const now = engine.clock.now();
  await forfeitHeldBalances(trx, engine, userId, vendorId);
  await trx.updateTable('user_vendors').set({ removed_at: now, updated_at: now }).where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('removed_at', 'is', null).execute();
  await trx.updateTable('user_cards').set({ removed_at: now, status: 'REMOVED', updated_at: now }).where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('removed_at', 'is', null).execute();
  await trx.deleteFrom('barcode_tokens').where('user_id', '=', userId).where('vendor_id', '=', vendorId).execute();
  // Inbox messages can carry names (an eGift's buyer): they go with the membership.
  await trx.deleteFrom('inbox_messages').where('user_id', '=', userId).where('vendor_id', '=', vendorId).execute();
  await closePaymentsAtVendor(trx, now, userId, vendorId);
  await trx.updateTable('user_sessions').set({ ended_at: now }).where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('ended_at', 'is', null).execute();
  // A customer who leaves also leaves the store's queue.
  const open = await trx.selectFrom('pos_sessions').selectAll().where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('status', '=', 'active').execute();
  if (open.length > 0) {
    await trx
      .updateTable('pos_sessions')
      .set({ status: 'closed', closed_at: now, closed_reason: 'deleted', updated_at: now })
      .where('id', 'in', open.map((session) => session.id))
      .execute();
    for (const session of open) await recordCheckInEvent(trx, engine, 'check_in.closed', session, { at: now, reason: 'deleted' });
  }
  await recordCustomerDeleted(trx, engine, { vendorId, userId });
  const remaining = await trx.selectFrom('user_vendors').select('id').where('user_id', '=', userId).where('removed_at', 'is', null).executeTakeFirst();
  // The program's member import files kept for their day that name the person, read before anything blanks them.
  await forgetPersonInImportFiles(trx, engine.dialect, userId, vendorId);
  // Leaving a program takes the name out of its referral records and eGifts; an erasure, out of every program's.
  await forgetFriendInReferrals(trx, engine, userId, remaining ? vendorId : null);
  await forgetPersonInEgifts(trx, engine, userId, remaining ? vendorId : null);
  if (!remaining) await eraseAccount(trx, engine, userId);
  // The program's stores keep its orders without the name (docs/sync.md, "Customers who left a program").
  else await forgetPersonAtVendor(trx, engine, userId, vendorId);
  return { closedSessions: open.map((session) => sessionEvent('session.closed', session, now)), erased: !remaining };
}

/**
 * After the commit: the screens hear of the closed sessions; the gateway forgets the saved cards;
 * an SQLite node's WAL forgets the pages as they were before (forgetOldPages).
 */
export function afterLeaving(engine: Engine, departure: Departure): void {
  publishAll(engine, departure.closedSessions);
  // Best effort now; the jobs retry what the gateway did not take.
  void detachQueuedCards(engine).catch(() => undefined);
  void forgetOldPages(engine);
}

/**
 * A customer leaving a vendor can no longer be charged there: its billing profiles are deleted
 * (soft: charges and gifts still name them), auto reload is disabled (amount, threshold and profile
 * cleared) and queued auto reloads are cancelled. An auto reload whose charge already went to the
 * gateway (pending) is left to settle: cancelling it would lose track of money the gateway may take.
 */
async function closePaymentsAtVendor(db: Kysely<DB>, now: number, userId: number, vendorId: number): Promise<void> {
  await db
    .updateTable('billing_profiles')
    .set({ deleted_at: now, is_default: 0, updated_at: now })
    .where('user_id', '=', userId)
    .where('vendor_id', '=', vendorId)
    .where('deleted_at', 'is', null)
    .execute();
  await db
    .updateTable('user_vendors')
    .set({ reload_amount: 0, reload_threshold: 0, billing_profile_id: null, updated_at: now })
    .where('user_id', '=', userId)
    .where('vendor_id', '=', vendorId)
    .execute();
  await db
    .updateTable('auto_reloads')
    .set({ status: 'cancelled', last_error: 'account deleted', finished_at: now, updated_at: now })
    .where('user_id', '=', userId)
    .where('vendor_id', '=', vendorId)
    .where('status', '=', 'queued')
    .execute();
}

/**
 * Every email and phone the person is known by: today's, and those messages were sent to for them
 * before they changed it (messages_outbox.user_id, migration 0038). Emails as lookup keys.
 */
async function contactsOf(db: Kysely<DB>, userId: number, person: { email_key: string | null; phone: string | null }): Promise<{ emailKeys: string[]; phones: string[] }> {
  const sent = await db.selectFrom('messages_outbox').select(['channel', 'recipient']).where('user_id', '=', userId).where('recipient', '!=', '').execute();
  const emailKeys = new Set(person.email_key ? [person.email_key] : []);
  const phones = new Set(person.phone ? [person.phone] : []);
  for (const message of sent) {
    if (message.channel === 'email') emailKeys.add(emailKey(message.recipient));
    else phones.add(message.recipient);
  }
  return { emailKeys: [...emailKeys], phones: [...phones] };
}

/**
 * Sent messages keep their recipient; the erased person's addresses and numbers go from them, and
 * what was not sent yet (a gift's email, a code) is not sent to them any more.
 */
async function forgetMessagesTo(db: Kysely<DB>, userId: number, contacts: { emailKeys: string[]; phones: string[] }): Promise<void> {
  const addressedTo = (eb: ExpressionBuilder<DB, 'messages_outbox'>) =>
    eb.or([
      eb('user_id', '=', userId),
      ...(contacts.emailKeys.length > 0 ? [eb(eb.fn('lower', ['recipient']), 'in', contacts.emailKeys)] : []),
      ...(contacts.phones.length > 0 ? [eb('recipient', 'in', contacts.phones)] : []),
    ]);
  await db.updateTable('messages_outbox').set({ status: 'failed', last_error: 'recipient erased' }).where(addressedTo).where('status', '=', 'pending').execute();
  await db.updateTable('messages_outbox').set({ recipient: '', params: null }).where(addressedTo).execute();
}

/**
 * An order keeps its first reply, to answer the same order resent; the reply names the customer.
 * The replies stay (the merchant's books), without the name of the person erased, or who left
 * the order's program.
 */
async function forgetNamesInOrderReplies(db: Kysely<DB>, engine: Engine, userId: number, vendorId?: number): Promise<void> {
  const orders = await db
    .selectFrom('orders')
    .select(['id', 'reply', 'void_reply'])
    .where('user_id', '=', userId)
    .$if(vendorId !== undefined, (qb) => qb.where('vendor_id', '=', vendorId!))
    .execute();
  for (const order of orders) {
    await db
      .updateTable('orders')
      .set({ reply: withoutUserName(order.reply), void_reply: order.void_reply === null ? null : withoutUserName(order.void_reply) })
      .where('id', '=', order.id)
      .execute();
  }
  // Leaving one program: its orders' older versions in central's log (an erasure overwrites them all).
  if (vendorId !== undefined && isChainCentral(engine)) await overwriteOlderVersionsOf(db, 'orders', orders.map((order) => Number(order.id)));
}

function withoutUserName(reply: string): string {
  const parsed = JSON.parse(reply) as { user?: { firstName?: string; lastName?: string } };
  if (parsed.user) parsed.user = { ...parsed.user, firstName: '', lastName: '' };
  return JSON.stringify(parsed);
}

/**
 * A member's `referral` record says "<first name> joined" (join-by-referral.ts): the friend who
 * leaves that program, or is erased, becomes "A friend joined"; the points stay. A record has the
 * id of its ledger entry, which references the friend's account; records written before that link
 * are found by the same entries' referrer and the friend's first name (a namesake's unlinked record
 * then loses the name too). At a chain's central the log's older versions follow (rewriteHistoryItems).
 */
async function forgetFriendInReferrals(db: Kysely<DB>, engine: Engine, userId: number, vendorId: number | null): Promise<void> {
  const entries = await db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select(['e.id', 'e.vendor_id', 'a.holder_id'])
    .where('e.reference_type', '=', 'user')
    .where('e.reference_id', '=', String(userId))
    .where('e.kind', '=', 'referral')
    .where('a.holder_type', '=', 'user')
    .$if(vendorId !== null, (qb) => qb.where('e.vendor_id', '=', vendorId!))
    .execute();
  if (entries.length === 0) return;
  const { first_name } = await db.selectFrom('users').select('first_name').where('id', '=', userId).executeTakeFirstOrThrow();
  const linked = new Set(entries.map((entry) => Number(entry.id)));
  const records = await db
    .selectFrom('transactions')
    .select(['id', 'rewards'])
    .where((eb) => eb.or(entries.map((entry) => eb.and([eb('user_id', '=', Number(entry.holder_id)), eb('vendor_id', '=', entry.vendor_id)]))))
    .where('kind', '=', 'referral')
    .execute();
  // A record linked to another friend's entry names that friend, whatever their first name.
  const linkedToOthers = await referralEntryIds(db, records.map((record) => Number(record.id)).filter((id) => !linked.has(id)));
  await rewriteHistoryItems<{ kind?: string; name?: string }>(db, engine, 'rewards', records.map((record) => ({ id: Number(record.id), items: record.rewards })), (reward, recordId) => {
    const byLink = linked.has(recordId);
    const byName = !byLink && !linkedToOthers.has(recordId);
    const names = reward.kind === 'referral' && (byLink || (byName && reward.name === `${first_name} joined`));
    return names ? { ...reward, name: 'A friend joined' } : null;
  });
}

/**
 * eGifts of the programs the person leaves (every program's for an erasure) keep their amounts and
 * charges (the merchant's books), not who bought or received them; a claimed gift's history record,
 * the recipient's, says who sent it (`from`, claim-egift.ts) and loses that name too, the amount
 * staying. The buyer's gifts are found by their account, or their email for a guest purchase. At a
 * chain's central the log's older versions of the records follow (rewriteHistoryItems); eGifts
 * themselves never leave central.
 */
async function forgetPersonInEgifts(db: Kysely<DB>, engine: Engine, userId: number, vendorId: number | null): Promise<void> {
  const { email_key } = await db.selectFrom('users').select('email_key').where('id', '=', userId).executeTakeFirstOrThrow();
  const boughtBy = (eb: ExpressionBuilder<DB, 'egifts'>) => eb.or([eb('egifts.buyer_user_id', '=', userId), ...(email_key ? [eb(eb.fn('lower', ['egifts.buyer_email']), '=', email_key)] : [])]);
  const records = await db
    .selectFrom('egifts')
    .innerJoin('transactions as t', 't.id', 'egifts.claim_transaction_id')
    .select(['t.id', 't.receipts'])
    .where(boughtBy)
    .$if(vendorId !== null, (qb) => qb.where('egifts.vendor_id', '=', vendorId!))
    .execute();
  await rewriteHistoryItems<{ object?: string; from?: string }>(db, engine, 'receipts', records.map((record) => ({ id: Number(record.id), items: record.receipts })), (receipt) =>
    receipt.object === 'egift' && receipt.from ? { ...receipt, from: '' } : null,
  );
  const now = engine.clock.now();
  await db
    .updateTable('egifts')
    // The message is the buyer's free text (it may name or reach them, or the recipient): it goes whole.
    .set({ buyer_name: '', buyer_email: '', message: null, updated_at: now })
    .where(boughtBy)
    .$if(vendorId !== null, (qb) => qb.where('vendor_id', '=', vendorId!))
    .execute();
  // A guest purchase's charge keeps the buyer's contact for staff (migration 0041): it goes too.
  if (email_key) {
    await db
      .updateTable('payment_charges')
      .set({ buyer_name: null, buyer_email: null })
      .where((eb) => eb(eb.fn('lower', ['buyer_email']), '=', email_key))
      .$if(vendorId !== null, (qb) => qb.where('vendor_id', '=', vendorId!))
      .execute();
  }
  await db
    .updateTable('egifts')
    .set({ recipient_name: '', recipient_email: '', message: null, updated_at: now })
    .where('claimed_by_user_id', '=', userId)
    .$if(vendorId !== null, (qb) => qb.where('vendor_id', '=', vendorId!))
    .execute();
}

/**
 * Rewrites items of history records' JSON lists (`rewrite` answers the new item, or null to keep
 * it) and saves the records that changed; at a chain's central their older versions in the log
 * become the new one, so no store pulling from the log's start reads what was taken out.
 */
async function rewriteHistoryItems<Item>(
  db: Kysely<DB>,
  engine: Engine,
  column: 'rewards' | 'receipts',
  records: Array<{ id: number; items: string }>,
  rewrite: (item: Item, recordId: number) => Item | null,
): Promise<void> {
  const changed: number[] = [];
  for (const record of records) {
    let touched = false;
    const items = (JSON.parse(record.items) as Item[]).map((item) => {
      const next = rewrite(item, record.id);
      if (next === null) return item;
      touched = true;
      return next;
    });
    if (!touched) continue;
    await db.updateTable('transactions').set({ [column]: JSON.stringify(items) }).where('id', '=', record.id).execute();
    changed.push(record.id);
  }
  if (isChainCentral(engine)) await overwriteOlderVersionsOf(db, 'transactions', changed);
}

/** Which of these ids are referral ledger entries (a record with one's id was written with that link). */
async function referralEntryIds(db: Kysely<DB>, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('ledger_entries').select('id').where('id', 'in', ids).where('kind', '=', 'referral').execute();
  return new Set(rows.map((row) => Number(row.id)));
}

/**
 * A customer leaves one program and stays in others: that program keeps its records (orders,
 * ledger, charges) without the person — their name in its order replies, its webhook events, their
 * ratings' comments there and the cardholder of the cards they saved there (detached at the
 * gateway too). The account and what other programs hold stay.
 */
async function forgetPersonAtVendor(db: Kysely<DB>, engine: Engine, userId: number, vendorId: number): Promise<void> {
  await forgetNamesInOrderReplies(db, engine, userId, vendorId);
  const person = await db.selectFrom('users').select(['email_key', 'phone']).where('id', '=', userId).executeTakeFirstOrThrow();
  await forgetPersonInWebhookEvents(db, { userId, ...(await contactsOf(db, userId, person)) }, vendorId);
  const commented = await db.selectFrom('transactions').select('id').where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('rating_comment', 'is not', null).execute();
  if (commented.length > 0) {
    const ids = commented.map((row) => Number(row.id));
    await db.updateTable('transactions').set({ rating_comment: null }).where('id', 'in', ids).execute();
    if (isChainCentral(engine)) await overwriteOlderVersionsOf(db, 'transactions', ids);
  }
  await forgetSavedCards(db, engine, userId, vendorId);
}

/**
 * The person's saved cards (at one program, or at all): the rows stay for the charges that name
 * them, without anything that identifies the cardholder or could be charged again; the gateway is
 * asked to forget them too (queued here, sent after the commit and by the jobs).
 */
async function forgetSavedCards(db: Kysely<DB>, engine: Engine, userId: number, onlyVendorId?: number): Promise<void> {
  await queueCardDetachments(db, engine, userId, onlyVendorId);
  await db
    .updateTable('billing_profiles')
    .set({ name: '', postal_code: null, description: null, token: '', is_default: 0, updated_at: engine.clock.now() })
    .where('user_id', '=', userId)
    .$if(onlyVendorId !== undefined, (qb) => qb.where('vendor_id', '=', onlyVendorId!))
    .execute();
}

async function eraseAccount(db: Kysely<DB>, engine: Engine, userId: number): Promise<void> {
  const now = engine.clock.now();
  await forgetSavedCards(db, engine, userId);
  const person = await db.selectFrom('users').select(['email_key', 'phone']).where('id', '=', userId).executeTakeFirstOrThrow();
  const contacts = await contactsOf(db, userId, person);
  await forgetMessagesTo(db, userId, contacts);
  await forgetNamesInOrderReplies(db, engine, userId);
  await forgetPersonInWebhookEvents(db, { userId, ...contacts });
  // A rating's comment is the person's own free text: it may name them in any form, so it goes
  // whole; the rating itself stays (the store's score).
  await db.updateTable('transactions').set({ rating_comment: null }).where('user_id', '=', userId).where('rating_comment', 'is not', null).execute();
  await db.updateTable('billing_profiles').set({ deleted_at: now }).where('user_id', '=', userId).where('deleted_at', 'is', null).execute();
  await db
    .updateTable('users')
    .set({ ...WIPED_PERSON, password_hash: null, status: 'deleted', updated_at: now })
    .where('id', '=', userId)
    .execute();
  // Copies of the person a store made before central knew them, merged into this account on arrival
  // (sync): they kept the name and address the store was given.
  await db.updateTable('users').set({ ...WIPED_PERSON, password_hash: null, updated_at: now }).where('merged_into', '=', userId).execute();
  await db.deleteFrom('user_metadata').where('user_vendor_id', 'in', db.selectFrom('user_vendors').select('id').where('user_id', '=', userId)).execute();
  await db.deleteFrom('one_time_codes').where('user_id', '=', userId).execute();
  await db.deleteFrom('inbox_messages').where('user_id', '=', userId).execute();
  // The audit log keeps that staff gave them an email, not which one.
  await db
    .updateTable('audit_log')
    .set({ after: JSON.stringify({ email: '' }) })
    .where('object_type', '=', 'customer')
    .where('object_id', '=', String(userId))
    .where('action', '=', 'customer.email_added')
    .execute();
  await endAllSessions(db, engine, userId);
  // Central's change log still holds the versions written before (stores read it from its start).
  if (isChainCentral(engine)) for (const table of ['users', 'orders', 'transactions'] as const) await overwriteOlderVersions(db, table, userId);
}
