import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import type { Dialect } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import type { PushedEvent } from '../protocol';
import { replicatedTable } from '../replicated-tables';
import { isNewerLevel, SCHEMA_LEVEL } from '../schema-level';
import { tableColumns } from '../table-columns';

/** Keys an entry travels with that are its account's, not columns of ledger_entries (install-capture.ts). */
const TRAVELLING_KEYS: Readonly<Record<string, readonly string[]>> = { ledger_entries: ['holder_type', 'holder_id', 'currency_id'] };

/**
 * Refuses a push from a store whose schema level is later than central's when it carries what
 * this central cannot keep: a table it does not have, or a column its table lacks. Taken,
 * the table's change rejected the whole sale (lost to the chain) and an unknown column was
 * dropped without a word; refused, the push is answered 409 `store_newer_than_central` naming
 * both levels, nothing is applied, and the store keeps its events until central is upgraded.
 */
export async function refuseWhatOnlyANewerStoreWrites(db: Kysely<DB>, dialect: Dialect, events: readonly PushedEvent[], storeLevel: string | undefined): Promise<void> {
  // A store of this version or an earlier one never writes either: what it sends is judged as ever.
  if (!isNewerLevel(storeLevel)) return;
  for (const event of events) {
    for (const change of event.changes) {
      if (!replicatedTable(change.tbl)) throw newerStore(storeLevel, `table ${change.tbl}`);
      const columns = await tableColumns(db, dialect, change.tbl);
      const travelling = TRAVELLING_KEYS[change.tbl] ?? [];
      for (const key in change.data) {
        if (!columns.has(key) && !travelling.includes(key)) throw newerStore(storeLevel, `column ${change.tbl}.${key}`);
      }
    }
  }
}

/** The refusal of a request only a central of a later version can answer (`what`: what it named). */
export function newerStore(storeLevel: string, what: string): ServiceError {
  return new ServiceError(
    'store_newer_than_central',
    `This store runs a newer Punchcard than central (store's database at ${storeLevel}, central's at ${SCHEMA_LEVEL}): it sent ${what}, which central does not have. Upgrade central to the store's version or later; the store keeps its sales until then.`,
  );
}
