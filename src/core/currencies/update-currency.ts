import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { type Engine, transact, type VendorScope } from '../engine';
import { assertStatusMove, parseStatus } from '../lifecycle/status';
import { isUniqueViolation } from '../storage/errors';
import type { DB } from '../storage/schema';
import { refuseChangingTierCurrency } from '../rules/tiers/tier-currency';
import { type CurrencyRecord, cleanCurrencyCode, cleanCurrencyName, currencyNameKey, toCurrencyRecord } from './currency';
import { currencyHasAccounts, currencyHasRules, currencyNameTaken, findCurrencyRow, isQuickPayCurrency } from './currency-store';
import { assertNoProgramMoneyRecorded, lockProgramMoney, type ProgramMoneySettings, restateProgramMoney } from './program-money';

export interface CurrencyChanges {
  name?: string | undefined;
  code?: string | null | undefined;
  status?: string | undefined;
}

/** A currency as it was and as changed, and the program's settings its new code restated (null: none moved). */
export interface CurrencyChange {
  before: CurrencyRecord;
  currency: CurrencyRecord;
  restated: { before: ProgramMoneySettings; after: ProgramMoneySettings } | null;
}

/**
 * Changes only what was sent. A code may change (cash-like <-> loyalty, or another ISO code) only
 * while it changes the meaning of nothing stored (assertCodeMayChange). The quick-pay currency's
 * new code restates the program's settings counted in it (restateProgramMoney).
 */
export async function updateCurrency(engine: Engine, scope: VendorScope, publicId: string, changes: CurrencyChanges): Promise<CurrencyRecord> {
  return (await changeCurrency(engine, scope, publicId, changes)).currency;
}

/** updateCurrency, telling what the change restated (the back office's audit record lists it). */
export function changeCurrency(engine: Engine, scope: VendorScope, publicId: string, changes: CurrencyChanges): Promise<CurrencyChange> {
  return transact(engine, async (trx) => {
    // A code change decides on "no money exists yet": no sale, charge or balance of the vendor may
    // commit beside it (program-money.ts, holdProgramMoney). Taken before the currency is read, so
    // two changes at once read each other's code.
    if (changes.code !== undefined) await lockProgramMoney(trx, engine.dialect, scope.vendorId);
    const row = await findCurrencyRow(trx, scope.vendorId, publicId);
    if (!row) throw new ServiceError('currency_not_found');
    const current = toCurrencyRecord(row);
    const next = { ...current };

    if (changes.name !== undefined) {
      next.name = cleanCurrencyName(changes.name);
      if (await currencyNameTaken(trx, scope.vendorId, currencyNameKey(next.name), current.id)) {
        throw new ServiceError('currency_name_taken', undefined, 'name');
      }
    }
    let restated: CurrencyChange['restated'] = null;
    if (changes.code !== undefined) {
      next.code = cleanCurrencyCode(changes.code);
      if (next.code !== current.code) {
        const quickPay = await isQuickPayCurrency(trx, current.vendorId, current.id);
        await assertCodeMayChange(trx, current, next.code, quickPay);
        if (quickPay && current.code !== null && next.code !== null) restated = await restateProgramMoney(trx, current.vendorId, current.code, next.code, engine.clock.now());
      }
    }
    if (changes.status !== undefined) {
      next.status = parseStatus(changes.status);
      assertStatusMove(current.status, next.status);
    }

    next.updatedAt = engine.clock.now();
    try {
      await trx
        .updateTable('currencies')
        .set({ name: next.name, name_key: currencyNameKey(next.name), code: next.code, status: next.status, updated_at: next.updatedAt })
        .where('id', '=', current.id)
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ServiceError('currency_name_taken', undefined, 'name');
      throw error;
    }
    return { before: current, currency: next, restated };
  });
}

/**
 * A code changes what the currency's amounts are: refused once balances are held in it, for a
 * loyalty currency that earning rules or rewards count in (their points would be paid out as
 * cash) or that the program's tiers count, and for the vendor's quick-pay currency losing its code (stored value would be points) or
 * changing it once the program recorded money in it (sales, payments, auto reload amounts: all in
 * its minor units, which another code reads as another amount).
 */
async function assertCodeMayChange(db: Kysely<DB>, current: CurrencyRecord, code: string | null, quickPay: boolean): Promise<void> {
  if (await currencyHasAccounts(db, current.id)) throw new ServiceError('currency_in_use', undefined, 'code');
  if (code !== null && (await currencyHasRules(db, current.id))) {
    throw new ServiceError('currency_in_use', 'Earning rules or rewards count in this currency, so it stays a loyalty currency (no code).', 'code');
  }
  if (code !== null) await refuseChangingTierCurrency(db, current.vendorId, current.id, 'code');
  if (quickPay) {
    if (code === null) throw new ServiceError('currency_in_use', "This is the program's quick-pay currency: it keeps an ISO 4217 code.", 'code');
    await assertNoProgramMoneyRecorded(db, current.vendorId);
  }
}
