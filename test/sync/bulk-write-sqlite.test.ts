import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { writeConnectionOf } from '../../src/core/storage/raw-writer';
import { insertRowsSqlite } from '../../src/core/sync/central/bulk-write-sqlite';
import { ManualClock } from '../support/clock';
import { type CentralHandle, startCentral } from './support/chain';

// Central's SQLite bulk writer inserts rows with capture paused and logs them with one INSERT …
// SELECT: the change log must hold exactly what the capture trigger would have written, whatever
// columns each row brings, and capture must be running again afterwards.

describe('the SQLite bulk writer', () => {
  const open: CentralHandle[] = [];
  afterEach(async () => {
    for (const central of open.splice(0)) await central.close();
  });

  const currencies = (vendorId: number) => [
    { id: 900_001, public_id: 'cur-a', vendor_id: vendorId, name: 'Stars', name_key: 'stars', code: null, status: 'ACTIVE', created_at: 1, updated_at: 1, deleted_at: null },
    // A row without the optional columns (a node of another version): its defaults apply.
    { id: 900_002, public_id: 'cur-b', vendor_id: vendorId, name: 'Coins', name_key: 'coins', status: 'ACTIVE', created_at: 2, updated_at: 2 },
    { id: 900_003, public_id: 'cur-c', vendor_id: vendorId, name: 'Gems', name_key: 'gems', code: 'GEM', status: 'ACTIVE', created_at: 3, updated_at: 3, deleted_at: 5 },
    // Text that reads as a number stays text.
    { id: 900_004, public_id: 'cur-d', vendor_id: vendorId, name: '007', name_key: '007', code: null, status: 'ACTIVE', created_at: 4, updated_at: 4, deleted_at: null },
  ];

  /** Every column of the rows and its SQLite storage class. */
  const storedOf = async (central: CentralHandle) => {
    const columns = (await sql<{ name: string }>`select name from pragma_table_info('currencies')`.execute(central.engine.db)).rows.map((c) => c.name);
    const select = columns.map((c) => `"${c}", typeof("${c}") as "${c}:type"`).join(', ');
    return (await sql.raw<Record<string, unknown>>(`select ${select} from currencies where id >= 900001 order by id`).execute(central.engine.db)).rows;
  };

  const logOf = async (central: CentralHandle) =>
    (await central.engine.db.selectFrom('sync_changes').select(['tbl', 'row_id', 'op', 'vendor_id', 'data']).where('row_id', '>=', 900_001).orderBy('seq').execute()).map((c) => ({ ...c, data: JSON.parse(c.data) as unknown }));

  it('logs rows of any column set exactly as the capture trigger does, and leaves capture on', async () => {
    const bulk = await startCentral(new ManualClock());
    const byTrigger = await startCentral(new ManualClock());
    open.push(bulk, byTrigger);
    await bulk.engine.db.transaction().execute((trx) => insertRowsSqlite(trx, bulk.engine.db, 'currencies', currencies(bulk.vendor.vendorId)));
    for (const row of currencies(byTrigger.vendor.vendorId)) await byTrigger.engine.db.insertInto('currencies').values(row as never).execute();

    const logged = await logOf(bulk);
    expect(logged).toHaveLength(4);
    expect(logged).toEqual(await logOf(byTrigger));
    // The rows themselves are stored alike, value and type, as one insert per row stores them.
    expect(await storedOf(bulk)).toEqual(await storedOf(byTrigger));
    expect((await storedOf(bulk))[3]).toMatchObject({ name: '007', 'name:type': 'text', 'created_at:type': 'integer' });
    expect(logged[1]!.data).toMatchObject({ id: 900_002, code: null, deleted_at: null });
    expect((await sql<{ active: number }>`select active from sync_apply_mode`.execute(bulk.engine.db)).rows[0]?.active).toBe(0);
    // Capture runs again: a later ordinary write is logged by its trigger.
    await bulk.engine.db.updateTable('currencies').set({ name: 'Big stars' }).where('id', '=', 900_001).execute();
    expect((await logOf(bulk)).at(-1)).toMatchObject({ row_id: 900_001, op: 'upsert', data: { name: 'Big stars' } });
  });

  it('writes nothing and logs nothing when the database refuses a row', async () => {
    const central = await startCentral(new ManualClock());
    open.push(central);
    const rows = currencies(central.vendor.vendorId);
    rows[2]!.vendor_id = 424_242; // no such vendor: the foreign key refuses it
    await expect(central.engine.db.transaction().execute((trx) => insertRowsSqlite(trx, central.engine.db, 'currencies', rows))).rejects.toThrow(/FOREIGN KEY/);
    expect(await logOf(central)).toEqual([]);
    expect(await central.engine.db.selectFrom('currencies').select('id').where('id', '>=', 900_001).execute()).toEqual([]);
    expect((await sql<{ active: number }>`select active from sync_apply_mode`.execute(central.engine.db)).rows[0]?.active).toBe(0);
  });

  it('runs only inside a transaction of its database', async () => {
    const central = await startCentral(new ManualClock());
    open.push(central);
    expect(() => writeConnectionOf(central.engine.db).run('update sync_apply_mode set active = 1', [])).toThrow(/only inside a transaction/);
  });
});
