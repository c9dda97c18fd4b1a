import type { Kysely } from 'kysely';
import { minorUnitDigits } from '../../shared/currency-codes';
import type { DB } from '../storage/schema';

/** Digits of the minor unit of the vendor's quick-pay currency (2 when it has none): the program's money. */
export async function vendorMoneyDigits(db: Kysely<DB>, vendorId: number): Promise<number> {
  const row = await db
    .selectFrom('vendors')
    .leftJoin('currencies', 'currencies.id', 'vendors.quick_pay_currency_id')
    .select('currencies.code')
    .where('vendors.id', '=', vendorId)
    .executeTakeFirst();
  return row?.code ? minorUnitDigits(row.code) : 2;
}
