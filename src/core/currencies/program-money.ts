import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import { toMajorUnits } from '../../shared/money';
import { MAX_AMOUNT } from '../../shared/schemas/rules';
import { type Dialect, lockRow } from '../storage/dialect';
import type { DB } from '../storage/schema';

// The quick-pay currency is the program's money: sales, payments, eGifts, customers' auto reload
// amounts, earning rules' "per amount", the offline quick-pay caps and the payment limits are all
// kept in minor units of it, read with its digits (vendorMoneyDigits). A change of its code would
// read them in the new currency's minor units: USD 12.50 (1250) becoming JPY 1,250, a rule "per
// 2.50" becoming "per 250" (docs/decisions.md, "Currencies and cards").

/**
 * Holds the program's money until the transaction ends, on PostgreSQL: the vendor row FOR KEY SHARE,
 * the lock an order's or a charge's foreign key to its vendor takes anyway, taken here before the
 * money movement reads the quick-pay currency. A change of that currency's code takes the row FOR
 * UPDATE (lockProgramMoney) before it checks that no money exists, so each waits for the other: the
 * movement commits before the check reads, or it reads the new currency. Shared: movements never
 * wait for each other. SQLite runs one writer at a time.
 */
export async function holdProgramMoney(db: Kysely<DB>, dialect: Dialect, vendorId: number): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom('vendors').select('id').where('id', '=', vendorId).forKeyShare().execute();
}

/** Locks out every money movement of the vendor (holdProgramMoney) until the transaction ends, on PostgreSQL. */
export function lockProgramMoney(db: Kysely<DB>, dialect: Dialect, vendorId: number): Promise<void> {
  return lockRow(db, dialect, 'vendors', vendorId);
}

/**
 * Refuses a change of the quick-pay currency's code once money was recorded in it that the program
 * cannot restate: a sale (orders keep their amounts, and the history shows them), a payment (a reload
 * or an eGift, claimed or not: an unclaimed gift holds the amount its buyer paid) or a customer's
 * auto reload amount or threshold. Balances are refused before this (currencyHasAccounts).
 */
export async function assertNoProgramMoneyRecorded(db: Kysely<DB>, vendorId: number): Promise<void> {
  const [order, charge, reload] = await Promise.all([
    db.selectFrom('orders').select('id').where('vendor_id', '=', vendorId).limit(1).executeTakeFirst(),
    db.selectFrom('payment_charges').select('id').where('vendor_id', '=', vendorId).limit(1).executeTakeFirst(),
    db
      .selectFrom('user_vendors')
      .select('id')
      .where('vendor_id', '=', vendorId)
      .where((eb) => eb.or([eb('reload_amount', '>', 0), eb('reload_threshold', '>', 0)]))
      .limit(1)
      .executeTakeFirst(),
  ]);
  const what = order ? 'sales were recorded' : charge ? 'payments were charged' : reload ? 'customers set auto reload amounts' : null;
  if (what) {
    throw new ServiceError('currency_in_use', `This is the program's quick-pay currency and ${what} in it: its code can no longer change.`, 'code');
  }
}

/** The program's settings counted in its money, in minor units of one code: what a restatement moved, for its audit record. */
export interface ProgramMoneySettings {
  earning_rules: Array<{ id: string | null; name: string; per_amount: number }>;
  offline_quick_pay_per_order: number | null;
  offline_quick_pay_per_day: number | null;
  egift_max_amount: number | null;
  reload_max_amount: number | null;
}

/**
 * The program's settings counted in its money, restated for a new quick-pay code so that each says
 * the same amount of major units (an earning rule "1 point per 2.50" stays "per 2.50"; an offline cap
 * of 5000 USD cents, 50.00, becomes 50 yen; an eGift limit of 1.000 BHD becomes 1.00 USD): the minor
 * units are rescaled when the two codes' digits differ, never reinterpreted. An amount the new
 * currency cannot express (2.50 in yen) refuses the change, naming the setting, with nothing changed
 * — except a payment limit, which is rounded down (restateLimit). A limit left at its default (null)
 * stays so: the default is a count of minor units of whatever the currency is (payment-limits.ts).
 * Returns the settings before and after (null: the digits are the same, nothing moved).
 */
export async function restateProgramMoney(
  db: Kysely<DB>,
  vendorId: number,
  fromCode: string,
  toCode: string,
  now: number,
): Promise<{ before: ProgramMoneySettings; after: ProgramMoneySettings } | null> {
  const from = minorUnitDigits(fromCode);
  const to = minorUnitDigits(toCode);
  if (from === to) return null;
  const restate = (minor: number, what: string): number => {
    const restated = to > from ? minor * 10 ** (to - from) : minor / 10 ** (from - to);
    if (!Number.isSafeInteger(restated) || (minor > 0 && restated < 1)) {
      throw new ServiceError('currency_in_use', `${what} is ${toMajorUnits(minor, from)} ${fromCode}, which ${toCode} cannot express: change it first.`, 'code');
    }
    return restated;
  };
  const rules = await db.selectFrom('earning_rules').select(['id', 'public_id', 'name', 'per_amount']).where('vendor_id', '=', vendorId).orderBy('id').execute();
  const vendor = await db
    .selectFrom('vendors')
    .select(['offline_quick_pay_per_order', 'offline_quick_pay_per_day', 'egift_max_amount', 'reload_max_amount'])
    .where('id', '=', vendorId)
    .executeTakeFirstOrThrow();
  // Everything is restated (and checked) before anything is written.
  const restatedRules = rules.map((rule) => ({ id: rule.id, perAmount: restate(Number(rule.per_amount), `The per amount of earning rule "${rule.name}"`) }));
  const cap = (value: number | null, what: string) => (value === null ? null : restate(Number(value), what));
  const caps = {
    offline_quick_pay_per_order: cap(vendor.offline_quick_pay_per_order, 'The offline quick-pay cap per order'),
    offline_quick_pay_per_day: cap(vendor.offline_quick_pay_per_day, 'The offline quick-pay cap per day'),
    // At least one major unit (the smallest eGift) and one minor unit (a reload), as when they are set.
    egift_max_amount: restateLimit(vendor.egift_max_amount, from, to, 10 ** to),
    reload_max_amount: restateLimit(vendor.reload_max_amount, from, to, 1),
  };
  for (const rule of restatedRules) await db.updateTable('earning_rules').set({ per_amount: rule.perAmount, updated_at: now }).where('id', '=', rule.id).execute();
  if (Object.values(caps).some((value) => value !== null)) {
    await db.updateTable('vendors').set({ ...caps, updated_at: now }).where('id', '=', vendorId).execute();
  }
  const number = (value: number | null) => (value === null ? null : Number(value));
  return {
    before: {
      earning_rules: rules.map((rule) => ({ id: rule.public_id, name: rule.name, per_amount: Number(rule.per_amount) })),
      offline_quick_pay_per_order: number(vendor.offline_quick_pay_per_order),
      offline_quick_pay_per_day: number(vendor.offline_quick_pay_per_day),
      egift_max_amount: number(vendor.egift_max_amount),
      reload_max_amount: number(vendor.reload_max_amount),
    },
    after: {
      earning_rules: rules.map((rule, i) => ({ id: rule.public_id, name: rule.name, per_amount: restatedRules[i]!.perAmount })),
      ...caps,
    },
  };
}

/**
 * A payment limit (the largest eGift or reload) in the new currency's minor units, the same major
 * units: rounded down when the new currency has fewer digits (1.005 BHD is at most 1.00 USD — a
 * limit never grows by a switch), yet at least `least`, and at most what a limit may be. A maximum
 * one fraction of a cent lower is no reason to refuse the switch, as a rule's rate would be.
 */
function restateLimit(minor: number | null, from: number, to: number, least: number): number | null {
  if (minor === null) return null;
  const scaled = to > from ? Number(minor) * 10 ** (to - from) : Math.floor(Number(minor) / 10 ** (from - to));
  return Math.min(MAX_AMOUNT, Math.max(least, scaled));
}
