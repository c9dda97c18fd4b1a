import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { programChanges } from '../../src/core/program-admin/change-program';
import { acceptInvitation } from '../../src/core/staff/accept-invitation';
import { addOwner } from '../../src/core/staff/add-owner';
import { inviteStaff } from '../../src/core/staff/invite-staff';
import { updateStaff } from '../../src/core/staff/manage-staff';
import { openParams } from '../../src/core/messaging/sealed-params';
import { applyStaffPasswordReset, requestStaffPasswordReset } from '../../src/core/staff/staff-password-reset';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import { issueStaffToken } from '../../src/core/staff/staff-tokens';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { isServiceError } from '../../src/shared/errors';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';
import { waitForLockWaits } from '../support/pg-lock-waits';

// Back-office staff under concurrent requests on PostgreSQL (READ COMMITTED), staged on separate
// connections as in customer-races-postgres: a lock held from outside stops both requests at the
// same step, after each has read what it decides on. SQLite's single writer never shows these.
describe.skipIf(!process.env.PG_URL)('back-office staff and changes raced on PostgreSQL (PG_URL)', () => {
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


  async function raceBehindLock<T>(lockSql: string, requests: Array<() => Promise<T>>): Promise<PromiseSettledResult<T>[]> {
    const holder = await connect();
    await holder.query('begin');
    await holder.query(lockSql);
    const settled = Promise.allSettled(requests.map((request) => request()));
    await waitForLockWaits(await connect(), requests.length);
    await holder.query('commit');
    return settled;
  }

  const HOLD_ID_COUNTER = "update id_sequences set value = value where name = 'objects'";

  function reasonOf(result: PromiseSettledResult<unknown>): string {
    if (result.status === 'fulfilled') return 'ok';
    return isServiceError(result.reason) ? result.reason.code : `raw: ${String(result.reason)}`;
  }

  async function owner(email: string): Promise<StaffPrincipal> {
    const { staff } = await addOwner(engine, { vendorId: vendor.vendorId, email, password: 'correct horse battery' });
    return { sessionId: 0, staffId: staff.id, vendorId: staff.vendorId, email, name: staff.name, role: 'owner', storeId: null };
  }

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock, role: 'central' });
    vendor = await setUpVendor(engine, { name: 'Race Staff', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
  });

  afterAll(async () => {
    for (const client of clients) await client.end();
    await engine?.close();
    await database?.drop();
  });

  it('two owners demoting each other at once: one is refused last_owner, and one active owner remains', async () => {
    const ana = await owner('ana.owner@race.test');
    const bea = await owner('bea.owner@race.test');
    const results = await raceBehindLock(HOLD_ID_COUNTER, [() => updateStaff(engine, ana, bea.staffId, { role: 'manager' }), () => updateStaff(engine, bea, ana.staffId, { status: 'disabled' })]);
    expect(results.map(reasonOf).sort()).toEqual(['last_owner', 'ok']);
    const owners = await engine.db.selectFrom('staff_accounts').select('id').where('vendor_id', '=', vendor.vendorId).where('role', '=', 'owner').where('status', '=', 'active').execute();
    expect(owners).toHaveLength(1);
  });

  it('one email invited twice at once: one account (never a unique-index 500); the second waits its turn and sends the invitation again, whose link alone works', async () => {
    const inviter = await owner('inviter.owner@race.test');
    const invite = () => inviteStaff(engine, inviter, { email: 'twice@staff.race.test', name: 'Twice', role: 'manager', linkBase: 'http://127.0.0.1/admin' });
    const results = await raceBehindLock(HOLD_ID_COUNTER, [invite, invite]);
    expect(results.map(reasonOf)).toEqual(['ok', 'ok']);
    const accounts = await engine.db.selectFrom('staff_accounts').select('id').where('email_key', '=', 'twice@staff.race.test').execute();
    expect(accounts).toHaveLength(1);
    const live = await engine.db.selectFrom('staff_tokens').select('id').where('staff_id', '=', accounts[0]!.id).where('purpose', '=', 'invitation').where('used_at', 'is', null).execute();
    expect(live).toHaveLength(1);
  });

  it('one waiting invitation sent again twice at once: both sent, one after the other, and only the last link works', async () => {
    const inviter = await owner('resend.owner@race.test');
    const invite = () => inviteStaff(engine, inviter, { email: 'again@staff.race.test', name: 'Again', role: 'manager', linkBase: 'http://127.0.0.1/admin' });
    const first = await invite();
    const results = await raceBehindLock(HOLD_ID_COUNTER, [invite, invite]);
    expect(results.map(reasonOf)).toEqual(['ok', 'ok']);
    const live = await engine.db.selectFrom('staff_tokens').select('id').where('staff_id', '=', first.id).where('purpose', '=', 'invitation').where('used_at', 'is', null).execute();
    expect(live).toHaveLength(1);
  });

  it('an invitation accepted while an owner disables it: disabled either way; enabled again, active only with the chosen password', async () => {
    const inviter = await owner('revoke.owner@race.test');
    const invited = await inviteStaff(engine, inviter, { email: 'revoked@staff.race.test', name: 'Revoked', role: 'manager', linkBase: 'http://127.0.0.1/admin' });
    const { token } = await issueStaffToken(engine.db, engine, { id: invited.id, vendor_id: invited.vendorId }, 'invitation');
    // Both stop at the token row, after reading the account: the accept to use the token, the disable to void it.
    const results = await raceBehindLock<unknown>(`select id from staff_tokens where staff_id = ${invited.id} and used_at is null for update`, [
      () => acceptInvitation(engine, { token, password: 'correct horse battery' }),
      () => updateStaff(engine, inviter, invited.id, { status: 'disabled' }),
    ]);
    expect(reasonOf(results[1]!)).toBe('ok');
    expect(['ok', 'invalid_code']).toContain(reasonOf(results[0]!));
    const account = () => engine.db.selectFrom('staff_accounts').select(['status', 'password_hash']).where('id', '=', invited.id).executeTakeFirstOrThrow();
    expect((await account()).status).toBe('disabled');
    const enabled = await updateStaff(engine, inviter, invited.id, { status: 'active' });
    const { password_hash } = await account();
    expect(enabled.status).toBe(password_hash === null ? 'invited' : 'active');
    expect(enabled.status === 'active').toBe(reasonOf(results[0]!) === 'ok');
  });

  it('a content page written for the first time by two staff at once: both saved, as versions 1 and 2 (not a 500 of an aborted transaction)', async () => {
    const staff = await owner('content.owner@race.test');
    const write = (title: string) => () => programChanges.setContent(engine, staff, { slug: 'faq', language: 'en', title, content: `<p>${title}</p>` });
    const results = await raceBehindLock(HOLD_ID_COUNTER, [write('First'), write('Second')]);
    expect(results.map(reasonOf)).toEqual(['ok', 'ok']);
    const page = await engine.db.selectFrom('vendor_content').select('version').where('vendor_id', '=', vendor.vendorId).where('slug', '=', 'faq').where('language', '=', 'en').executeTakeFirstOrThrow();
    expect(Number(page.version)).toBe(2);
    const audits = await engine.db.selectFrom('audit_log').select('before').where('vendor_id', '=', vendor.vendorId).where('action', '=', 'content.update').execute();
    expect(audits.filter((a) => a.before === null)).toHaveLength(1);
  });
  it('a reset asked for while an owner disables the account: no working reset link once it is disabled, even enabled again', async () => {
    const ana = await owner('ana.owner@reset-race.test');
    const max = await owner('max.owner@reset-race.test');
    const holder = await connect();
    const observer = await connect();
    await holder.query('begin');
    await holder.query(HOLD_ID_COUNTER);
    // Max asks for a reset: read as active, then waits for an id for the token.
    const reset = requestStaffPasswordReset(engine, { email: max.email, linkBase: 'http://node.test/admin' });
    await waitForLockWaits(observer, 1);
    // Ana disables Max meanwhile.
    const disable = updateStaff(engine, ana, max.staffId, { status: 'disabled' });
    await waitForLockWaits(observer, 2);
    await holder.query('commit');
    await Promise.all([reset, disable]);
    expect((await engine.db.selectFrom('staff_accounts').select('status').where('id', '=', max.staffId).executeTakeFirstOrThrow()).status).toBe('disabled');
    const live = await engine.db.selectFrom('staff_tokens').select(['id', 'purpose']).where('staff_id', '=', max.staffId).where('used_at', 'is', null).execute();
    // Enabled again later (within the link's 2 hours): the mailed link, if one went out, must not work.
    await updateStaff(engine, ana, max.staffId, { status: 'active' });
    const mail = await engine.db.selectFrom('messages_outbox').select('params').where('recipient', '=', max.email).where('template', '=', 'staff_password_reset').executeTakeFirst();
    const used = mail
      ? await applyStaffPasswordReset(engine, { token: (openParams(engine, mail.params) as { code: string }).code, password: 'taken over password' }).then(
          () => 'reset applied',
          (error: { code?: string }) => error.code,
        )
      : 'no mail';
    expect({ live, used: used === 'no mail' ? 'invalid_code' : used }).toEqual({ live: [], used: 'invalid_code' });
  });

  it('a re-sent invitation and an accept of the older link: one order of row locks, no deadlock for PostgreSQL to break', async () => {
    const inviter = await owner('resend.accept.owner@race.test');
    const invite = () => inviteStaff(engine, inviter, { email: 'resend.accept@staff.race.test', name: 'Invited', role: 'manager', linkBase: 'http://127.0.0.1/admin' });
    const invited = await invite();
    const { token } = await issueStaffToken(engine.db, engine, { id: invited.id, vendor_id: invited.vendorId }, 'invitation');
    const observer = await connect();
    // The account row held from outside: the re-send stops at its update of it, the accept behind it.
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
    // A lock cycle is broken only after deadlock_timeout (1 s), and then retried.
    expect({ results: results.map(reasonOf), tookAtLeastDeadlockTimeout: Date.now() - started >= 1000 }).toEqual({ results: ['ok', 'invalid_code'], tookAtLeastDeadlockTimeout: false });
  });
});
