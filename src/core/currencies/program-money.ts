import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import { toMajorUnits } from '../../shared/money';
import type { DB } from '../storage/schema';

// The quick-pay currency is the program's money: sales, payments, eGifts, customers' auto reload
// amounts, earning rules' "per amount" and the offline quick-pay caps are all kept in minor units of
// it, read with its digits (vendorMoneyDigits). A change of its code would read them in the new
// currency's minor units: USD 12.50 (1250) becoming JPY 1,250, a rule "per 2.50" becoming "per 250"
// (docs/decisions.md, "Currencies and cards").

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

/**
 * The program's settings counted in its money, restated for a new quick-pay code so that each says
 * the same amount of major units (an earning rule "1 point per 2.50" stays "per 2.50"; an offline cap
 * of 5000 USD cents, 50.00, becomes 50 yen): the minor units are rescaled when the two codes' digits
 * differ, never reinterpreted. An amount the new currency cannot express (2.50 in yen) refuses the
 * change, naming the setting, with nothing changed.
 */
export async function restateProgramMoney(db: Kysely<DB>, vendorId: number, fromCode: string, toCode: string, now: number): Promise<void> {
  const from = minorUnitDigits(fromCode);
  const to = minorUnitDigits(toCode);
  if (from === to) return;
  const restate = (minor: number, what: string): number => {
    const restated = to > from ? minor * 10 ** (to - from) : minor / 10 ** (from - to);
    if (!Number.isSafeInteger(restated) || (minor > 0 && restated < 1)) {
      throw new ServiceError('currency_in_use', `${what} is ${toMajorUnits(minor, from)} ${fromCode}, which ${toCode} cannot express: change it first.`, 'code');
    }
    return restated;
  };
  const rules = await db.selectFrom('earning_rules').select(['id', 'name', 'per_amount']).where('vendor_id', '=', vendorId).execute();
  const vendor = await db.selectFrom('vendors').select(['offline_quick_pay_per_order', 'offline_quick_pay_per_day']).where('id', '=', vendorId).executeTakeFirstOrThrow();
  // Everything is restated (and checked) before anything is written.
  const restatedRules = rules.map((rule) => ({ id: rule.id, perAmount: restate(Number(rule.per_amount), `The per amount of earning rule "${rule.name}"`) }));
  const cap = (value: number | null, what: string) => (value === null ? null : restate(Number(value), what));
  const caps = {
    offline_quick_pay_per_order: cap(vendor.offline_quick_pay_per_order, 'The offline quick-pay cap per order'),
    offline_quick_pay_per_day: cap(vendor.offline_quick_pay_per_day, 'The offline quick-pay cap per day'),
  };
  for (const rule of restatedRules) await db.updateTable('earning_rules').set({ per_amount: rule.perAmount, updated_at: now }).where('id', '=', rule.id).execute();
  if (caps.offline_quick_pay_per_order !== null || caps.offline_quick_pay_per_day !== null) {
    await db.updateTable('vendors').set({ ...caps, updated_at: now }).where('id', '=', vendorId).execute();
  }
}
