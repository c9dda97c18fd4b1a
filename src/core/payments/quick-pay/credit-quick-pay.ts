import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../../shared/currency-codes';
import { ServiceError } from '../../../shared/errors';
import type { Engine } from '../../engine';
import { openAccount, postEntry } from '../../ledger/ledger';
import { recordTransaction } from '../../orders/record-transaction';
import type { DB } from '../../storage/schema';

/** The vendor's quick-pay (stored value) currency: what reloads and eGifts are charged and credited in. */
export interface QuickPayCurrency {
  id: number;
  /** As the API names it (cur_…). */
  publicId: string;
  name: string;
  /** ISO 4217: the currency the gateway charges. */
  code: string;
  digits: number;
  status: string;
}

/** The vendor's quick-pay currency; 422 quick_pay_not_offered without one, currency_not_active when paused. */
export async function quickPayCurrencyOf(db: Kysely<DB>, vendorId: number, options: { requireActive?: boolean } = {}): Promise<QuickPayCurrency> {
  const row = await db
    .selectFrom('vendors as v')
    .innerJoin('currencies as c', 'c.id', 'v.quick_pay_currency_id')
    .select(['c.id', 'c.public_id', 'c.name', 'c.code', 'c.status'])
    .where('v.id', '=', vendorId)
    .where('c.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row || !row.code) throw new ServiceError('quick_pay_not_offered');
  if ((options.requireActive ?? true) && row.status !== 'ACTIVE') throw new ServiceError('currency_not_active');
  return { id: row.id, publicId: row.public_id, name: row.name, code: row.code, digits: minorUnitDigits(row.code), status: row.status };
}

export interface QuickPayCredit {
  vendorId: number;
  userId: number;
  /** Minor units, > 0. */
  amountMinor: number;
  /**
   * The currency the credit is in (an eGift's own currency). It must be the vendor's quick-pay
   * currency: another one is refused (422 currency_not_active), never credited. Absent: the
   * vendor's quick-pay currency.
   */
  currencyId?: number;
  /** The history record's kind (its `object` on the wire) and the ledger entry's kind. */
  kind: 'reload' | 'egift';
  /** What the ledger entry points at, e.g. ('payment_charge', '<id>') or ('egift', '<id>'). */
  referenceType: string;
  referenceId: string;
  /** The history record's receipts (what paid, which card); no card number, ever. */
  receipts: Record<string, unknown>[];
}

/**
 * Adds stored value: one ledger entry on the customer's quick-pay account and one history record
 * with `quickpay.loaded`. Call it inside the transaction that also marks the cause as credited
 * (a charge's final status, a claimed eGift), guarded so it runs once per cause.
 */
export async function creditQuickPay(trx: Kysely<DB>, engine: Engine, credit: QuickPayCredit): Promise<{ transactionId: number; balance: number }> {
  const currency = await quickPayCurrencyOf(trx, credit.vendorId, { requireActive: false });
  if (credit.currencyId !== undefined && credit.currencyId !== currency.id) {
    throw new ServiceError('currency_not_active', 'This credit is in a currency the program no longer uses for quick pay.');
  }
  const accountId = await openAccount(trx, engine, { vendorId: credit.vendorId, currencyId: currency.id, holderType: 'user', holderId: credit.userId });
  const { balance } = await postEntry(trx, engine, accountId, {
    amount: credit.amountMinor,
    kind: credit.kind,
    referenceType: credit.referenceType,
    referenceId: credit.referenceId,
  });
  const transactionId = await recordTransaction(trx, engine, {
    vendorId: credit.vendorId,
    userId: credit.userId,
    storeId: null,
    orderId: null,
    kind: credit.kind,
    occurredAt: engine.clock.now(),
    total: credit.amountMinor,
    quickPayUsed: 0,
    quickPayLoaded: credit.amountMinor,
    quickPayBalance: balance,
    items: [],
    taxes: [],
    receipts: credit.receipts,
    rewards: [],
    status: 'Complete',
  });
  return { transactionId, balance };
}
