import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { acceptInvitation } from '../../src/core/staff/accept-invitation';
import { addOwner } from '../../src/core/staff/add-owner';
import { inviteStaff } from '../../src/core/staff/invite-staff';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import { issueStaffToken } from '../../src/core/staff/staff-tokens';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';

// Every use of a link locks its token row, then the account row. A re-sent invitation took them the
// other way round (its conditional UPDATE of the account row, then voiding the older invitation
// tokens): an accept of the older link at the same time was a lock cycle, which PostgreSQL broke
// after deadlock_timeout (transact retried). The re-send now voids the older links first.
describe.skipIf(!process.env.PG_URL)('a re-sent invitation raced with an accept of the older link (PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let vendor: VendorCredentials;
  const clock = new ManualClock();
  const clients: pg.Client[] = [];

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    clients.push(client);
    return client;
  }

  async function waitForLockWaits(observer: pg.Client, count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const waiting = await observer.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
      if (waiting.rows[0].n >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`${count} connections did not wait for a lock within 10 s`);
  }

  async function deadlocks(observer: pg.Client): Promise<number> {
    const row = await observer.query('select deadlocks::int as n from pg_stat_database where datname = current_database()');
    return row.rows[0].n as number;
  }

  function reasonOf(result: PromiseSettledResult<unknown>): string {
    if (result.status === 'fulfilled') return 'ok';
    return isServiceError(result.reason) ? result.reason.code : `raw: ${String(result.reason)}`;
  }

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'central' });
    vendor = await setUpVendor(engine, { name: 'R3 Staff', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
  });

  afterAll(async () => {
    for (const client of clients) await client.end();
    await engine?.close();
    await database?.drop();
  });

  it('re-send first at the account row, accept holding the token: no deadlock (the two take their row locks in one order)', async () => {
    const { staff } = await addOwner(engine, { vendorId: vendor.vendorId, email: 'r3.owner@race.test', password: 'correct horse battery' });
    const inviter: StaffPrincipal = { sessionId: 0, staffId: staff.id, vendorId: staff.vendorId, email: 'r3.owner@race.test', name: staff.name, role: 'owner', storeId: null };
    const invite = () => inviteStaff(engine, inviter, { email: 'r3.invited@race.test', name: 'Invited', role: 'manager', linkBase: 'http://127.0.0.1/admin' });
    const invited = await invite();
    const { token } = await issueStaffToken(engine.db, engine, { id: invited.id, vendor_id: invited.vendorId }, 'invitation');

    const observer = await connect();
    const deadlocksBefore = await deadlocks(observer);
    // Hold the account row from outside: the re-send stops at its UPDATE of it (after staffTurn),
    // then the accept stops at its UPDATE of it (after taking the token row).
    const holder = await connect();
    await holder.query('begin');
    await holder.query(`select id from staff_accounts where id = ${invited.id} for update`);
    const resend = invite();
    await waitForLockWaits(observer, 1);
    const accept = acceptInvitation(engine, { token, password: 'correct horse battery' });
    await waitForLockWaits(observer, 2);
    const started = Date.now();
    await holder.query('commit');
    const results = await Promise.allSettled([resend, accept]);
    const took = Date.now() - started;

    // Either outcome of the race is acceptable; a deadlock broken by PostgreSQL (and retried) is not.
    expect(results.map(reasonOf)).not.toContain(expect.stringMatching(/^raw:/));
    // PostgreSQL counts the deadlock it broke (reported when the aborted backend next flushes stats).
    let counted = await deadlocks(observer);
    const deadline = Date.now() + 12_000;
    while (counted === deadlocksBefore && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      counted = await deadlocks(observer);
    }
    expect({ deadlocks: counted - deadlocksBefore, results: results.map(reasonOf), tookAtLeastDeadlockTimeout: took >= 1000 }).toEqual({
      deadlocks: 0,
      results: expect.any(Array),
      tookAtLeastDeadlockTimeout: false,
    });
  }, 30_000);
});
