import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { searchCustomers } from '../../src/core/customer-care/search-customers';
import { type Engine, startEngine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { openSqlite } from '../../src/core/storage/database';
import { namesLoweredInFull } from '../../src/core/storage/migrations/0036-names-lowered-in-full';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';
import { makeTempDir } from '../support/temp-dir';

// SQLite's own lower() folds ASCII letters only: the back office's name search (through the
// lowercased-name indexes) found "Ángela" on central (PostgreSQL) and not on a store. Every node's
// connections now lower every letter, and migration 0036 rebuilds indexes built the old way.

async function withCustomers(engine: Engine) {
  const vendor = await setUpVendor(engine, testVendor('Café Ñandú'));
  const scope = await authenticateApiKey(engine, vendor.apiKey);
  await registerInStore(engine, scope, { email: 'angela@names.test', firstName: 'Ángela', lastName: 'Núñez' });
  await registerInStore(engine, scope, { email: 'oscar@names.test', firstName: 'Óscar', lastName: 'Íñiguez' });
  await registerInStore(engine, scope, { email: 'ana@names.test', firstName: 'Ana', lastName: 'Zambrano' });
  return vendor.vendorId;
}

const lastNames = async (engine: Engine, vendorId: number, query: string) => (await searchCustomers(engine, vendorId, null, query, 25)).map((hit) => hit.lastName);

describe.each(BACKENDS)('name search beyond ASCII ($name)', (backend) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('finds a name starting with an accented capital in any case', async () => {
    const opened = await openEngine(backend, new ManualClock());
    close = opened.close;
    const vendorId = await withCustomers(opened.engine);
    expect(await lastNames(opened.engine, vendorId, 'áng')).toEqual(['Núñez']);
    expect(await lastNames(opened.engine, vendorId, 'ÁNGELA')).toEqual(['Núñez']);
    expect(await lastNames(opened.engine, vendorId, 'NÚÑ')).toEqual(['Núñez']);
    expect(await lastNames(opened.engine, vendorId, 'íñi')).toEqual(['Íñiguez']);
    expect(await lastNames(opened.engine, vendorId, 'ÓS')).toEqual(['Íñiguez']);
    // Case, not accents: "ang" is not "áng" (on both databases alike).
    expect(await lastNames(opened.engine, vendorId, 'ang')).toEqual([]);
    expect(await lastNames(opened.engine, vendorId, 'zam')).toEqual(['Zambrano']);
  });
});

describe('an SQLite node whose name indexes were built by the ASCII-only lower()', () => {
  const dir = makeTempDir();
  afterEach(() => dir.remove());

  it('finds those names again once migration 0036 rebuilt them', async () => {
    const file = `${dir.path}/store.db`;
    let engine = await startEngine({ database: openSqlite(file), nodeKey: randomBytes(32), role: 'store' });
    const vendorId = await withCustomers(engine);
    await engine.close();
    // What a node of an earlier version left: the entries lowered by SQLite's built-in function.
    const older = new BetterSqlite3(file);
    older.exec('reindex users_first_name_lower; reindex users_last_name_lower');
    older.close();

    engine = await startEngine({ database: openSqlite(file), nodeKey: randomBytes(32), role: 'store' });
    try {
      expect(await lastNames(engine, vendorId, 'áng')).toEqual([]);
      await namesLoweredInFull.up(engine.db as never);
      expect(await lastNames(engine, vendorId, 'áng')).toEqual(['Núñez']);
      expect(await lastNames(engine, vendorId, 'íñi')).toEqual(['Íñiguez']);
    } finally {
      await engine.close();
    }
  });
});
