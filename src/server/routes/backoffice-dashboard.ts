import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Figures, loadDashboard } from '../../core/dashboard/dashboard';
import { loadPeriodStatement, netChange, type PeriodFigures } from '../../core/dashboard/period-statement';
import { periodStatementCsv, periodStatementFileName } from '../../core/dashboard/period-statement-csv';
import { type LoyaltyCurrency, loyaltyMovesToWire } from '../../core/dashboard/loyalty-moves';
import { readReport } from '../../core/storage/report-snapshot';
import type { Engine } from '../../core/engine';
import { requireStoreAccess, storeLimit } from '../../core/staff/authorize';
import { PeriodQuery, PeriodStatementSchema } from '../../shared/schemas/backoffice-period';
import { DashboardQuery, DashboardSchema } from '../../shared/schemas/backoffice-screens';
import { requireStaff, staffOf } from '../auth/staff';

const tags = ['Back office'];
const config = { style: 'resource' as const };

const figuresToWire = (f: Figures, currencies: readonly LoyaltyCurrency[]) => ({
  check_ins: f.checkIns,
  orders: f.orders,
  points_issued: f.pointsIssued,
  points_redeemed: f.pointsRedeemed,
  loyalty: loyaltyMovesToWire(f.loyalty, currencies),
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

const periodToWire = (f: PeriodFigures, currencies: readonly LoyaltyCurrency[]) => ({
  check_ins: f.checkIns,
  orders: f.orders,
  points_issued: f.pointsIssued,
  points_redeemed: f.pointsRedeemed,
  loyalty: loyaltyMovesToWire(f.loyalty, currencies),
  stored_value_loaded: f.loaded,
  reload_amount: f.reloadAmount,
  egift_amount: f.egiftAmount,
  stored_value_spent: f.spent,
  stored_value_returned: f.returned,
  stored_value_adjusted: f.adjusted,
  stored_value_forfeited: f.forfeited,
  stored_value_paid_back: f.paidBack,
  paid_back_to_cards: f.paidBackToCards,
  stored_value_other: f.other,
  egifts_sold_amount: f.egiftsSold,
  stored_value_net_change: netChange(f),
});

/** The dashboard: today and the last 30 days, per day and per store; a store manager sees their store. */
export const backOfficeDashboardRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get('/backoffice/dashboard', { config, preValidation: requireStaff(engine, 'dashboard.read'), schema: { tags, querystring: DashboardQuery, response: { 200: DashboardSchema } } }, async (request) => {
    const staff = staffOf(request);
    const asked = request.query.store ?? null;
    if (asked !== null) requireStoreAccess(staff, asked);
    const d = await readReport(engine, (reads) => loadDashboard(reads, staff.vendorId, asked ?? storeLimit(staff)));
    const figuresOf = (f: Figures) => figuresToWire(f, d.loyaltyCurrencies);
    return {
      time_zone: d.timeZone,
      store: d.storeId,
      quick_pay_currency: d.quickPayCurrency,
      today: figuresOf(d.today),
      last_30_days: figuresOf(d.last30Days),
      outstanding_stored_value: d.outstandingStoredValue,
      unclaimed_egifts: d.unclaimedEgifts,
      outstanding_liability: d.outstandingLiability,
      days: d.days.map((day) => ({ day: day.day, ...figuresOf(day), outstanding_stored_value: day.outstandingStoredValue, unclaimed_egift_amount: day.unclaimedEgiftAmount })),
      stores: d.stores.map((s) => ({ id: s.id, name: s.name, ...figuresOf(s) })),
    };
  });

  /** The statement of a period, as the store manager, a store asked for, or the whole program. */
  const statementOf = (request: { query: { from: string; to: string; store?: number | undefined } } & Parameters<typeof staffOf>[0]) => {
    const staff = staffOf(request);
    const asked = request.query.store ?? null;
    if (asked !== null) requireStoreAccess(staff, asked);
    return readReport(engine, (reads) => loadPeriodStatement(reads, staff.vendorId, asked ?? storeLimit(staff), request.query.from, request.query.to));
  };

  app.get('/backoffice/dashboard/period', { config, preValidation: requireStaff(engine, 'dashboard.read'), schema: { tags, querystring: PeriodQuery, response: { 200: PeriodStatementSchema } } }, async (request) => {
    const p = await statementOf(request);
    const figuresOf = (f: PeriodFigures) => periodToWire(f, p.loyaltyCurrencies);
    return {
      time_zone: p.timeZone,
      from: p.from,
      to: p.to,
      store: p.storeId,
      quick_pay_currency: p.quickPayCurrency,
      opening_stored_value: p.openingStoredValue,
      closing_stored_value: p.closingStoredValue,
      opening_unclaimed_egifts: p.openingUnclaimedEgifts,
      closing_unclaimed_egifts: p.closingUnclaimedEgifts,
      total: figuresOf(p.total),
      program: p.program === null ? null : figuresOf(p.program),
      stores: p.stores.map((s) => ({ id: s.id, name: s.name, ...figuresOf(s) })),
      days: p.rows.map((r) => ({ day: r.day, store: r.storeId, store_name: r.storeName, ...figuresOf(r), outstanding_stored_value: r.outstandingEndOfDay, unclaimed_egift_amount: r.unclaimedEgiftsEndOfDay })),
    };
  });

  // The same statement as a file for the accountant: one row per day and store (period-statement-csv.ts).
  app.get(
    '/backoffice/dashboard/period.csv',
    {
      config,
      preValidation: requireStaff(engine, 'dashboard.read'),
      schema: { tags, querystring: PeriodQuery, response: { 200: { description: 'text/csv', content: { 'text/csv': { schema: { type: 'string' } } } } } },
    },
    async (request, reply) => {
      const p = await statementOf(request);
      return reply
        .type('text/csv; charset=utf-8; header=present')
        .header('content-disposition', `attachment; filename="${periodStatementFileName(p)}"`)
        .send(periodStatementCsv(p));
    },
  );
};
