import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Figures, loadDashboard } from '../../core/dashboard/dashboard';
import type { Engine } from '../../core/engine';
import { requireStoreAccess, storeLimit } from '../../core/staff/authorize';
import { DashboardQuery, DashboardSchema } from '../../shared/schemas/backoffice-screens';
import { requireStaff, staffOf } from '../auth/staff';

const tags = ['Back office'];
const config = { style: 'resource' as const };

const figuresToWire = (f: Figures) => ({
  check_ins: f.checkIns,
  orders: f.orders,
  points_issued: f.pointsIssued,
  points_redeemed: f.pointsRedeemed,
  stored_value_loaded: f.storedValueLoaded,
  stored_value_spent: f.storedValueSpent,
  stored_value_returned: f.storedValueReturned,
  stored_value_adjusted: f.storedValueAdjusted,
  stored_value_forfeited: f.storedValueForfeited,
  stored_value_paid_back: f.storedValuePaidBack,
  reloads: f.reloads,
  reload_amount: f.reloadAmount,
  egifts: f.egifts,
  egift_amount: f.egiftAmount,
});

/** The dashboard: today and the last 30 days, per day and per store; a store manager sees their store. */
export const backOfficeDashboardRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get('/backoffice/dashboard', { config, preValidation: requireStaff(engine, 'dashboard.read'), schema: { tags, querystring: DashboardQuery, response: { 200: DashboardSchema } } }, async (request) => {
    const staff = staffOf(request);
    const asked = request.query.store ?? null;
    if (asked !== null) requireStoreAccess(staff, asked);
    const d = await loadDashboard(engine, staff.vendorId, asked ?? storeLimit(staff));
    return {
      time_zone: d.timeZone,
      store: d.storeId,
      quick_pay_currency: d.quickPayCurrency,
      today: figuresToWire(d.today),
      last_30_days: figuresToWire(d.last30Days),
      outstanding_stored_value: d.outstandingStoredValue,
      unclaimed_egifts: d.unclaimedEgifts,
      outstanding_liability: d.outstandingLiability,
      days: d.days.map((day) => ({ day: day.day, ...figuresToWire(day), outstanding_stored_value: day.outstandingStoredValue, unclaimed_egift_amount: day.unclaimedEgiftAmount })),
      stores: d.stores.map((s) => ({ id: s.id, name: s.name, ...figuresToWire(s) })),
    };
  });
};
