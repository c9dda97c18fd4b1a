import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { BROAD, findByNameStart, nameSearchQuery } from '../../src/core/customer-care/name-search';
import { searchCustomers } from '../../src/core/customer-care/search-customers';
import type { Engine } from '../../src/core/engine';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { foldedNameSql } from '../../src/core/storage/folded-names';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// A name that many customers share is walked in the page's order instead of read whole and sorted
// (name-search.ts: a first letter took 1–8 s at 1M customers). The walks must give exactly the
// page the full read gives: the same customers in the same order, whichever names are common.

const CUSTOMERS = 5_000;
const U = 1_000_000_000_000;

// Every fourth customer of each kind: first names Ana, Ángela, Andrés (3,750 start with "a") and
// Beatriz0–8; last names Álvarez (2,000 alike, ordered by first name and id), Alba0–6, Núñez and
// one of A…Z + "ruiz" (3,038 start with "a", 3,000 with "al"; "n" and "b" are rare).
const FIRST_NAME = `case i % 4 when 0 then 'Ana' when 1 then 'Ángela' when 2 then 'Andrés' else 'Beatriz' || (i % 9) end`;
const LAST_NAME = `case when i % 5 < 2 then 'Álvarez' when i % 5 = 2 then 'Alba' || (i % 7) when i % 5 = 3 then 'Núñez' else char(65 + i % 26) || 'ruiz' end`;

describe.each(BACKENDS)('the name search walks common names ($name)', (backend) => {
  let engine: Engine;
  let close: () => Promise<void>;
  let vendorId: number;
  let storeId: number;

  beforeAll(async () => {
    const opened = await openEngine(backend, new ManualClock());
    engine = opened.engine;
    close = opened.close;
    const vendor = await setUpVendor(engine, testVendor('Common names'));
    vendorId = vendor.vendorId;
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    storeId = scope.storeId!;
    await registerInStore(engine, scope, { email: 'template@names.test', firstName: 'Tem', lastName: 'Plate' });
    const template = await engine.db.selectFrom('users').select('id').where('email_key', '=', 'template@names.test').executeTakeFirstOrThrow();
    const pg = engine.dialect === 'postgres';
    const chr = (expression: string) => (pg ? expression.replaceAll('char(', 'chr(') : expression);
    await copyRows(engine, 'users', `t.id = ${template.id}`, {
      id: `${U} + i`,
      email: `'c' || i || '@names.test'`,
      email_key: `'c' || i || '@names.test'`,
      phone: 'null',
      first_name: FIRST_NAME,
      last_name: chr(LAST_NAME),
    });
    await copyRows(engine, 'user_vendors', `t.user_id = ${template.id}`, { id: `${2 * U} + i`, user_id: `${U} + i`, referral_code: `'rc' || i` });
    // A third of them came to the store (a store manager's search sees only those).
    await copyRows(engine, 'pos_sessions', `t.user_id = ${template.id} and i % 3 = 0`, { id: `${3 * U} + i`, user_id: `${U} + i`, hash: `'h' || i`, status: `'closed'` });
    // Never found: a deleted customer, a former member, another program's member.
    const other = await setUpVendor(engine, testVendor('Another program'));
    await engine.db.updateTable('users').set({ status: 'deleted' }).where('id', 'in', [U + 4, U + 5]).execute();
    await engine.db.updateTable('user_vendors').set({ removed_at: 1 }).where('user_id', 'in', [U + 8, U + 10]).execute();
    await engine.db.updateTable('user_vendors').set({ vendor_id: other.vendorId }).where('user_id', 'in', [U + 12, U + 15]).execute();
    if (pg) await sql`analyze`.execute(engine.db); // central's autovacuum does it
  }, 120_000);

  afterAll(async () => close?.());

  const count = async (column: 'first_name' | 'last_name', start: string) => {
    const folded = foldedNameSql(engine.dialect, column);
    const row = await engine.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where(sql<boolean>`${folded} like ${`${start}%`}`).executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it('the data has common first names, common last names, both, and neither', async () => {
    expect(await count('first_name', 'a')).toBeGreaterThan(BROAD);
    expect(await count('last_name', 'a')).toBeGreaterThan(BROAD);
    expect(await count('first_name', 'an')).toBeGreaterThan(BROAD);
    expect(await count('last_name', 'an')).toBe(0);
    expect(await count('last_name', 'al')).toBeGreaterThan(BROAD);
    expect(await count('first_name', 'al')).toBe(0);
    expect(await count('last_name', 'n')).toBeLessThan(BROAD);
    expect(await count('first_name', 'b')).toBeLessThan(BROAD);
  });

  it('gives the page the full read gives, for every prefix, page size and store', async () => {
    for (const start of ['a', 'an', 'al', 'alv', 'n', 'b', 'be', 'zz']) {
      for (const limit of [1, 25, 100]) {
        for (const onlyStoreId of [null, storeId]) {
          const search = { engine, vendorId, onlyStoreId, start, limit };
          const expected = await nameSearchQuery(search).execute();
          const found = await findByNameStart(search);
          expect(found.map((row) => Number(row.id)), `${start} ${limit} ${onlyStoreId}`).toEqual(expected.map((row) => Number(row.id)));
        }
      }
    }
  }, 60_000);

  it('finds the common names in order, skipping the deleted customer, the former member and another program’s', async () => {
    const hits = await searchCustomers(engine, vendorId, null, 'Á', 100);
    expect(hits).toHaveLength(100);
    // Alba0 sorts before Álvarez ("alba" < "alvarez"), and the first Alba0 is an Ana, an Andrés or an Ángela.
    expect(hits[0]!.lastName).toBe('Alba0');
    expect(hits.map((hit) => hit.id)).not.toEqual(expect.arrayContaining([U + 4, U + 5, U + 8, U + 10, U + 12, U + 15]));
    const an = await searchCustomers(engine, vendorId, null, 'an', 5);
    expect(an.map((hit) => `${hit.firstName} ${hit.lastName}`)).toEqual(Array(5).fill('Ana Alba0'));
    expect(an.map((hit) => hit.id)).toEqual([...an.map((hit) => hit.id)].sort((a, b) => a - b));
    // A store manager sees those who came to their store: every third customer.
    const managers = await searchCustomers(engine, vendorId, storeId, 'an', 100);
    expect(managers).toHaveLength(100);
    expect(managers.every((hit) => (hit.id - U) % 3 === 0)).toBe(true);
  });
});

/** Copies the template's row of `table` once per i = 1…CUSTOMERS where `where` holds, with `overrides` (SQL over i and the template row t). */
async function copyRows(engine: Engine, table: string, where: string, overrides: Record<string, string>): Promise<void> {
  const pg = engine.dialect === 'postgres';
  const columns = pg
    ? (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_name = ${table} and table_schema = current_schema() order by ordinal_position`.execute(engine.db)).rows
    : (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(engine.db)).rows;
  const names = columns.map((c) => c.name);
  const select = names.map((c) => overrides[c] ?? `t.${c}`).join(', ');
  const numbers = pg ? `generate_series(1, ${CUSTOMERS}) as n(i)` : `(with recursive n(i) as (select 1 union all select i + 1 from n where i < ${CUSTOMERS}) select i from n) as n`;
  await sql.raw(`insert into ${table} (${names.join(', ')}) select ${select} from ${numbers}, ${table} t where ${where}`).execute(engine.db);
}
