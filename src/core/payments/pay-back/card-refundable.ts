import type { Kysely } from 'kysely';
import type { DB } from '../../storage/schema';

// What of a customer's quick pay can go back to the cards it was loaded from: each reload (or auto
// reload) charge that succeeded and was credited in the quick-pay currency, through the gateway
// the node charges with now, less what pay-backs already sent back to it (refunds that did not
// fail). A charge staff refunded as a payment exception is `refunded`, not `succeeded`: never twice.

export interface RefundableReload {
  chargeId: number;
  gatewayChargeId: string;
  /** Minor units still refundable on this charge. */
  left: number;
  brand: string | null;
  last4: string | null;
  createdAt: number;
}

/** The customer's refundable reload charges, newest first (a pay-back takes the newest first). */
export async function refundableReloads(db: Kysely<DB>, gateway: string, input: { vendorId: number; userId: number; currencyId: number }): Promise<RefundableReload[]> {
  const rows = await db
    .selectFrom('payment_charges as c')
    .leftJoin('billing_profiles as b', 'b.id', 'c.billing_profile_id')
    .select((eb) => [
      'c.id',
      'c.amount',
      'c.gateway_charge_id',
      'c.created_at',
      'b.brand',
      'b.last4',
      eb
        .selectFrom('stored_value_payback_refunds as r')
        .select((inner) => inner.fn.coalesce(inner.fn.sum<number>('r.amount'), inner.lit(0)).as('sent'))
        .whereRef('r.charge_id', '=', 'c.id')
        .where('r.status', '!=', 'failed')
        .as('sent'),
    ])
    .where('c.vendor_id', '=', input.vendorId)
    .where('c.user_id', '=', input.userId)
    .where('c.purpose', 'in', ['reload', 'auto_reload'])
    .where('c.status', '=', 'succeeded')
    .where('c.credited_at', 'is not', null)
    .where('c.currency_id', '=', input.currencyId)
    .where('c.gateway', '=', gateway)
    .where('c.gateway_charge_id', 'is not', null)
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .execute();
  return rows
    .map((row) => ({
      chargeId: Number(row.id),
      gatewayChargeId: row.gateway_charge_id!,
      left: Number(row.amount) - Number(row.sent ?? 0),
      brand: row.brand ?? null,
      last4: row.last4 ?? null,
      createdAt: Number(row.created_at),
    }))
    .filter((reload) => reload.left > 0);
}

/** The amount split across the reloads, newest first; null when they cannot take it all. */
export function allocateRefunds(reloads: readonly RefundableReload[], amount: number): Array<{ reload: RefundableReload; amount: number }> | null {
  const parts: Array<{ reload: RefundableReload; amount: number }> = [];
  let rest = amount;
  for (const reload of reloads) {
    if (rest === 0) break;
    const part = Math.min(rest, reload.left);
    parts.push({ reload, amount: part });
    rest -= part;
  }
  return rest === 0 ? parts : null;
}

export const totalRefundable = (reloads: readonly RefundableReload[]): number => reloads.reduce((sum, reload) => sum + reload.left, 0);
