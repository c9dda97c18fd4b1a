import type { Kysely } from 'kysely';
import { isServiceError, ServiceError } from '../../shared/errors';
import { cardNumberKey } from '../cards/card';
import { hashSecret } from '../credentials/secrets';
import { looksLikeEmail, emailKey, toE164 } from '../customers/contact';
import { findUserByCedula, findUserByEmail, findUserByPhone, type UserRow } from '../customers/customer-store';
import { BARCODE_TOKEN_PREFIX } from '../customers/barcode-token';
import { normaliseNationalId } from '../customers/national-id';
import type { Engine } from '../engine';
import type { DB } from '../storage/schema';

export type IdentifiedBy = 'token' | 'email' | 'card' | 'cedula' | 'passport' | 'phone';

export interface Identified {
  user: UserRow;
  by: IdentifiedBy;
  /** The card's number as stored, when a card identified the customer. */
  cardNumber: string | null;
}

const TOKEN = new RegExp(`^${BARCODE_TOKEN_PREFIX}[0-9A-Z]{16}$`, 'i');

/**
 * Finds the customer behind whatever the counter was given in `card_number`, trying in turn: an
 * app barcode token (PC…), an email address, a card of the vendor linked to a customer, a cedula,
 * a passport number, and a mobile number (read with the store's country when it has no +code).
 * The first kind that matches decides; each lookup matches existing data only, so a number that is
 * a card here is never mistaken for a phone.
 */
export async function identifyCustomer(
  db: Kysely<DB>,
  engine: Engine,
  input: { vendorId: number; country: string; identification: string },
): Promise<Identified> {
  const found = await findIdentifiedCustomer(db, engine, input);
  refuseUnservedAccount(found.user, 'card_number');
  return found;
}

/**
 * identifyCustomer without its refusal of deleted and deactivated accounts, for a caller that must
 * first check the customer is its program's (central answering a store: the account's state of
 * another program's customer is not the store's to learn).
 */
export async function findIdentifiedCustomer(
  db: Kysely<DB>,
  engine: Engine,
  input: { vendorId: number; country: string; identification: string },
): Promise<Identified> {
  const value = input.identification.trim();
  if (value === '' || value.length > 254) throw new ServiceError('validation_failed', 'card_number must hold a card number, phone, email or app code.', 'card_number');
  const found = await lookUp(db, engine, input.vendorId, input.country, value);
  // A store still receiving the chain's customers cannot tell "unknown" from "not here yet": it
  // says so, so nobody registers a customer twice.
  if (!found && !engine.centralLink.firstSyncDone) throw new ServiceError('first_sync_in_progress', undefined, 'card_number');
  if (!found) throw new ServiceError('customer_not_found', undefined, 'card_number');
  return found;
}

/**
 * A deleted account is unknown at the counter, a deactivated one is refused: however the counter
 * reached the customer (an identification, or a session opened before the account changed).
 */
export function refuseUnservedAccount(user: Pick<UserRow, 'status'>, field: string): void {
  if (user.status === 'deleted') throw new ServiceError('customer_not_found', undefined, field);
  if (user.status === 'inactive') throw new ServiceError('account_inactive', undefined, field);
}

/**
 * Runs a command that identifies a customer. On a store still taking its first sync, a customer
 * not here yet is asked of central (their rows are written here, docs/sync.md "A customer before
 * their turn") and the command runs once more: the counter need not wait for the whole chain.
 */
export async function withCustomerFromCentral<T>(engine: Engine, identification: string | undefined, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    const askCentral = engine.centralLink.customerFromCentral;
    const notHereYet = isServiceError(error) && error.code === 'first_sync_in_progress' && error.field === 'card_number';
    if (!notHereYet || !askCentral || !identification || !(await askCentral(identification.trim()))) throw error;
    return command();
  }
}

async function lookUp(db: Kysely<DB>, engine: Engine, vendorId: number, country: string, value: string): Promise<Identified | undefined> {
  const withUser = async (by: IdentifiedBy, user: UserRow | undefined, cardNumber: string | null = null) => (user ? { user, by, cardNumber } : undefined);

  if (TOKEN.test(value)) {
    const token = await db
      .selectFrom('barcode_tokens')
      .select(['user_id', 'expires_at'])
      .where('token_hash', '=', hashSecret(value.toUpperCase()))
      .where('vendor_id', '=', vendorId)
      .executeTakeFirst();
    if (!token || token.expires_at <= engine.clock.now()) {
      throw new ServiceError('customer_not_found', 'This app code is not valid or has expired: ask the customer to open it again.', 'card_number');
    }
    return withUser('token', await db.selectFrom('users').selectAll().where('id', '=', token.user_id).executeTakeFirst());
  }
  if (looksLikeEmail(value)) return withUser('email', await findUserByEmail(db, emailKey(value)));

  if (/^[A-Za-z0-9]{1,64}$/.test(value)) {
    const card = await db
      .selectFrom('cards')
      .select(['id', 'number', 'status'])
      .where('vendor_id', '=', vendorId)
      .where('number_key', '=', cardNumberKey(value))
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (card) {
      if (card.status !== 'ACTIVE') throw new ServiceError('card_not_active', `This card is ${card.status.toLowerCase()} and cannot be used to check in.`, 'card_number');
      const link = await db.selectFrom('user_cards').select('user_id').where('card_id', '=', card.id).where('removed_at', 'is', null).executeTakeFirst();
      if (!link) throw new ServiceError('card_not_linked', undefined, 'card_number');
      return withUser('card', await db.selectFrom('users').selectAll().where('id', '=', link.user_id).executeTakeFirst(), card.number);
    }
  }
  // National ids are written with dots and dashes (17.100.240-65): compare them without.
  const nationalId = normaliseNationalId(value);
  if (/^[0-9A-Z]{4,20}$/.test(nationalId)) {
    const byCedula = await findUserByCedula(db, nationalId);
    if (byCedula) return withUser('cedula', byCedula);
    const byPassport = await db.selectFrom('users').selectAll().where('passport_number', '=', nationalId).where('status', '!=', 'deleted').executeTakeFirst();
    if (byPassport) return withUser('passport', byPassport);
  }
  const phone = toE164(value, { country });
  return phone ? withUser('phone', await findUserByPhone(db, phone)) : undefined;
}
