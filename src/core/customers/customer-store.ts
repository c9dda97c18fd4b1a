import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { emailKey } from './contact';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import { prepared } from '../storage/prepared';
import type { DB, UserVendorsTable, UsersTable, VendorsTable } from '../storage/schema';
import { welcomeMember } from '../inbox/announce';
import { recordCustomerEvent } from '../webhooks/events';

export type UserRow = Selectable<UsersTable>;
export type UserVendorRow = Selectable<UserVendorsTable>;
export type VendorRow = Selectable<VendorsTable>;

export async function loadVendor(db: Kysely<DB>, vendorId: number): Promise<VendorRow> {
  const vendor = await db.selectFrom('vendors').selectAll().where('id', '=', vendorId).executeTakeFirst();
  if (!vendor) throw new ServiceError('vendor_not_found', undefined, 'vendor');
  return vendor;
}

export function verificationMethodsOf(vendor: VendorRow): Array<'Email' | 'Sms'> {
  return (JSON.parse(vendor.verification_methods) as string[]).filter((m): m is 'Email' | 'Sms' => m === 'Email' || m === 'Sms');
}

export type NewUser = Pick<UserRow, 'email' | 'email_key' | 'password_hash' | 'first_name' | 'last_name' | 'phone' | 'cedula' | 'birthdate' | 'first_vendor_id'>;

/** Creates an active account; everything not given starts empty. */
export async function insertUser(db: Kysely<DB>, engine: Engine, fields: NewUser): Promise<UserRow> {
  const user = newUserRow(await nextObjectId(db, engine.nodeId), fields, engine.clock.now());
  await db.insertInto('users').values(user).execute();
  return user;
}

/** The row of a new active account (insertUser's; the member import writes many at once). */
export function newUserRow(id: number, fields: NewUser, now: number): UserRow {
  return {
    id,
    ...fields,
    passport_number: null,
    merged_into: null,
    address1: null,
    address2: null,
    city: null,
    region_id: null,
    country_id: null,
    postal_code: null,
    pet_name: null,
    pet_birthdate: null,
    email_verified_at: null,
    phone_verified_at: null,
    status: 'active',
    failed_logins: 0,
    locked_until: null,
    created_at: now,
    updated_at: now,
  };
}

const userById = prepared((db, userId: number) => db.selectFrom('users').selectAll().where('id', '=', userId).where('status', '!=', 'deleted'));

export async function findUser(db: Kysely<DB>, userId: number): Promise<UserRow | undefined> {
  return (await userById(db, userId))[0];
}

/**
 * The customer an id stands for now: one registered twice offline was merged into the first
 * (docs/sync.md, "Conflicts"), and the id a till or integration kept for them still names them.
 */
export async function survivingCustomerId(db: Kysely<DB>, userId: number): Promise<number> {
  let current = userId;
  for (let hops = 0; hops < 8; hops += 1) {
    const row = await db.selectFrom('users').select('merged_into').where('id', '=', current).executeTakeFirst();
    if (!row?.merged_into) return current;
    current = Number(row.merged_into);
  }
  return current;
}

export async function loadUser(db: Kysely<DB>, userId: number): Promise<UserRow> {
  const user = await findUser(db, userId);
  if (!user) throw new ServiceError('user_not_found');
  return user;
}

const userByEmail = prepared((db, key: string) => db.selectFrom('users').selectAll().where('email_key', '=', key));

export async function findUserByEmail(db: Kysely<DB>, key: string): Promise<UserRow | undefined> {
  return (await userByEmail(db, key))[0];
}

/**
 * The account of an email as a customer typed it at login or reset: by its key (composed, NFC),
 * else, for text that was not composed, by the key as typed — an account keyed before emails were
 * composed (2026-12-06) still opens with the address its owner always typed.
 */
export async function findUserByTypedEmail(db: Kysely<DB>, email: string): Promise<UserRow | undefined> {
  const key = emailKey(email);
  const asTyped = email.trim().toLowerCase();
  return (await findUserByEmail(db, key)) ?? (asTyped === key ? undefined : await findUserByEmail(db, asTyped));
}

export function findUserByPhone(db: Kysely<DB>, e164: string) {
  return db.selectFrom('users').selectAll().where('phone', '=', e164).where('status', '!=', 'deleted').executeTakeFirst();
}

export function findUserByCedula(db: Kysely<DB>, cedula: string) {
  return db.selectFrom('users').selectAll().where('cedula', '=', cedula).where('status', '!=', 'deleted').executeTakeFirst();
}

/**
 * 409 phone_taken when an account other than `userId` holds the phone. No unique index stops a
 * second holder: take the phone's lock first (lockIdentifiers), in the transaction that sets it.
 */
export async function assertPhoneFree(db: Kysely<DB>, phone: string, userId: number | null, field = 'phone_number'): Promise<void> {
  const holder = await findUserByPhone(db, phone);
  if (holder && holder.id !== userId) throw new ServiceError('phone_taken', undefined, field);
}

/** 409 cedula_taken when an account other than `userId` holds the cédula; as assertPhoneFree, under its lock. */
export async function assertCedulaFree(db: Kysely<DB>, cedula: string, userId: number | null): Promise<void> {
  const holder = await findUserByCedula(db, cedula);
  if (holder && holder.id !== userId) throw new ServiceError('cedula_taken', undefined, 'cedula');
}

const userVendor = prepared((db, userId: number, vendorId: number) =>
  db.selectFrom('user_vendors').selectAll().where('user_id', '=', userId).where('vendor_id', '=', vendorId).where('removed_at', 'is', null),
);

export async function findUserVendor(db: Kysely<DB>, userId: number, vendorId: number): Promise<UserVendorRow | undefined> {
  return (await userVendor(db, userId, vendorId))[0];
}

/** The vendor's entry tier (lowest threshold), which every new member starts in. */
export function entryTier(db: Kysely<DB>, vendorId: number) {
  return db.selectFrom('tiers').selectAll().where('vendor_id', '=', vendorId).orderBy('threshold').orderBy('id').executeTakeFirst();
}

/**
 * The customer's own act in this program (login, sign-up, the app's barcode) confirms a membership
 * the counter created, and the counter sees them in full from then on.
 */
export async function confirmMembership(db: Kysely<DB>, link: UserVendorRow): Promise<UserVendorRow> {
  if (link.counter_enrolled === 0) return link;
  await db.updateTable('user_vendors').set({ counter_enrolled: 0 }).where('id', '=', link.id).execute();
  return { ...link, counter_enrolled: 0 };
}

/**
 * Links an account to a vendor (its per-vendor profile), once; returns the link. `byCounter`: a
 * cashier enrolled an account that already existed by typing its email, phone or id number; see
 * `seenAtCounter`.
 */
export async function linkUserToVendor(
  db: Kysely<DB>,
  engine: Engine,
  input: { userId: number; vendorId: number; contactConsent?: number; language?: string | null; via?: 'app' | 'counter' | 'import'; byCounter?: boolean },
  /** The current membership as findUserVendor read it in this transaction, when the caller already has it. */
  read?: { current: UserVendorRow | undefined },
): Promise<UserVendorRow> {
  const existing = read ? read.current : await findUserVendor(db, input.userId, input.vendorId);
  if (existing) return existing;
  const block = await formerBlock(db, input.userId, input.vendorId);
  const row = newMembershipRow(await nextObjectId(db, engine.nodeId), input, (await entryTier(db, input.vendorId))?.id ?? null, block, engine.clock.now());
  await db.insertInto('user_vendors').values(row).execute();
  await welcomeMember(db, engine, { vendorId: input.vendorId, userId: input.userId });
  // The customer joined the program: by signing up or logging in with it (app), at a store, or from the old system's file (import).
  await recordCustomerEvent(db, engine, 'customer.registered', { vendorId: input.vendorId, userId: input.userId, via: input.via ?? 'app' });
  return row;
}

/** The row of a new membership in the entry tier `tierId` (linkUserToVendor's; the member import writes many at once). */
export function newMembershipRow(
  id: number,
  input: { userId: number; vendorId: number; contactConsent?: number; language?: string | null; byCounter?: boolean },
  tierId: number | null,
  block: { blocked_at: number | null; blocked_reason: string | null } | undefined,
  now: number,
): UserVendorRow {
  return {
    id,
    user_id: input.userId,
    vendor_id: input.vendorId,
    flagged_reason: null,
    contact_consent: input.contactConsent ?? 0,
    language: input.language ?? null,
    tier_id: tierId,
    tier_since: now,
    reload_amount: 0,
    reload_threshold: 0,
    billing_profile_id: null,
    flagged: 0,
    referral_code: randomBytes(6).toString('base64url'),
    newsletters: '{}',
    push_endpoints: '{"gcm":[],"apns":[]}',
    first_login_at: null,
    created_at: now,
    updated_at: now,
    removed_at: null,
    counter_enrolled: input.byCounter ? 1 : 0,
    blocked_at: block?.blocked_at ?? null,
    blocked_reason: block?.blocked_reason ?? null,
  };
}

/**
 * The block of a membership the customer ended (account deletion at this vendor): a block is the
 * program's decision about the person, so leaving and joining again does not lift it.
 */
function formerBlock(db: Kysely<DB>, userId: number, vendorId: number) {
  return db
    .selectFrom('user_vendors')
    .select(['blocked_at', 'blocked_reason'])
    .where('user_id', '=', userId)
    .where('vendor_id', '=', vendorId)
    .where('removed_at', 'is not', null)
    .where('blocked_at', 'is not', null)
    .orderBy('removed_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The language messages to a customer use: their choice with this vendor, else the vendor's. */
export async function messageLocale(db: Kysely<DB>, userId: number | null, vendor: VendorRow): Promise<string> {
  const link = userId === null ? undefined : await findUserVendor(db, userId, vendor.id);
  return link?.language ?? vendor.language;
}
