import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { installChangeCapture } from '../../src/core/sync/capture/install-capture';

// Every captured change enters every index of the change log, so each role keeps only the index it
// reads: a store groups its changes into events (event_seq), central serves a vendor's changes
// after a cursor (vendor_id, seq). Both keep (tbl, row_id).

const open: Engine[] = [];
afterEach(async () => {
  for (const engine of open.splice(0)) await engine.close();
});

async function logIndexesAfterCapture(...roles: Array<'store' | 'central'>): Promise<string[]> {
  const engine = await startEngine({ database: openSqlite(':memory:'), nodeKey: randomBytes(32), role: roles.at(-1)! });
  open.push(engine);
  for (const role of roles) await installChangeCapture(engine.db, engine.dialect, role);
  const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'sync_changes' order by name`.execute(engine.db);
  return rows.rows.map((row) => row.name);
}

describe('change-log indexes by role', () => {
  it('a store keeps the event index and drops the vendor one', async () => {
    expect(await logIndexesAfterCapture('store')).toEqual(['sync_changes_event', 'sync_changes_row']);
  });

  it('central keeps the vendor index and drops the event one', async () => {
    expect(await logIndexesAfterCapture('central')).toEqual(['sync_changes_row', 'sync_changes_vendor']);
  });

  it('installing again for the other role brings back the index that role reads', async () => {
    expect(await logIndexesAfterCapture('store', 'central')).toEqual(['sync_changes_row', 'sync_changes_vendor']);
    expect(await logIndexesAfterCapture('central', 'store')).toEqual(['sync_changes_event', 'sync_changes_row']);
  });
});
