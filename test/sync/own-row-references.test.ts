import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { REPLICATED_TABLES } from '../../src/core/sync/replicated-tables';
import { ID_REFERENCES, JSON_ID_REFERENCES } from '../../src/core/sync/store/own-row-references';
import { freshDatabase } from './support/chain';

// A store restored from a backup moves the rows it made since to new ids, and everything that names
// them must follow (src/core/sync/store/reassign-row-ids.ts). The list of what names them is kept by
// hand: a foreign key added later to a table a store pushes must be added to it.

const PUSHED = new Set(REPLICATED_TABLES.filter((t) => t.push).map((t) => t.name));

describe('the columns that name a store’s own rows', () => {
  it('include every foreign key to a table a store pushes, and name columns that exist', async () => {
    const database = await freshDatabase();
    try {
      const tables = (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(database.db)).rows.map((r) => r.name);
      const columnsOf = new Map<string, Set<string>>();
      const keys: string[] = [];
      for (const table of tables) {
        columnsOf.set(table, new Set((await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(database.db)).rows.map((r) => r.name)));
        const foreign = await sql<{ from: string; table: string }>`select "from", "table" from pragma_foreign_key_list(${table})`.execute(database.db);
        for (const key of foreign.rows) if (PUSHED.has(key.table)) keys.push(`${table}.${key.from} -> ${key.table}`);
      }
      const listed = new Set(ID_REFERENCES.map((r) => `${r.table}.${r.column} -> ${r.names}`));
      expect(keys.filter((key) => !listed.has(key))).toEqual([]);
      for (const reference of [...ID_REFERENCES.filter((r) => !r.inChangesOnly), ...JSON_ID_REFERENCES]) {
        expect(columnsOf.get(reference.table)?.has(reference.column), `${reference.table}.${reference.column}`).toBe(true);
        expect(PUSHED.has(reference.names), reference.names).toBe(true);
      }
    } finally {
      await database.close();
    }
  });
});
