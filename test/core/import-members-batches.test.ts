import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createCard } from '../../src/core/cards/create-card';
import { updateCard } from '../../src/core/cards/update-card';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { insertUser, linkUserToVendor } from '../../src/core/customers/customer-store';
import { type Engine, startEngine } from '../../src/core/engine';
import { importMembers, type ImportReport } from '../../src/core/import/import-members';
import { readMemberFile } from '../../src/core/import/member-file';
import { findBalanceMismatches, holderBalance } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';
import { openTestPostgres, waitForLockWait } from '../support/postgres';

// The member import writes a batch's new members together (one statement per table) after reading
// the batch's emails, phones and cards at once: the edges that creates. Rows of one batch decided
// apart (a card the program has, linked alone between new members), a row that fails when written
// together (its neighbours written, it refused alone), webhook events as the one-by-one writers
// make them, and on PostgreSQL a contact another transaction registers between the batch's look-up
// and its write. The import's behaviour as a whole: test/core/import-members.test.ts.

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

const run = (engine: Engine, vendor: VendorCredentials, text: string): Promise<ImportReport> =>
  importMembers(engine, { vendorId: vendor.vendorId, fileName: 'members.csv', records: readMemberFile(text).records, dryRun: false });

const outcomes = (report: ImportReport) => report.reported.map((r) => `${r.line} ${r.outcome} ${r.reason}`);

describe.each(BACKENDS)('a batch of the member import ($name)', (backend) => {
  async function program() {
    const opened = await openEngine(backend, new ManualClock());
    open.push(opened);
    const vendor = await setUpVendor(opened.engine, testVendor('Café Uno'));
    return { engine: opened.engine, vendor };
  }

  it('decides each row on its own when new members, a card the program has, a member and refusals share a batch', async () => {
    const { engine, vendor } = await program();
    const scope = { vendorId: vendor.vendorId };
    const kept = await createCard(engine, scope, { number: 'GIFT01' });
    const archived = await createCard(engine, scope, { number: 'GONE01' });
    await updateCard(engine, scope, archived.publicId, { status: 'ARCHIVED' });
    const other = await setUpVendor(engine, testVendor('Other Café'));
    await registerInStore(engine, await authenticateApiKey(engine, vendor.apiKey), { email: 'rosa@example.com', firstName: 'Rosa' });
    await registerInStore(engine, await authenticateApiKey(engine, other.apiKey), { email: 'tom@example.com', firstName: 'Tom' });
    const report = await run(
      engine,
      vendor,
      [
        'name,email,card,points,quick_pay',
        'Ana,ana@example.com,NEW01,10,1.00',
        'Ben,ben@example.com,gift01,20,',
        'Cal,cal@example.com,GONE01,30,',
        'Rosa,rosa@example.com,,40,',
        'Tom,tom@example.com,,50,',
        'Dee,dee@example.com,new01,60,',
        'Eva,eva@example.com,NEW02,70,2.00',
      ].join('\n'),
    );
    expect(outcomes(report)).toEqual(['4 refused card_not_active', '5 skipped already_member', '6 refused account_not_member', '7 refused duplicate_in_file']);
    expect(report).toMatchObject({ imported: 3, alreadyMembers: 1, refused: 3, points: 10 + 20 + 70, quickPay: 300 });

    // Written in file order (ids are taken as one row at a time takes them), the card the program had linked, the new ones made.
    const entries = await engine.db.selectFrom('ledger_entries as e').innerJoin('ledger_accounts as a', 'a.id', 'e.account_id').innerJoin('users as u', 'u.id', 'a.holder_id').select(['u.email', 'e.amount', 'e.reference_id']).orderBy('e.id').execute();
    expect(entries.map((e) => [e.email, Number(e.amount), e.reference_id!.split(':')[1]])).toEqual([
      ['ana@example.com', 10, '2'],
      ['ana@example.com', 100, '2'],
      ['ben@example.com', 20, '3'],
      ['eva@example.com', 70, '8'],
      ['eva@example.com', 200, '8'],
    ]);
    const links = await engine.db.selectFrom('user_cards as uc').innerJoin('cards as c', 'c.id', 'uc.card_id').innerJoin('users as u', 'u.id', 'uc.user_id').select(['u.email', 'c.id', 'c.number']).orderBy('uc.id').execute();
    expect(links.map((l) => [l.email, l.number])).toEqual([['ana@example.com', 'NEW01'], ['ben@example.com', 'GIFT01'], ['eva@example.com', 'NEW02']]);
    expect(links[1]!.id).toBe(kept.id);
    const eva = await engine.db.selectFrom('users').select('id').where('email_key', '=', 'eva@example.com').executeTakeFirstOrThrow();
    expect(await holderBalance(engine.db, { holderType: 'user', holderId: eva.id, currencyId: vendor.quickPayCurrencyId })).toBe(200);
    // Each new member: a membership in the entry tier, one welcome message, one history record a balance.
    const imported = await engine.db
      .selectFrom('users as u')
      .innerJoin('user_vendors as m', 'm.user_id', 'u.id')
      .select((eb) => [
        'u.email',
        'm.tier_id',
        eb.selectFrom('inbox_messages as i').select((x) => x.fn.countAll<number>().as('n')).whereRef('i.user_id', '=', 'u.id').where('i.kind', '=', 'welcome').as('welcomes'),
        eb.selectFrom('transactions as t').select('t.quick_pay_balance').whereRef('t.user_id', '=', 'u.id').where('t.kind', '=', 'import').as('history_balance'),
      ])
      .where('u.email', 'in', ['ana@example.com', 'ben@example.com', 'eva@example.com'])
      .orderBy('u.id')
      .execute();
    expect(imported.map((m) => [m.email, m.tier_id !== null, Number(m.welcomes), Number(m.history_balance)])).toEqual([
      ['ana@example.com', true, 1, 100],
      ['ben@example.com', true, 1, 0],
      ['eva@example.com', true, 1, 200],
    ]);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('refuses a row that fails when written with its batch alone, and writes its neighbours', async () => {
    const { engine, vendor } = await program();
    // A key no look-up of the import reads: the batch's write fails on it, as on a contact another transaction took.
    await sql`create unique index import_test_twin on users (last_name) where last_name = 'Twin'`.execute(engine.db);
    await registerInStore(engine, await authenticateApiKey(engine, vendor.apiKey), { email: 'first-twin@example.com', firstName: 'First', lastName: 'Twin' });
    const report = await run(engine, vendor, ['first_name,last_name,email,card,points', 'Ana,Lopez,ana@example.com,C1,10', 'Second,Twin,twin@example.com,C2,20', 'Cal,Kim,cal@example.com,C3,30'].join('\n'));
    expect(report.reported.map((r) => [r.line, r.outcome, r.reason])).toEqual([[3, 'refused', 'contact_taken']]);
    expect(report).toMatchObject({ imported: 2, refused: 1, points: 40 });
    const users = await engine.db.selectFrom('users').select('email').orderBy('id').execute();
    expect(users.map((u) => u.email)).toEqual(['first-twin@example.com', 'ana@example.com', 'cal@example.com']);
    const cards = await engine.db.selectFrom('cards').select('number').orderBy('id').execute();
    expect(cards.map((c) => c.number)).toEqual(['C1', 'C3']);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('after a failed write, writes the batch one row at a time within the batch’s time, and the next batch goes on from the first row not written', async () => {
    const { engine, vendor } = await program();
    await sql`create unique index import_test_twin on users (last_name) where last_name = 'Twin'`.execute(engine.db);
    await registerInStore(engine, await authenticateApiKey(engine, vendor.apiKey), { email: 'first-twin@example.com', firstName: 'First', lastName: 'Twin' });
    const rows = Array.from({ length: 400 }, (_, i) => (i === 1 ? 'Second,Twin,twin@example.com,C1,1' : `Member,${i},m${i}@example.com,C${i},${i}`));
    const report = await run(engine, vendor, ['first_name,last_name,email,card,points', ...rows].join('\n'));
    expect(report.reported.map((r) => [r.line, r.reason])).toEqual([[3, 'contact_taken']]);
    expect(report).toMatchObject({ imported: 399, refused: 1 });
    // However the time split them, the batches cover the file once, in order, each audited with its counts.
    const audit = (await engine.db.selectFrom('audit_log').select('after').where('action', '=', 'customers.import').orderBy('id').execute()).map((a) => JSON.parse(a.after!));
    const ranges = audit.map((a) => (a.lines as string).split('-').map(Number) as [number, number]);
    expect(ranges[0]![0]).toBe(2);
    expect(ranges.at(-1)![1]).toBe(401);
    for (const [i, [first, last]] of ranges.entries()) {
      expect(last - first + 1).toBe(audit[i].imported + audit[i].refused);
      if (i > 0) expect(first).toBe(ranges[i - 1]![1] + 1);
    }
    expect(await engine.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).toEqual({ n: 400 });
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  }, 120_000);

  it('writes the webhook events the one-by-one writers write, for the endpoints that want them', async () => {
    const { engine, vendor } = await program();
    const scope = { vendorId: vendor.vendorId };
    await createWebhookEndpoint(engine, scope, { url: 'https://hooks.example.com/a', events: ['customer.registered', 'user_card.created', 'balance.updated'] }, { allowPrivate: false });
    await createWebhookEndpoint(engine, scope, { url: 'https://hooks.example.com/b', events: ['balance.updated'] }, { allowPrivate: false });
    await run(engine, vendor, ['name,email,card,points,quick_pay', 'Ana López,ana@example.com,OLD1,10,1.50', 'Ben,ben@example.com,,20,'].join('\n'));
    const events = await engine.db.selectFrom('webhook_events').select(['id', 'type', 'data']).execute();
    const ofType = (type: string) => events.filter((e) => e.type === type).map((e) => JSON.parse(e.data));
    const ana = await engine.db.selectFrom('users').select('id').where('email_key', '=', 'ana@example.com').executeTakeFirstOrThrow();
    expect(ofType('customer.registered')).toHaveLength(2);
    expect(ofType('customer.registered').find((d) => d.user.user_id === ana.id)).toEqual({ user: { user_id: ana.id, first_name: 'Ana', last_name: 'López', email_address: 'ana@example.com', birthdate: null, status: 'active' }, via: 'import' });
    expect(ofType('user_card.created')).toMatchObject([{ user: { user_id: ana.id }, card: { cardType: 'loyalty', number: 'OLD1', pin: null }, status: 'ACTIVE' }]);
    const balances = ofType('balance.updated').map((d) => [d.user.user_id === ana.id ? 'ana' : 'ben', d.balance.amount, d.balance.total, d.balance.currency.code, d.transaction_detail.kind]);
    expect(balances.sort()).toEqual([['ana', 1.5, 1.5, 'USD', 'import'], ['ana', 10, 10, null, 'import'], ['ben', 20, 20, null, 'import']]);
    // One delivery per endpoint that wants the kind: 2 + 1 + 3 to the first, 3 to the second.
    const deliveries = await engine.db.selectFrom('webhook_deliveries').select(['event_id', 'status']).execute();
    expect(deliveries).toHaveLength(9);
    expect(deliveries.every((d) => d.status === 'pending' && events.some((e) => e.id === d.event_id))).toBe(true);
  });
});

describe.skipIf(!process.env.PG_URL)('the member import on PostgreSQL beside a counter (PG_URL)', () => {
  it('meets a contact another transaction registered after its look-up as one row at a time meets it, and writes the rest', async () => {
    const scratch = await openTestPostgres();
    const engine = await startEngine({ database: scratch.database, nodeKey: randomBytes(32), clock: new ManualClock(), role: 'store' });
    open.push({ close: () => scratch.drop() });
    const vendor = await setUpVendor(engine, testVendor('Café Uno'));
    const observer = new pg.Client({ connectionString: scratch.url });
    await observer.connect();
    open.push({ close: () => observer.end() });

    // A counter registers bea@ in a transaction still open while the import reads its batch.
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let registered!: () => void;
    const inside = new Promise<void>((resolve) => (registered = resolve));
    const counter = engine.db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, engine, { email: 'bea@example.com', email_key: 'bea@example.com', password_hash: null, first_name: 'Bea', last_name: '', phone: null, cedula: null, birthdate: null, first_vendor_id: vendor.vendorId });
      await linkUserToVendor(trx, engine, { userId: user.id, vendorId: vendor.vendorId, via: 'counter' });
      registered();
      await held;
      return user.id;
    });
    await inside;
    const importing = run(engine, vendor, ['name,email,card,points', 'Ana,ana@example.com,C1,10', 'Bea,bea@example.com,C2,20', 'Cal,cal@example.com,C3,30'].join('\n'));
    // The import has read the batch (bea@ not there yet) and waits for the node's write lock to write it.
    await waitForLockWait(observer);
    commit();
    const beaId = await counter;
    const report = await importing;

    expect(report.reported.map((r) => [r.line, r.outcome, r.reason, r.customer_id])).toEqual([[3, 'skipped', 'already_member', beaId]]);
    expect(report).toMatchObject({ imported: 2, alreadyMembers: 1, refused: 0, points: 40 });
    const members = await engine.db.selectFrom('users as u').innerJoin('user_vendors as m', 'm.user_id', 'u.id').select('u.email').orderBy('u.id').execute();
    expect(members.map((m) => m.email)).toEqual(['bea@example.com', 'ana@example.com', 'cal@example.com']);
    expect(await engine.db.selectFrom('cards').select('number').orderBy('id').execute()).toEqual([{ number: 'C1' }, { number: 'C3' }]);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });
});
