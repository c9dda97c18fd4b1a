import { recordAudit } from '../../audit/record-audit';
import { nameOnly, seenAtCounter } from '../../customers/seen-at-counter';
import type { Engine } from '../../engine';
import { actorOf, requirePermission } from '../../staff/authorize';
import type { StaffPrincipal } from '../../staff/staff-sessions';
import { countPaymentExceptions, listPaymentExceptions, type PaymentExceptionRecord, resolvePaymentException } from './payment-exceptions';

// The back office's face of payment exceptions: the same list and resolutions as the admin
// token's (payment-exceptions.ts, which keeps every state rule), for a staff member whose role
// allows it, with the customer to contact and each resolution in the audit log.

export interface PaymentExceptionCustomer {
  id: number;
  firstName: string;
  lastName: string;
  email: string | null;
  phone: string | null;
}

export interface StaffPaymentException extends PaymentExceptionRecord {
  /** The account behind the charge as this program sees it; null for a guest's eGift (whose contact is `guestBuyer`). */
  customer: PaymentExceptionCustomer | null;
}

export interface PaymentExceptionsPage {
  items: StaffPaymentException[];
  /** How many the filter lists in all. */
  total: number;
}

/**
 * A page of the program's payment exceptions (open ones by default, or of one status, or all),
 * newest first, with their customers; `offset`/`limit` as the back office's other lists page.
 */
export async function listPaymentExceptionsForStaff(engine: Engine, staff: StaffPrincipal, options: { status?: string | undefined; limit: number; offset: number }): Promise<PaymentExceptionsPage> {
  requirePermission(staff, 'payments.manage');
  const scope = { vendorId: staff.vendorId };
  const [records, total] = await Promise.all([listPaymentExceptions(engine, scope, options), countPaymentExceptions(engine, scope, options.status)]);
  const customers = await customersOf(engine, staff.vendorId, records);
  return { items: records.map((record) => ({ ...record, customer: record.userId === null ? null : (customers.get(record.userId) ?? null) })), total };
}

/**
 * Refunds or credits one exception as the admin token's resolve does (same state rules and
 * refusals), writing `payment_exception.refund` / `.credit` to the audit log in the transaction
 * that resolves it: a refused or failed resolution leaves no entry.
 */
export async function resolvePaymentExceptionAsStaff(engine: Engine, staff: StaffPrincipal, id: number, action: 'refund' | 'credit'): Promise<StaffPaymentException> {
  requirePermission(staff, 'payments.manage');
  const scope = { vendorId: staff.vendorId };
  // What staff saw before acting, for the audit entry (the use case itself reads it again under its lock).
  const before = await engine.db
    .selectFrom('payment_exceptions as x')
    .innerJoin('payment_charges as c', 'c.id', 'x.charge_id')
    .select(['x.status', 'x.kind', 'x.charge_id', 'c.amount', 'c.currency'])
    .where('x.id', '=', id)
    .where('x.vendor_id', '=', staff.vendorId)
    .executeTakeFirst();
  const resolved = await resolvePaymentException(engine, scope, id, action, {
    onResolved: (trx) =>
      recordAudit(trx, engine, actorOf(staff), {
        action: `payment_exception.${action}`,
        objectType: 'payment_exception',
        objectId: id,
        before: before ? { status: before.status, kind: before.kind, charge_id: before.charge_id, amount: Number(before.amount), currency: before.currency } : null,
        after: { status: action === 'refund' ? 'refunded' : 'credited', resolution: action },
      }),
  });
  const customers = await customersOf(engine, staff.vendorId, [resolved]);
  return { ...resolved, customer: resolved.userId === null ? null : (customers.get(resolved.userId) ?? null) };
}

/**
 * The customers behind the records, as the program's back office sees them elsewhere: a member
 * the counter enrolled from another program by name only (seenAtCounter), and one no longer a
 * member (removed at their request) by name only too.
 */
export async function customersOf(engine: Engine, vendorId: number, records: ReadonlyArray<{ userId: number | null }>): Promise<Map<number, PaymentExceptionCustomer>> {
  const ids = [...new Set(records.map((r) => r.userId).filter((id): id is number => id !== null))];
  const found = new Map<number, PaymentExceptionCustomer>();
  if (ids.length === 0) return found;
  const rows = await engine.db
    .selectFrom('users as u')
    .leftJoin('user_vendors as uv', (join) => join.onRef('uv.user_id', '=', 'u.id').on('uv.vendor_id', '=', vendorId).on('uv.removed_at', 'is', null))
    .select(['u.id', 'u.first_name', 'u.last_name', 'u.email', 'u.phone', 'uv.id as membership', 'uv.counter_enrolled'])
    .where('u.id', 'in', ids)
    .execute();
  for (const row of rows) {
    const person = { first_name: row.first_name, last_name: row.last_name, email: row.email, phone: row.phone };
    const shown = row.membership === null ? nameOnly(person) : seenAtCounter(person, { counter_enrolled: Number(row.counter_enrolled) });
    found.set(row.id, { id: row.id, firstName: shown.first_name, lastName: shown.last_name, email: shown.email, phone: shown.phone });
  }
  return found;
}
