import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { type Engine, startEngine } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import { closeSession } from '../../src/core/onscreen/close-session';
import { checkIn } from '../../src/core/onscreen/check-in';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { installChangeCapture } from '../../src/core/sync/capture/install-capture';
import { compactChangeLog } from '../../src/core/sync/central/compact-change-log';
import { readChangesForNode } from '../../src/core/sync/central/read-changes';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';

// Central's change log on PostgreSQL (the chain tests run central on SQLite): compaction keeps each
// row's first and newest change, and a credit made at central lifts an offline-overdraft flag.
describe('central’s sync log on PostgreSQL', () => {
  let pg: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let vendor: VendorCredentials;
  const clock = new ManualClock();

  beforeAll(async () => {
    pg = await openTestPostgres();
    engine = await startEngine({ database: pg.database, nodeKey: randomBytes(32), clock, role: 'central' });
    await installChangeCapture(engine.db, engine.dialect, 'central');
    vendor = await setUpVendor(engine, { name: 'PG Chain', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
  });

  afterAll(async () => {
    await engine?.close();
    await pg?.drop();
  });

  it('compacts to the first and newest change of each row; a store reading it gets the newest rows', async () => {
    const scope = await authenticateApiKey(engine, vendor.apiKey);
    const { session } = await registerInStore(engine, scope, { email: 'ana@pg.test' });
    await closeSession(engine, scope, session.hash);
    for (let visit = 0; visit < 3; visit += 1) {
      clock.advance(60_000);
      const again = await checkIn(engine, scope, { identification: 'ana@pg.test' });
      await closeSession(engine, scope, again.session.hash);
    }
    // A profile edited three times: the two edits in between are superseded.
    for (const name of ['Ana', 'Anna', 'Ana María']) await engine.db.updateTable('users').set({ first_name: name }).where('email_key', '=', 'ana@pg.test').execute();
    const removed = await compactChangeLog(engine.db);
    expect(removed).toBeGreaterThan(0);
    const perRow = await engine.db.selectFrom('sync_changes').select(['tbl', 'row_id', (eb) => eb.fn.countAll<string>().as('n')]).groupBy(['tbl', 'row_id']).execute();
    expect(Math.max(...perRow.map((r) => Number(r.n)))).toBeLessThanOrEqual(2);
    const page = await readChangesForNode(engine.db, { id: 1, vendorId: vendor.vendorId, storeId: vendor.storeId }, 0, 5_000);
    const sessions = page.changes.filter((c) => c.tbl === 'pos_sessions');
    const last = new Map(sessions.map((c) => [Number(c.data['id']), c.data['status']]));
    expect([...last.values()].every((status) => status === 'closed')).toBe(true);
    const names = page.changes.filter((c) => c.tbl === 'users').map((c) => c.data['first_name']);
    expect(names[names.length - 1]).toBe('Ana María');
    expect(names).not.toContain('Anna');
    expect(await compactChangeLog(engine.db)).toBe(0);
  });

  it('lifts an offline-overdraft flag when a credit made at central settles it', async () => {
    const user = await engine.db.selectFrom('users').select('id').where('email_key', '=', 'ana@pg.test').executeTakeFirstOrThrow();
    const userId = Number(user.id);
    await engine.db.updateTable('user_vendors').set({ flagged: 1, flagged_reason: 'offline_overdraft' }).where('user_id', '=', userId).execute();
    const credit = (amount: number) =>
      engine.db.transaction().execute(async (trx) => {
        const account = await openAccount(trx, engine, { vendorId: vendor.vendorId, currencyId: vendor.loyaltyCurrencyId, holderType: 'user', holderId: userId });
        return postEntry(trx, engine, account, { amount, kind: 'adjustment' });
      });
    await credit(3);
    const membership = await engine.db.selectFrom('user_vendors').select(['flagged', 'flagged_reason']).where('user_id', '=', userId).executeTakeFirstOrThrow();
    expect(membership).toEqual({ flagged: 0, flagged_reason: null });
  });
});
