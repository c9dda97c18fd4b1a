import BetterSqlite3 from 'better-sqlite3';
import { type Compilable, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { firstNameWalkQuery, lastNameWalkQuery, nameSearchQuery } from '../../src/core/customer-care/name-search';
import { searchCustomers } from '../../src/core/customer-care/search-customers';
import type { Engine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { foldName } from '../../src/core/storage/folded-names';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { type Backend, BACKENDS, openEngine, sqliteBackend, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// The back office's name search compares names folded: lowercased, accents off (folded-names.ts).
// It used lower(): SQLite's folds ASCII letters only, so "áng" found Ángela on central
// (PostgreSQL) and nobody on a store, and "nunez" found no Núñez anywhere.

type Person = { email: string; firstName: string; lastName: string };

const SPANISH_NAMES: Person[] = [
  { email: 'angela@names.test', firstName: 'Ángela', lastName: 'Núñez' },
  { email: 'oscar@names.test', firstName: 'Óscar', lastName: 'Íñiguez' },
  { email: 'ana@names.test', firstName: 'Ana', lastName: 'Zambrano' },
  { email: 'alvaro@names.test', firstName: 'Álvaro', lastName: 'Ábalos' },
];

/** A program whose counter registered `people`: its vendor id. */
async function withCustomers(engine: Engine, people: Person[] = SPANISH_NAMES) {
  const vendor = await setUpVendor(engine, testVendor('Café Ñandú'));
  const scope = await authenticateApiKey(engine, vendor.apiKey);
  for (const person of people) await registerInStore(engine, scope, person);
  return vendor.vendorId;
}

let closeEngine: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeEngine?.();
  closeEngine = undefined;
});

/** A migrated engine on a fresh database of `backend`, closed after the test. */
async function engineOn(backend: Backend): Promise<Engine> {
  const opened = await openEngine(backend, new ManualClock());
  closeEngine = opened.close;
  return opened.engine;
}

const lastNames = async (engine: Engine, vendorId: number, query: string) => (await searchCustomers(engine, vendorId, null, query, 25)).map((hit) => hit.lastName);

describe('folding a typed name', () => {
  it('lowercases and takes the accents off, leaving other letters as they are', () => {
    expect(foldName('ÁNGELA Núñez')).toBe('angela nunez');
    expect(foldName('Çağla Øster Ÿves')).toBe('cağla øster yves');
  });

  it('lowers as PostgreSQL does (İ to i, Σ to σ wherever it stands) and reads decomposed text composed', () => {
    expect(foldName('İBRAHIM Yıldız')).toBe('ibrahim yildiz');
    expect(foldName('ΚΩΣΤΑΣ Κωστας ΚΩΣ')).toBe('κωστασ κωστασ κωσ');
    expect(foldName('Nu\u0301n\u0303ez')).toBe('nunez');
  });
});

describe.each(BACKENDS)('name search with accents ($name)', (backend) => {

  it('finds a name however its accents and case are typed, names in the order the search reads them', async () => {
    const engine = await engineOn(backend);
    const vendorId = await withCustomers(engine);
    for (const typed of ['áng', 'ÁNGELA', 'angela', 'nunez', 'NÚÑ', 'Nuñ']) expect(await lastNames(engine, vendorId, typed)).toEqual(['Núñez']);
    for (const typed of ['íñi', 'inig', 'OS']) expect(await lastNames(engine, vendorId, typed)).toEqual(['Íñiguez']);
    // Ábalos among the A's (first names Ángela, Ana, Álvaro; last name Ábalos), by last name as read.
    expect(await lastNames(engine, vendorId, 'a')).toEqual(['Ábalos', 'Núñez', 'Zambrano']);
    expect(await lastNames(engine, vendorId, 'ngela')).toEqual([]);
  });

  // Review: JavaScript lowers İ to i + a combining dot and a word-final Σ to ς, PostgreSQL to i and
  // σ; a name sent decomposed (NFD) held letters the table does not know.
  it('finds İbrahim, ΚΩΣΤΑΣ and a name sent decomposed, however they are typed', async () => {
    const engine = await engineOn(backend);
    const vendorId = await withCustomers(engine, [
      { email: 'ibrahim@names.test', firstName: 'İbrahim', lastName: 'Yıldız' },
      { email: 'kostas@names.test', firstName: 'ΚΩΣΤΑΣ', lastName: 'Papadopoulos' },
      { email: 'angela@names.test', firstName: 'Ángela'.normalize('NFD'), lastName: 'Núñez'.normalize('NFD') },
    ]);
    for (const typed of ['ibrahim', 'İbrahim', 'İBRAHIM', 'ibr', 'yildiz']) expect(await lastNames(engine, vendorId, typed)).toEqual(['Yıldız']);
    for (const typed of ['ΚΩΣΤΑΣ', 'Κωστας', 'ΚΩΣ', 'κωσ']) expect(await lastNames(engine, vendorId, typed)).toEqual(['Papadopoulos']);
    // Stored composed (cleanName), found by the plain, the composed and the decomposed spelling.
    for (const typed of ['nunez', 'angela', 'Núñez', 'Núñez'.normalize('NFD')]) expect(await lastNames(engine, vendorId, typed)).toEqual(['Núñez']);
  });
});

describe('an SQLite node', () => {

  it('finds a name another connection wrote with SQLite’s own lower(), and keeps no lowercased-name index', async () => {
    const engine = await engineOn(sqliteBackend);
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

describe('the name search at central (PostgreSQL): a rare prefix reads the name indexes’ ranges, a common one walks the last-name index', () => {
  const postgres = BACKENDS.find((b) => b.name.startsWith('postgres'))!;

  it('reads the candidates through both folded-name ranges, not the whole last-name index in order (ORDER BY the folded last name + LIMIT)', async () => {
    // Review: ordering by the indexed expression itself let PostgreSQL
    // walk users_last_name_folded from "a" with the prefix as a mere filter, betting that 25 matches
    // come early. A last-name prefix's matches all come together, after every name before it: here
    // "smi" reads 27,001 of 30,000 customers (122 ms; ~4 s at 1M) where the two ranges read 3,000.
    const engine = await engineOn(postgres);
    const vendorId = await withCustomers(engine, [{ email: 'someone@review.test', firstName: 'Tem', lastName: 'Plate' }]);
    const template = await engine.db.selectFrom('users').select('id').where('email_key', '=', 'someone@review.test').executeTakeFirstOrThrow();
    const columns = async (table: string) =>
      (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_name = ${table} and table_schema = current_schema() order by ordinal_position`.execute(engine.db)).rows.map((r) => r.name);
    const copy = async (table: string, where: string, overrides: Record<string, string>) => {
      const cols = await columns(table);
      const select = cols.map((c) => overrides[c] ?? `t.${c}`).join(', ');
      await sql.raw(`insert into ${table} (${cols.join(', ')}) select ${select} from generate_series(1, 30000) as n(i), ${table} t where ${where}`).execute(engine.db);
    };
    const U = 1_000_000_000_000;
    // One customer in ten a Smith; the others' last names spread over A–R (Aname1, Bname2, …).
    await copy('users', `t.id = ${template.id}`, {
      id: `${U} + i`,
      email: `'c' || i || '@review.test'`,
      email_key: `'c' || i || '@review.test'`,
      phone: `'+1415' || (2000000 + i)`,
      first_name: `'Tem'`,
      last_name: `case when i % 10 = 0 then 'Smith' || i else chr(65 + i % 18) || 'name' || i end`,
    });
    await copy('user_vendors', `t.user_id = ${template.id}`, { id: `${2 * U} + i`, user_id: `${U} + i`, referral_code: `'rv' || i` });
    await sql`analyze`.execute(engine.db); // central's autovacuum does it
    const compiled = nameSearchQuery({ engine, vendorId, onlyStoreId: null, start: 'smi', limit: 25 }).compile();
    const plan = (await engine.db.executeQuery<{ 'QUERY PLAN': string }>({ ...compiled, sql: `explain (costs off) ${compiled.sql}` })).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Bitmap Index Scan on users_first_name_folded/);
    expect(plan).toMatch(/Bitmap Index Scan on users_last_name_folded/);
    // 3,000 Smiths and 30,000 Tems are more than BROAD: those searches walk the last-name index in order.
    const planOf = async (query: Compilable<unknown>) => {
      const walk = query.compile();
      return (await engine.db.executeQuery<{ 'QUERY PLAN': string }>({ ...walk, sql: `explain (costs off) ${walk.sql}` })).rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    const lastNames = await planOf(lastNameWalkQuery({ engine, vendorId, onlyStoreId: null, start: 'smi', limit: 25 }));
    const firstNames = await planOf(firstNameWalkQuery({ engine, vendorId, onlyStoreId: null, start: 'tem', limit: 25 }));
    for (const walk of [lastNames, firstNames]) {
      expect(walk).toMatch(/Incremental Sort[\s\S]*Index Scan using users_last_name_folded on users u/);
      expect(walk).not.toMatch(/Bitmap|Seq Scan/);
    }
  }, 120_000);
});
