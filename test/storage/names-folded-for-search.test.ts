import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { searchCustomers } from '../../src/core/customer-care/search-customers';
import type { Engine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { foldName } from '../../src/core/storage/folded-names';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, sqliteBackend, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// The back office's name search compares names folded: lowercased, accents off (folded-names.ts).
// It used lower(): SQLite's folds ASCII letters only, so "áng" found Ángela on central
// (PostgreSQL) and nobody on a store, and "nunez" found no Núñez anywhere.

async function withCustomers(engine: Engine) {
  const vendor = await setUpVendor(engine, testVendor('Café Ñandú'));
  const scope = await authenticateApiKey(engine, vendor.apiKey);
  await registerInStore(engine, scope, { email: 'angela@names.test', firstName: 'Ángela', lastName: 'Núñez' });
  await registerInStore(engine, scope, { email: 'oscar@names.test', firstName: 'Óscar', lastName: 'Íñiguez' });
  await registerInStore(engine, scope, { email: 'ana@names.test', firstName: 'Ana', lastName: 'Zambrano' });
  await registerInStore(engine, scope, { email: 'alvaro@names.test', firstName: 'Álvaro', lastName: 'Ábalos' });
  return vendor.vendorId;
}

const lastNames = async (engine: Engine, vendorId: number, query: string) => (await searchCustomers(engine, vendorId, null, query, 25)).map((hit) => hit.lastName);

describe('folding a typed name', () => {
  it('lowercases and takes the accents off, leaving other letters as they are', () => {
    expect(foldName('ÁNGELA Núñez')).toBe('angela nunez');
    expect(foldName('Çağla Øster Ÿves')).toBe('cağla øster yves');
  });
});

describe.each(BACKENDS)('name search with accents ($name)', (backend) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('finds a name however its accents and case are typed, names in the order the search reads them', async () => {
    const opened = await openEngine(backend, new ManualClock());
    close = opened.close;
    const { engine } = opened;
    const vendorId = await withCustomers(engine);
    for (const typed of ['áng', 'ÁNGELA', 'angela', 'nunez', 'NÚÑ', 'Nuñ']) expect(await lastNames(engine, vendorId, typed)).toEqual(['Núñez']);
    for (const typed of ['íñi', 'inig', 'OS']) expect(await lastNames(engine, vendorId, typed)).toEqual(['Íñiguez']);
    // Ábalos among the A's (first names Ángela, Ana, Álvaro; last name Ábalos), by last name as read.
    expect(await lastNames(engine, vendorId, 'a')).toEqual(['Ábalos', 'Núñez', 'Zambrano']);
    expect(await lastNames(engine, vendorId, 'ngela')).toEqual([]);
  });
});

describe('an SQLite node', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('finds a name another connection wrote with SQLite’s own lower(), and keeps no lowercased-name index', async () => {
    const opened = await openEngine(sqliteBackend, new ManualClock());
    close = opened.close;
    const { engine } = opened;
    const vendorId = await withCustomers(engine);
    const file = (await engine.db.selectFrom('pragma_database_list' as never).select('file' as never).executeTakeFirstOrThrow()) as { file: string };
    // The sqlite3 shell's lower() leaves É as it is; the folded index must hold "elodie" all the same.
    const shell = new BetterSqlite3(file.file);
    shell.prepare("update users set first_name = 'ÉLODIE' where email = 'ana@names.test'").run();
    shell.close();
    expect(await lastNames(engine, vendorId, 'elo')).toEqual(['Zambrano']);
    const indexes = (await engine.db.selectFrom('sqlite_master' as never).select('name' as never).where('tbl_name' as never, '=', 'users' as never).execute()) as Array<{ name: string }>;
    expect(indexes.map((i) => i.name)).toEqual(expect.arrayContaining(['users_first_name_folded', 'users_last_name_folded']));
    expect(indexes.map((i) => i.name)).not.toContain('users_first_name_lower');
  });
});
