import type { Insertable, Kysely, Selectable } from 'kysely';
import { ServiceError } from '../../shared/errors';
import type { StaffRole } from '../../shared/staff-roles';
import { isUniqueViolation } from '../storage/errors';
import type { DB, StaffAccountsTable } from '../storage/schema';
import { type Dialect, lockKey } from '../storage/dialect';

export type StaffRow = Selectable<StaffAccountsTable>;

export interface StaffMember {
  id: number;
  vendorId: number;
  email: string;
  name: string;
  role: StaffRole;
  storeId: number | null;
  status: 'invited' | 'active' | 'disabled';
  createdAt: number;
  updatedAt: number;
}

export function toStaffMember(row: StaffRow): StaffMember {
  return {
    id: row.id,
    vendorId: row.vendor_id,
    email: row.email,
    name: row.name,
    role: row.role as StaffRole,
    storeId: row.store_id,
    status: row.status as StaffMember['status'],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function loadStaff(db: Kysely<DB>, vendorId: number, staffId: number): Promise<StaffRow> {
  const row = await db.selectFrom('staff_accounts').selectAll().where('vendor_id', '=', vendorId).where('id', '=', staffId).executeTakeFirst();
  if (!row) throw new ServiceError('staff_not_found');
  return row;
}

export function findStaffByEmail(db: Kysely<DB>, email: string) {
  // Composed (NFC) as cleanEmail stores it: the same address typed or pasted finds the account.
  return db.selectFrom('staff_accounts').selectAll().where('email_key', '=', email.trim().normalize('NFC').toLowerCase()).executeTakeFirst();
}

/**
 * A program's staff changes and the links issued for its accounts take turns (PostgreSQL; SQLite
 * runs one writer at a time): an advisory lock taken first, before any row, so it adds no row-lock
 * order to the token → account one of every link's use (accept, reset, sign-in link).
 */
export function staffTurn(db: Kysely<DB>, engine: { dialect: Dialect }, vendorId: number): Promise<void> {
  return lockKey(db, engine.dialect, `staff:${vendorId}`);
}

/**
 * Writes a new account. Callers look the email up first; this answers the one they cannot see: an
 * account with the same email made by another request since (PostgreSQL), refused by the unique index.
 */
export async function insertStaffAccount(db: Kysely<DB>, row: Insertable<StaffAccountsTable>): Promise<void> {
  try {
    await db.insertInto('staff_accounts').values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ServiceError('staff_email_taken', undefined, 'email');
    throw error;
  }
}

/** A store manager runs one store of the program; owners and managers none. */
export async function checkRoleStore(db: Kysely<DB>, vendorId: number, role: StaffRole, storeId: number | null | undefined): Promise<number | null> {
  if (role !== 'store_manager') {
    if (storeId !== null && storeId !== undefined) throw new ServiceError('validation_failed', 'Only a store manager is tied to a store.', 'store_id');
    return null;
  }
  if (storeId === null || storeId === undefined) throw new ServiceError('validation_failed', 'A store manager needs the store they run.', 'store_id');
  const store = await db.selectFrom('stores').select('id').where('vendor_id', '=', vendorId).where('id', '=', storeId).executeTakeFirst();
  if (!store) throw new ServiceError('store_not_found', undefined, 'store_id');
  return storeId;
}
