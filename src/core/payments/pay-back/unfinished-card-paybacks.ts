import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../../shared/currency-codes';
import type { Engine } from '../../engine';
import { requirePermission } from '../../staff/authorize';
import type { StaffPrincipal } from '../../staff/staff-sessions';
import type { DB } from '../../storage/schema';
import { customersOf, type PaymentExceptionCustomer } from '../exceptions/staff-payment-exceptions';
import { PAYBACK_FINISH_GRACE_MS, PAYBACK_STUCK_MS } from './finish-lost-paybacks';

// Card pay-backs across customers whose refund outcome is unknown (docs/decisions.md, "Tenth
// round: payment exceptions, guests and stuck pay-backs"): the money is out of the balance and not
// known to be on the card. The job asks the gateway again every pass; while it cannot, owners and
// managers see them on the payment exceptions screen, with the customer to contact.

export interface UnfinishedPayback {
  id: number;
  userId: number;
  customer: PaymentExceptionCustomer | null;
  /** refunding while unfinished; paid | partial | refused once finished. */
  status: string;
  /** Minor units asked for, and what left the balance for good so far. */
  amount: number;
  amountPaid: number;
  currency: { code: string | null; digits: number };
  createdAt: number;
  /** Unfinished for longer than the job's "stuck" (a day): the gateway has not answered since. */
  stuck: boolean;
  refunds: Array<{ amount: number; status: string; brand: string | null; last4: string | null }>;
}

/**
 * A page of the program's card pay-backs still `refunding` past the job's grace (a younger one may
 * still be waiting on its own request's answer), oldest first: the longest waiting on top.
 */
export async function listUnfinishedCardPaybacks(engine: Engine, staff: StaffPrincipal, page: { limit: number; offset: number }): Promise<{ items: UnfinishedPayback[]; total: number }> {
  requirePermission(staff, 'payments.manage');
  const before = engine.clock.now() - PAYBACK_FINISH_GRACE_MS;
  const unfinished = engine.db
    .selectFrom('stored_value_paybacks as p')
    .where('p.vendor_id', '=', staff.vendorId)
    .where('p.status', '=', 'refunding')
    .where('p.created_at', '<=', before);
  const [rows, count] = await Promise.all([
    unfinished.select('p.id').orderBy('p.created_at').orderBy('p.id').limit(page.limit).offset(page.offset).execute(),
    unfinished.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: await readCardPaybacks(engine, staff.vendorId, rows.map((row) => Number(row.id))), total: Number(count.n) };
}

/** The pay-backs of `ids` (in that order) as the screen shows them, with their customers and card refunds. */
export async function readCardPaybacks(engine: Engine, vendorId: number, ids: readonly number[]): Promise<UnfinishedPayback[]> {
  if (ids.length === 0) return [];
  const db: Kysely<DB> = engine.db;
  const rows = await db
    .selectFrom('stored_value_paybacks as p')
    .innerJoin('currencies as c', 'c.id', 'p.currency_id')
    .select(['p.id', 'p.user_id', 'p.status', 'p.amount', 'p.amount_paid', 'p.created_at', 'c.code'])
    .where('p.vendor_id', '=', vendorId)
    .where('p.id', 'in', [...ids])
    .execute();
  const refunds = await db
    .selectFrom('stored_value_payback_refunds as r')
    .innerJoin('payment_charges as ch', 'ch.id', 'r.charge_id')
    .leftJoin('billing_profiles as b', 'b.id', 'ch.billing_profile_id')
    .select(['r.payback_id', 'r.amount', 'r.status', 'b.brand', 'b.last4'])
    .where('r.payback_id', 'in', [...ids])
    .orderBy('r.id')
    .execute();
  const customers = await customersOf(engine, vendorId, rows.map((row) => ({ userId: Number(row.user_id) })));
  const now = engine.clock.now();
  const byId = new Map(
    rows.map((row) => {
      const id = Number(row.id);
      const userId = Number(row.user_id);
      const item: UnfinishedPayback = {
        id,
        userId,
        customer: customers.get(userId) ?? null,
        status: row.status,
        amount: Number(row.amount),
        amountPaid: Number(row.amount_paid),
        currency: { code: row.code, digits: minorUnitDigits(row.code ?? '') },
        createdAt: Number(row.created_at),
        stuck: row.status === 'refunding' && now - Number(row.created_at) >= PAYBACK_STUCK_MS,
        refunds: refunds.filter((r) => Number(r.payback_id) === id).map((r) => ({ amount: Number(r.amount), status: r.status, brand: r.brand ?? null, last4: r.last4 ?? null })),
      };
      return [id, item] as const;
    }),
  );
  return ids.map((id) => byId.get(id)).filter((item): item is UnfinishedPayback => item !== undefined);
}
