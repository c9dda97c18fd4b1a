import { ServiceError } from '../../shared/errors';
import { minorUnitDigits } from '../../shared/currency-codes';
import { toMajorUnits } from '../../shared/money';
import { recordAudit } from '../audit/record-audit';
import { holdProgramMoney } from '../currencies/program-money';
import { type Engine, transact } from '../engine';
import { openAccount, postEntry } from '../ledger/ledger';
import { actorOf } from '../staff/authorize';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { checkCustomerAccess } from './customer-access';
import { recordBalanceNote } from '../history/balance-note';

export interface Adjustment {
  /** The currency's public id (curr_…). */
  currency: string;
  /** Signed, in minor units (points are whole points). */
  amount: number;
  reason: string;
}

/** The most one adjustment moves, in minor units (10,000,000.00 of a currency with cents). */
export const MAX_ADJUSTMENT = 1_000_000_000;

function adjustmentLimitIn(currency: { name: string; code: string | null }): string {
  if (currency.code === null) return `${MAX_ADJUSTMENT.toLocaleString('en')} ${currency.name}`;
  const digits = minorUnitDigits(currency.code);
  return `${toMajorUnits(MAX_ADJUSTMENT, digits).toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${currency.code}`;
}

/**
 * Corrects a balance with a compensating ledger entry (kind `adjustment`), never an edit: the entry,
 * its audit record (who, why, balance before and after) and the customer's history record (in
 * neutral words: the reason stays staff's) commit together. A debit may not take
 * the balance below zero.
 */
export async function adjustBalance(engine: Engine, staff: StaffPrincipal, userId: number, input: Adjustment): Promise<{ entryId: number; balance: number }> {
  if (!Number.isSafeInteger(input.amount) || input.amount === 0) throw new ServiceError('validation_failed', 'amount must be a whole, non-zero number of minor units.', 'amount');
  const reason = input.reason.trim();
  if (reason.length < 3 || reason.length > 500) throw new ServiceError('validation_failed', 'reason must be 3 to 500 characters.', 'reason');
  return transact(engine, async (trx) => {
    // A balance in the quick-pay currency fixes its code: none may open beside a change of it (program-money.ts).
    await holdProgramMoney(trx, engine.dialect, staff.vendorId);
    await checkCustomerAccess(trx, staff.vendorId, null, userId);
    const currency = await trx.selectFrom('currencies').select(['id', 'public_id', 'name', 'code']).where('vendor_id', '=', staff.vendorId).where('public_id', '=', input.currency).where('deleted_at', 'is', null).executeTakeFirst();
    if (!currency) throw new ServiceError('unknown_currency', undefined, 'currency');
    // A typo must not mint unbounded value (an order's points are capped alike); the limit is told
    // as staff type amounts: 10,000,000.00 USD, not a count of cents.
    if (Math.abs(input.amount) > MAX_ADJUSTMENT) throw new ServiceError('validation_failed', `amount must be at most ${adjustmentLimitIn(currency)} either way.`, 'amount');
    const accountId = await openAccount(trx, engine, { vendorId: staff.vendorId, currencyId: currency.id, holderType: 'user', holderId: userId });
    const posted = await postEntry(trx, engine, accountId, { amount: input.amount, kind: 'adjustment', referenceType: 'staff', referenceId: String(staff.staffId) });
    // A credit on a balance already below zero (a voided order's points spent since) settles part of it.
    if (input.amount < 0 && posted.balance < 0) throw new ServiceError('business_rule', 'This adjustment would take the balance below zero.', 'amount');
    await recordBalanceNote(trx, engine, { kind: 'adjustment', vendorId: staff.vendorId, userId, currency, amount: input.amount });
    await recordAudit(trx, engine, actorOf(staff), {
      action: 'customer.adjust_balance',
      objectType: 'customer',
      objectId: userId,
      before: { currency: currency.public_id, balance: posted.balance - input.amount },
      after: { currency: currency.public_id, balance: posted.balance, amount: input.amount, reason, ledger_entry: posted.id },
    });
    return { entryId: posted.id, balance: posted.balance };
  });
}
