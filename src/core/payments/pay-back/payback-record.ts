import type { Kysely } from 'kysely';
import { holderBalance } from '../../ledger/ledger';
import type { DB } from '../../storage/schema';

/** A pay-back as staff read it: what was asked, what left the balance for good, and its card refunds. */
export interface PaybackRecord {
  id: number;
  userId: number;
  method: 'cash' | 'card';
  /** paid | refunding (a card refund's outcome is not known yet) | partial | refused. */
  status: string;
  /** Minor units asked for. */
  amount: number;
  /** Minor units paid back (a refused card refund's part came back to the balance). */
  amountPaid: number;
  currency: { publicId: string; code: string | null };
  /** The customer's quick-pay balance now. */
  balance: number;
  ledgerEntryId: number;
  note: string | null;
  createdAt: number;
  completedAt: number | null;
  refunds: Array<{ amount: number; status: string; brand: string | null; last4: string | null }>;
}

export async function readPayback(db: Kysely<DB>, id: number): Promise<PaybackRecord> {
  const row = await db
    .selectFrom('stored_value_paybacks as p')
    .innerJoin('currencies as c', 'c.id', 'p.currency_id')
    .selectAll('p')
    .select(['c.public_id', 'c.code'])
    .where('p.id', '=', id)
    .executeTakeFirstOrThrow();
  const refunds = await db
    .selectFrom('stored_value_payback_refunds as r')
    .innerJoin('payment_charges as ch', 'ch.id', 'r.charge_id')
    .leftJoin('billing_profiles as b', 'b.id', 'ch.billing_profile_id')
    .select(['r.amount', 'r.status', 'b.brand', 'b.last4'])
    .where('r.payback_id', '=', id)
    .orderBy('r.id')
    .execute();
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    method: row.method === 'card' ? 'card' : 'cash',
    status: row.status,
    amount: Number(row.amount),
    amountPaid: Number(row.amount_paid),
    currency: { publicId: row.public_id, code: row.code },
    balance: await holderBalance(db, { holderType: 'user', holderId: Number(row.user_id), currencyId: Number(row.currency_id) }),
    ledgerEntryId: Number(row.ledger_entry_id),
    note: row.note,
    createdAt: Number(row.created_at),
    completedAt: row.completed_at === null ? null : Number(row.completed_at),
    refunds: refunds.map((r) => ({ amount: Number(r.amount), status: r.status, brand: r.brand ?? null, last4: r.last4 ?? null })),
  };
}
