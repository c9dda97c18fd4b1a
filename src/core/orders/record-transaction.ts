import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import { preparedInsert } from '../storage/prepared';
import type { DB } from '../storage/schema';

const insertTransaction = preparedInsert('transactions');

export interface NewTransaction {
  /** Taken by the caller when it must name the record before writing it (an order's reply); else a new id. */
  id?: number;
  vendorId: number;
  userId: number;
  storeId: number | null;
  orderId: number | null;
  kind: 'order' | 'void' | 'reload' | 'egift' | 'promotion' | 'card_link' | 'tier_change' | 'referral' | 'adjustment' | 'expiry' | 'expiry_return' | 'payback' | 'import';
  occurredAt: number;
  /** Minor units. */
  total: number;
  quickPayUsed: number;
  quickPayLoaded: number;
  quickPayBalance: number;
  items: unknown[];
  taxes: unknown[];
  receipts: unknown[];
  rewards: unknown[];
  /** 'Declined': an auto reload the card refused (nothing moved; kept so the customer sees it). */
  status: 'Complete' | 'Voided' | 'Declined';
}

/** One record of the customer's history, written in the transaction that moved the value. */
export async function recordTransaction(db: Kysely<DB>, engine: Engine, t: NewTransaction): Promise<number> {
  const id = t.id ?? (await nextObjectId(db, engine.nodeId));
  await insertTransaction(db, transactionRow(id, t, engine.clock.now()));
  return id;
}

/** The history row of `t` (recordTransaction's; the member import writes many at once). */
export function transactionRow(id: number, t: NewTransaction, createdAt: number) {
  return {
    id,
    vendor_id: t.vendorId,
    user_id: t.userId,
    store_id: t.storeId,
    order_id: t.orderId,
    kind: t.kind,
    occurred_at: t.occurredAt,
    total: t.total,
    quick_pay_used: t.quickPayUsed,
    quick_pay_loaded: t.quickPayLoaded,
    quick_pay_balance: t.quickPayBalance,
    items: JSON.stringify(t.items),
    taxes: JSON.stringify(t.taxes),
    receipts: JSON.stringify(t.receipts),
    rewards: JSON.stringify(t.rewards),
    status: t.status,
    created_at: createdAt,
  };
}
