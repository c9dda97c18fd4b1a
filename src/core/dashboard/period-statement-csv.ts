import { minorUnitDigits } from '../../shared/currency-codes';
import { netChange, type PeriodRow, type PeriodStatement } from './period-statement';
import { csvField } from '../../shared/csv-field';

// The statement as a file for the accountant's spreadsheet (RFC 4180): UTF-8 with a byte-order mark
// (Excel reads a file without one in the computer's legacy code page: "CafÃ©"), a header, CRLF,
// one row per day and store and per day the program's row (store empty: the moves made at no store,
// and the liability at the end of the day). The eGifts sold come last, apart: the processor charged
// them, but they reach the balances only when claimed (then as loaded); what is sold and not yet
// claimed at the end of each day is on the program's row, the last column. Amounts are plain decimals in the currency's units
// (12.50, -3.00: no symbol, no thousands separator, a point whatever the language), with the code
// in their own column; points and counts are whole numbers; days ISO in the statement's time zone.
// A program of several loyalty currencies (Points and Stamps) gets two more columns per currency at
// the end, `points_issued:<name>` and `points_redeemed:<name>`: points_issued adds them all up.

const COLUMNS = [
  'date',
  'time_zone',
  'store_id',
  'store',
  'check_ins',
  'orders',
  'points_issued',
  'points_redeemed',
  'currency',
  'stored_value_loaded',
  'of_which_reloads',
  'of_which_egifts',
  'stored_value_spent',
  'stored_value_returned',
  'stored_value_adjusted',
  'stored_value_forfeited',
  'stored_value_paid_back',
  'of_which_to_cards',
  'stored_value_other',
  'stored_value_net_change',
  'outstanding_stored_value_end_of_day',
  'egifts_sold',
  'unclaimed_egifts_end_of_day',
] as const;

/** Minor units as a plain decimal in the currency's units: 1250 → "12.50", -5 → "-0.05", 7 (JPY) → "7". */
export function plainDecimal(minor: number, digits: number): string {
  const sign = minor < 0 ? '-' : '';
  const whole = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${whole}` : `${sign}${whole.slice(0, -digits)}.${whole.slice(-digits)}`;
}

export function periodStatementCsv(statement: PeriodStatement): string {
  const code = statement.quickPayCurrency;
  const perCurrency = statement.loyaltyCurrencies.length > 1 ? statement.loyaltyCurrencies : [];
  const header = [...COLUMNS, ...perCurrency.flatMap((c) => [csvField(`points_issued:${c.name}`), csvField(`points_redeemed:${c.name}`)])];
  const digits = code ? minorUnitDigits(code) : 0;
  const money = (minor: number) => plainDecimal(minor, digits);
  const line = (r: PeriodRow) =>
    [
      r.day,
      csvField(statement.timeZone),
      r.storeId === null ? '' : String(r.storeId),
      r.storeName === null ? '' : csvField(r.storeName),
      String(r.checkIns),
      String(r.orders),
      String(r.pointsIssued),
      String(r.pointsRedeemed),
      code ?? '',
      money(r.loaded),
      money(r.reloadAmount),
      money(r.egiftAmount),
      money(r.spent),
      money(r.returned),
      money(r.adjusted),
      money(r.forfeited),
      money(r.paidBack),
      money(r.paidBackToCards),
      money(r.other),
      money(netChange(r)),
      r.outstandingEndOfDay === null ? '' : money(r.outstandingEndOfDay),
      money(r.egiftsSold),
      r.unclaimedEgiftsEndOfDay === null ? '' : money(r.unclaimedEgiftsEndOfDay),
      ...perCurrency.flatMap((c) => [String(r.loyalty[c.id]?.issued ?? 0), String(r.loyalty[c.id]?.redeemed ?? 0)]),
    ].join(',');
  return `\uFEFF${[header.join(','), ...statement.rows.map(line)].join('\r\n')}\r\n`;
}

/** The file's name: the program's days, and the store when one was asked. */
export const periodStatementFileName = (statement: PeriodStatement): string =>
  `punchcard-${statement.from}-to-${statement.to}${statement.storeId === null ? '' : `-store-${statement.storeId}`}.csv`;
