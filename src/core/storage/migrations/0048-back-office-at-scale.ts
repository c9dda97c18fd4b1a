import type { Kysely, Migration } from 'kysely';

// Two reads of the back office that grew with a year-old central (docs/decisions.md, nineteenth
// round):
//
// - The stored-value figures (dashboard, period statement) keep the window's quick-pay ledger
//   entries: an entry's currency is its account's. Looked up entry by entry, each account cost a
//   read of its row (6.9–8.8 s for 30 days, 87–109 s for what moved since a month last spring); the
//   program's accounts in the currency, read once from this index and matched as a list, cost
//   1.0–1.4 s and 3.9–5.0 s. It replaces the index on currency_id alone (its prefix serves what that
//   one did). No cost on a sale: currency, program and id never change, so a balance move leaves it
//   alone; an account's creation writes one entry here as it did there.
// - The audit log filtered by the kind of object read every record's row of the program, newest
//   first, to find the kind's (263 ms at page 40 of 200k records); this index gives the kind's
//   records in the page's order and counts them without reading a row. One more entry per audited
//   change (staff actions: rare writes).
export const backOfficeAtScale: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('ledger_accounts_by_currency').on('ledger_accounts').columns(['currency_id', 'vendor_id', 'id']).execute();
    await db.schema.dropIndex('ledger_accounts_currency').execute();
    await db.schema.createIndex('audit_log_object_type').on('audit_log').columns(['vendor_id', 'object_type', 'created_at', 'id']).execute();
  },
};
