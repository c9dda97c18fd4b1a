import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabaseUrl } from '../../src/core/storage/database';
import { freePort } from '../support/free-port';
import { nodesOfThisFile, run, stopWith, withoutScreensWarning } from '../support/processes';
import { createServerDatabase } from '../support/postgres';
import { http } from '../support/test-node';
import { eventually } from '../support/eventually';

/** A node command's stderr without bin/punchcard.js's note that out/renderer is older than its sources (a checkout whose screens changed since `npm run build`). */

// A chain's central moves (a new server, port or name) while a store has sales waiting for it. The
// operator points the stopped store at the new address with `punchcard store --data DIR --central
// URL`: checked first (an address nobody answers at, a store's till, are refused with central.json
// unchanged), then the store starts there and its waiting sales reach central. Pairing again would
// have set them aside. Real processes: central on PostgreSQL (PG_URL; else an SQLite file), the
// store on SQLite.

let dropDatabase: (() => Promise<void>) | null = null;

afterAll(async () => {
  await dropDatabase?.();
});
// Registered after the afterAll above (after-hooks run last-registered first): the nodes are gone before their database is dropped.
const { tempDir, start } = nodesOfThisFile('punchcard-moved-');

describe("a store whose central moved", () => {
  it('is pointed at the new address with --central alone, and its waiting sale reaches central', async () => {
    const env: Record<string, string> = {};
    if (process.env.PG_URL) {
      const scratch = await createServerDatabase(process.env.PG_URL, 'punchcard_moved');
      dropDatabase = scratch.drop;
      env.PUNCHCARD_DATABASE_URL = scratch.url;
    }
    const centralDir = tempDir('punchcard-moved-central-');
    const init = await run(['init', '--data', centralDir, '--vendor', 'Chain Coffee', '--json'], env, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const program = JSON.parse(init.stdout.trim()) as { store_id: number; api_key: string };
    let central = await start(['central', '--data', centralDir, '--port', String(await freePort())], 'central', env);
    const code = await run(['pair-code', '--data', centralDir, '--store', String(program.store_id), '--json'], env, 120_000);
    expect(code.code, code.stderr).toBe(0);

    const storeDir = tempDir('punchcard-moved-store-');
    let store = await start(['store', '--data', storeDir, '--port', '0', '--central', central.url, '--pair', (JSON.parse(code.stdout) as { code: string }).code], 'store');
    const statusOf = async () => (await http(`${store.url}/sync/status`)).body;
    await eventually('the first sync', async () => ((await statusOf()).first_sync?.done ? true : undefined));

    // Central goes; a customer registers at the counter meanwhile (it waits to be sent); the store stops.
    const oldUrl = central.url;
    await stopWith(central.process, 'SIGTERM');
    const sale = await http(`${store.url}/onscreen/register?api_key=${program.api_key}`, { method: 'POST', body: { email: 'waiting@example.com' } });
    expect([200, 201], JSON.stringify(sale.body)).toContain(sale.status);
    expect((await statusOf()).pending).toBeGreaterThan(0);
    await stopWith(store.process, 'SIGTERM');

    // Central comes back elsewhere.
    central = await start(['central', '--data', centralDir, '--port', String(await freePort())], 'central', env);
    const pairingFile = join(storeDir, 'central.json');
    const before = readFileSync(pairingFile, 'utf8');

    // Refused, central.json unchanged: an address nobody answers at, and one where a till (no central) answers.
    const nobody = await run(['store', '--data', storeDir, '--port', '0', '--central', `http://127.0.0.1:${await freePort()}`], {}, 120_000);
    expect(nobody.code).toBe(1);
    expect(withoutScreensWarning(nobody.stderr)).toMatch(/^punchcard: No central node answered at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): central\.json is unchanged\. Start central there first, or check the address\.\n$/);
    const till = await start(['store', '--data', tempDir('punchcard-moved-till-'), '--port', '0'], 'store');
    const notCentral = await run(['store', '--data', storeDir, '--port', '0', '--central', till.url], {}, 120_000);
    expect(notCentral.code).toBe(1);
    expect(withoutScreensWarning(notCentral.stderr)).toBe(`punchcard: ${till.url} is not a Punchcard central node (it answered 404 to /sync/stream): central.json is unchanged.\n`);
    expect(readFileSync(pairingFile, 'utf8')).toBe(before);

    // The new address: said, remembered, and the waiting sale reaches central.
    store = await start(['store', '--data', storeDir, '--port', '0', '--central', `${central.url}/`], 'store');
    expect(store.process.stderr()).toContain(`punchcard: central's address changed from ${oldUrl} to ${central.url}\n`);
    expect((JSON.parse(readFileSync(pairingFile, 'utf8')) as { central: string }).central).toBe(central.url);
    await eventually('the waiting sale sent', async () => {
      const s = await statusOf();
      return s.link === 'up' && s.pending === 0 ? true : undefined;
    });
    const database = openDatabaseUrl(env.PUNCHCARD_DATABASE_URL ?? join(centralDir, 'punchcard.db'));
    try {
      const customer = await database.db.selectFrom('users').select('email').where('email_key', '=', 'waiting@example.com').executeTakeFirst();
      expect(customer?.email).toBe('waiting@example.com');
    } finally {
      await database.close();
    }
    // Later starts need only --data: the address is the new one.
    await stopWith(store.process, 'SIGTERM');
    store = await start(['store', '--data', storeDir, '--port', '0'], 'store');
    expect((await statusOf()).central).toBe(central.url);
  }, 240_000);
});
