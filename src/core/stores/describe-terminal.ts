import type { StoreScope } from '../credentials/authenticate';
import type { Engine } from '../engine';
import type { ApiKeyRole } from '../../shared/roles';

export interface TerminalDescription {
  role: ApiKeyRole;
  vendor: { id: number; name: string };
  store: { id: number; name: string; address: string };
  pointOfSale: { id: number; name: string } | null;
  /** Currency code of the vendor's quick-pay balance, for formatting amounts (null: none set). */
  quickPayCurrencyCode: string | null;
  /** The vendor's language: the screens start in it until the cashier picks another. */
  language: string;
  /** The vendor's country (ISO 3166-1 alpha-2): the screens write numbers as it does. */
  country: string;
}

/**
 * What a screen needs to know about the key it was given: who it acts for and in which role.
 * The renderer uses it to pick the cashier or kiosk screen and to check a typed key at login.
 */
export async function describeTerminal(engine: Engine, scope: StoreScope): Promise<TerminalDescription> {
  const row = await engine.db
    .selectFrom('stores')
    .innerJoin('vendors', 'vendors.id', 'stores.vendor_id')
    .leftJoin('currencies', 'currencies.id', 'vendors.quick_pay_currency_id')
    .leftJoin('points_of_sale', (join) => join.on('points_of_sale.id', '=', scope.posId ?? -1))
    .select([
      'stores.name as store_name',
      'stores.address1',
      'stores.city',
      'vendors.name as vendor_name',
      'vendors.language',
      'vendors.country',
      'currencies.code as quick_pay_code',
      'points_of_sale.id as pos_id',
      'points_of_sale.name as pos_name',
    ])
    .where('stores.id', '=', scope.storeId)
    .where('stores.vendor_id', '=', scope.vendorId)
    .executeTakeFirstOrThrow();
  return {
    role: scope.role,
    vendor: { id: scope.vendorId, name: row.vendor_name },
    store: { id: scope.storeId, name: row.store_name, address: [row.address1, row.city].filter(Boolean).join(', ') },
    pointOfSale: row.pos_id !== null && row.pos_name !== null ? { id: row.pos_id, name: row.pos_name } : null,
    quickPayCurrencyCode: row.quick_pay_code,
    language: row.language,
    country: row.country,
  };
}
