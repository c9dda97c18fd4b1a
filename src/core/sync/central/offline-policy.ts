import type { Engine, VendorScope } from '../../engine';
import { ServiceError } from '../../../shared/errors';

/** Caps a store applies only while it cannot reach central (minor units of quick pay; points). null: no cap. */
export interface OfflinePolicy {
  quickPayPerOrder: number | null;
  quickPayPerDay: number | null;
  pointsPerOrder: number | null;
  pointsPerDay: number | null;
}

export async function getOfflinePolicy(engine: Engine, scope: VendorScope): Promise<OfflinePolicy> {
  const row = await engine.db
    .selectFrom('vendors')
    .select(['offline_quick_pay_per_order', 'offline_quick_pay_per_day', 'offline_points_per_order', 'offline_points_per_day'])
    .where('id', '=', scope.vendorId)
    .executeTakeFirstOrThrow();
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    quickPayPerOrder: n(row.offline_quick_pay_per_order),
    quickPayPerDay: n(row.offline_quick_pay_per_day),
    pointsPerOrder: n(row.offline_points_per_order),
    pointsPerDay: n(row.offline_points_per_day),
  };
}

export async function setOfflinePolicy(engine: Engine, scope: VendorScope, policy: Partial<OfflinePolicy>): Promise<OfflinePolicy> {
  for (const [field, value] of Object.entries(policy)) {
    if (value !== null && value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new ServiceError('validation_failed', `${field} must be a whole number of minor units or points, 0 or more, or null.`, field);
    }
  }
  const set: Record<string, number | null> = {};
  if (policy.quickPayPerOrder !== undefined) set['offline_quick_pay_per_order'] = policy.quickPayPerOrder;
  if (policy.quickPayPerDay !== undefined) set['offline_quick_pay_per_day'] = policy.quickPayPerDay;
  if (policy.pointsPerOrder !== undefined) set['offline_points_per_order'] = policy.pointsPerOrder;
  if (policy.pointsPerDay !== undefined) set['offline_points_per_day'] = policy.pointsPerDay;
  if (Object.keys(set).length > 0) {
    await engine.db
      .updateTable('vendors')
      .set({ ...set, updated_at: engine.clock.now() })
      .where('id', '=', scope.vendorId)
      .execute();
  }
  return getOfflinePolicy(engine, scope);
}
