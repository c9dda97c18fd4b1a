import type { Kysely } from 'kysely';
import { emailKey, isEmail, isPhone } from '../../customers/contact';
import { survivingCustomerId } from '../../customers/customer-store';
import { mayVouchForContacts } from '../../customers/other-programs';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import { recordCustomerEvent } from '../../webhooks/events';
import type { PairedNode } from './apply-push';
import { hasMembership } from './push-scope';
import { recordSyncException } from './sync-exceptions';
import type { SyncExceptionKind } from '../../../shared/sync-exception-kinds';
import { customerSubject } from '../../../shared/exception-subject';

// A customer's row is central's (profile changes, passwords, deletion are forwarded to it), except
// what a store's counter changes locally (POST /onscreen/register, register-in-store.ts): the
// passport number of an existing customer, and a contact (email, phone) the customer had none of.
// Whatever else a store's copy says is ignored, and the row is touched either way, so central's
// current version is logged and flows back.

/** Letters and digits, upper case, 5 to 20: what cleanPassportNumber stores. */
const PASSPORT = /^[0-9A-Z]{5,20}$/;

type Row = Record<string, unknown>;

/**
 * Applies a store's copy of a customer central has. A merged customer's changes go to the one they
 * were merged into; a deleted account takes nothing back. A passport, email or phone another account
 * holds stays there (one account each) with an exception for staff; a contact central's copy already
 * has is the customer's and stays (the store's copy may just be older).
 */
export async function updateCustomerFromStore(trx: Kysely<DB>, engine: Engine, node: PairedNode, existing: Row, data: Row): Promise<void> {
  const id = Number(existing['id']);
  await noteContactsKept(trx, engine, node, existing, data);
  const passport = data['passport_number'];
  const passportSent = 'passport_number' in data && (passport === null || (typeof passport === 'string' && PASSPORT.test(passport))) && passport !== existing['passport_number'];
  const email = existing['email'] == null && typeof data['email'] === 'string' && isEmail(data['email']) ? data['email'] : null;
  const phone = existing['phone'] == null && typeof data['phone'] === 'string' && isPhone(data['phone']) ? data['phone'] : null;
  if (passportSent || email !== null || phone !== null) {
    const targetId = existing['merged_into'] == null ? id : await survivingCustomerId(trx, id);
    const target = targetId === id ? existing : await trx.selectFrom('users').selectAll().where('id', '=', targetId).executeTakeFirst();
    if (target && target['status'] !== 'deleted' && target['status'] !== 'merged' && (await hasMembership(trx, targetId, node.vendorId)) && (await theProgramsOwn(trx, engine, node, targetId))) {
      const taken = await takeStoreContacts(trx, engine, node, target, { ...(passportSent ? { passport: passport as string | null } : {}), email, phone }, Number(data['updated_at']) || 0);
      if (taken && targetId === id) return;
    }
  }
  // Nothing taken for this row: touch it, so central's version is logged and flows back.
  await trx.updateTable('users').set({ id }).where('id', '=', id).execute();
}

/**
 * Whether the store's program may set a contact or passport number of this customer: not when they
 * belong to another program too (register-in-store.ts refuses it online; a store that cannot see the
 * other membership sends it, and staff learn it was not taken).
 */
async function theProgramsOwn(trx: Kysely<DB>, engine: Engine, node: PairedNode, userId: number): Promise<boolean> {
  if (await mayVouchForContacts(trx, userId, node.vendorId)) return true;
  await recordSyncException(trx, engine, node, 'contact_kept', customerSubject(userId), { key: 'contact_of_other_program', params: { customer: userId } });
  return false;
}

/** The columns of a change a counter narrowed to what it set (outbox/narrow-loose-change.ts). */
const COUNTER_SET = new Set(['id', 'updated_at', 'email', 'email_key', 'phone', 'passport_number']);

/**
 * A contact a counter added to a customer who had none, while the customer got another at central:
 * central's stays (the customer's own), and staff learn of the one not taken (`contact_kept`). Only
 * from a change narrowed to what the counter set: any other copy of the row may simply be older.
 */
async function noteContactsKept(trx: Kysely<DB>, engine: Engine, node: PairedNode, existing: Row, data: Row): Promise<void> {
  if (!Object.keys(data).every((column) => COUNTER_SET.has(column))) return;
  const id = Number(existing['id']);
  const kept = async (contact: 'email' | 'phone', added: string, held: unknown) =>
    recordSyncException(trx, engine, node, 'contact_kept', customerSubject(id), { key: 'contact_kept', params: { contact, added, customer: id, held: String(held) } });
  const email = data['email'];
  if (typeof email === 'string' && isEmail(email) && existing['email'] != null && emailKey(email) !== existing['email_key']) await kept('email', email, existing['email']);
  const phone = data['phone'];
  if (typeof phone === 'string' && isPhone(phone) && existing['phone'] != null && phone !== existing['phone']) await kept('phone', phone, existing['phone']);
}

/**
 * A customer registered offline at a counter with the email or phone of one central has, now merged
 * into them (apply-push.ts): the survivor takes the contacts it lacks from that registration, as the
 * counter adds them online (register-in-store.ts) — but not from a kiosk's, where anyone may type a
 * stranger's phone beside their own email.
 */
export async function giveSurvivorTheContacts(trx: Kysely<DB>, engine: Engine, node: PairedNode, survivorId: number, data: Row, atKiosk: boolean): Promise<void> {
  if (atKiosk) return;
  const target = await trx.selectFrom('users').selectAll().where('id', '=', survivorId).executeTakeFirst();
  if (!target || target.status === 'deleted' || target.status === 'merged') return;
  const email = target.email == null && typeof data['email'] === 'string' && isEmail(data['email']) ? data['email'] : null;
  const phone = target.phone == null && typeof data['phone'] === 'string' && isPhone(data['phone']) ? data['phone'] : null;
  const passport = target.passport_number == null && typeof data['passport_number'] === 'string' && PASSPORT.test(data['passport_number']) ? data['passport_number'] : undefined;
  if (email === null && phone === null && passport === undefined) return;
  if (!(await theProgramsOwn(trx, engine, node, survivorId))) return;
  await takeStoreContacts(trx, engine, node, target, { ...(passport === undefined ? {} : { passport }), email, phone }, Number(data['updated_at']) || 0);
}

/**
 * Gives `target` the store's passport (when sent) and the email and phone it lacks, each unless
 * another account holds it (then an exception for staff). Returns whether anything was taken.
 */
async function takeStoreContacts(
  trx: Kysely<DB>,
  engine: Engine,
  node: PairedNode,
  target: Row,
  given: { passport?: string | null; email: string | null; phone: string | null },
  storeUpdatedAt: number,
): Promise<boolean> {
  const targetId = Number(target['id']);
  const others = trx.selectFrom('users').select('id').where('status', '!=', 'deleted').where('id', '!=', targetId);
  const changes: Row = {};
  const conflict = (kind: SyncExceptionKind, contact: 'passport' | 'email' | 'phone', value: string, holder: { id: number }) =>
    recordSyncException(trx, engine, node, kind, customerSubject(targetId), { key: 'contact_held', params: { contact, value, holder: Number(holder.id), customer: targetId } });
  const { passport, email, phone } = given;
  if (passport !== undefined && passport !== target['passport_number']) {
    const holder = passport === null ? undefined : await others.where('passport_number', '=', passport).executeTakeFirst();
    if (holder) await conflict('passport_conflict', 'passport', String(passport), holder);
    else changes['passport_number'] = passport;
  }
  if (email !== null && target['email'] == null) {
    const key = emailKey(email);
    const holder = await others.where('email_key', '=', key).executeTakeFirst();
    if (holder) await conflict('email_conflict', 'email', email, holder);
    else Object.assign(changes, { email, email_key: key, email_verified_at: null });
  }
  if (phone !== null && target['phone'] == null) {
    const holder = await others.where('phone', '=', phone).executeTakeFirst();
    if (holder) await conflict('phone_conflict', 'phone', phone, holder);
    else changes['phone'] = phone;
  }
  if (Object.keys(changes).length === 0) return false;
  // The newer of the two times, so a later change at central is not dated before this one.
  const updatedAt = Math.max(Number(target['updated_at']), storeUpdatedAt);
  await trx.updateTable('users').set({ ...changes, updated_at: updatedAt }).where('id', '=', targetId).execute();
  if ('email' in changes || 'phone' in changes) await recordCustomerEvent(trx, engine, 'customer.updated', { vendorId: node.vendorId, userId: targetId });
  return true;
}
