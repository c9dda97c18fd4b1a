import { type Kysely, type Migration, sql } from 'kysely';

// A charge remembers the quick-pay currency it was made in (currencies.id, not only the ISO code,
// since a program may switch between two currencies of the same code): a reload that settles late
// credits that currency, and is refused if the program has switched since. Existing charges take
// their eGift's currency, else their vendor's current quick-pay currency when its code matches the
// charge's; any other is left null (and is refused rather than credited in a guessed currency).
export const chargeCurrency: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('payment_charges')
      .addColumn('currency_id', 'bigint', (c) => c.references('currencies.id'))
      .execute();
    await sql`update payment_charges set currency_id = (select g.currency_id from egifts g where g.charge_id = payment_charges.id) where purpose = 'egift'`.execute(db);
    await sql`update payment_charges set currency_id = (
        select c.id from vendors v inner join currencies c on c.id = v.quick_pay_currency_id
        where v.id = payment_charges.vendor_id and c.code = payment_charges.currency
      ) where currency_id is null`.execute(db);
    // The reconciliation job's scan: charges still created or pending, oldest first.
    await db.schema.createIndex('payment_charges_open').on('payment_charges').columns(['status', 'created_at']).execute();
  },
};
