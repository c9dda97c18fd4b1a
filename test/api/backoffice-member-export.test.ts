import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { importMembers } from '../../src/core/import/import-members';
import { memberFileText, readMemberFile } from '../../src/core/import/member-file';
import { MEMBER_EXPORT_PAGE, MEMBER_EXPORT_TIME_LIMIT_MS, MEMBER_EXPORTS_AT_ONCE, memberExportCsv, memberExportPage, memberExportSettings, planMemberExport } from '../../src/core/member-export/member-export';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS } from '../support/backends';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ManualClock } from '../support/clock';
import { type Customer, loginAt, PASSWORD, phoneOnlyGuestAt, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The program's members as a CSV (GET /backoffice/customers/export.csv), over real HTTP on SQLite
// and PostgreSQL: one row per current member with the import's columns and every balance read from
// the ledger (points in two loyalty currencies, stored value), a removed member absent, a formula
// neutralised; owners only; audited; a paired store's is central's (409); and the file imports
// unchanged into a fresh program (another database) with the same members and balances.

const NODES: Array<{ name: string; start(): Promise<ServedNode> }> = [
  { name: 'SQLite', start: () => startTestNode({ rateLimits: ROOMY_RATE_LIMITS }) },
  { name: 'PostgreSQL', start: () => startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS }) },
];

/** RFC 4180 records of a comma-separated text. */
function csvRecords(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

describe.each(NODES)('the members as a CSV on $name', ({ start }) => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;
  let manager: SignedInStaff;
  let storeManager: SignedInStaff;
  let stars: { id: number; public_id: string };
  const ids: Record<string, number> = {};
  const dashEmail = `-dash.${randomBytes(3).toString('hex')}@example.com`;

  const adjust = async (userId: number, currencyId: number, amount: number) => {
    const currency = await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', currencyId).executeTakeFirstOrThrow();
    const reply = await staffCall(asNode(), owner.token, 'POST', `/backoffice/customers/${userId}/adjustments`, { currency: currency.public_id, amount, reason: 'Opening balance' });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  };
  const download = async (token: string | null) => {
    const response = await fetch(`${node.url}/backoffice/customers/export.csv`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
  };
  const text = (bytes: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  /** Runs `use` on a fresh program of another engine on the node's kind of database (where a downloaded file is imported). */
  const inFreshProgram = async (use: (engine: Engine, fresh: VendorCredentials) => Promise<void>) => {
    const backend = BACKENDS.find((b) => (node.engine.dialect === 'sqlite' ? b.name === 'sqlite' : b.name !== 'sqlite'))!;
    const opened = await backend.open();
    const engine = await startEngine({ database: opened.database, nodeKey: randomBytes(32), clock: new ManualClock(), role: 'central' });
    try {
      await use(engine, await setUpVendor(engine, { name: 'Café Nuevo', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main Street', city: 'Springfield' } }));
    } finally {
      await engine.close();
      await opened.close();
    }
  };

  beforeAll(async () => {
    node = await start();
    vendor = await node.addVendor('Café Sol');
    owner = await ownerOf(asNode(), vendor.vendorId);
    manager = await invitedStaff(asNode(), owner, 'manager');
    storeManager = await invitedStaff(asNode(), owner, 'store_manager', vendor.storeId);
    const made = await http(`${node.url}/currencies`, { method: 'POST', token: vendor.accessToken, body: 'name=Stars', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    stars = await node.engine.db.selectFrom('currencies').select(['id', 'public_id']).where('vendor_id', '=', vendor.vendorId).where('name', '=', 'Stars').executeTakeFirstOrThrow();

    const lucia = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Lucía', last_name: 'Fernández, Ruiz', contact_consent: 1 });
    ids.lucia = lucia.userId;
    await node.engine.db.updateTable('users').set({ birthdate: Date.UTC(1990, 2, 15) }).where('id', '=', lucia.userId).execute();
    expect((await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number: 'SOL0001' } })).status).toBe(201);
    expect((await http(`${node.url}/user/card/add?session_identifier=${encodeURIComponent(lucia.key)}`, { method: 'POST', body: { number: 'SOL0001' } })).status).toBe(200);
    await adjust(lucia.userId, vendor.loyaltyCurrencyId, 120);
    await adjust(lucia.userId, stars.id, 7);
    await adjust(lucia.userId, vendor.quickPayCurrencyId, 1250);

    ids.pablo = await phoneOnlyGuestAt(asNode(), vendor.apiKey, { number: '4155550102', code: '1', e164: '+14155550102' }, { first_name: 'Pablo', last_name: 'Ortega' });
    await adjust(ids.pablo, vendor.quickPayCurrencyId, 5);

    const mallory = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Mallory', last_name: 'Hacker', contact_consent: 3 });
    ids.mallory = mallory.userId;
    await node.engine.db.updateTable('users').set({ first_name: '=HYPERLINK("http://evil.test","Click")' }).where('id', '=', mallory.userId).execute();

    // Seventeenth round's review: an email a spreadsheet would take for a formula (sign-up takes
    // it), and a placeholder birthday the app takes but the import would refuse the row for.
    const dash = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Dash', last_name: 'Placeholder', email_address: dashEmail });
    ids.dash = dash.userId;
    await node.engine.db.updateTable('users').set({ birthdate: Date.UTC(1900, 0, 1) }).where('id', '=', dash.userId).execute();

    // Another program's member is not in this program's file.
    const other = await node.addVendor('Café Luna');
    await signUpAt(asNode(), other.vendorId, { first_name: 'Stranger', last_name: 'Luna' });

    // A member removed at their request, whose account stays (a member of Café Luna too): their old membership is not in the file.
    const erased = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Erased', last_name: 'Away' });
    expect((await staffCall(asNode(), owner.token, 'POST', `/backoffice/customers/${erased.userId}/remove`, { reason: 'asked to leave' })).body).toEqual({ removed: true, erased: true });
    const gone = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Gone', last_name: 'Away' });
    expect((await loginAt(asNode(), gone.email, PASSWORD, other.vendorId)).status).toBe(200);
    const removed = await staffCall(asNode(), owner.token, 'POST', `/backoffice/customers/${gone.userId}/remove`, { reason: 'asked to leave' });
    expect(removed.body).toEqual({ removed: true, erased: false });
  }, 120_000);
  afterAll(() => node?.close());

  it('gives an owner every current member with the import’s columns and each balance from the ledger', async () => {
    const reply = await download(owner.token);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(reply.headers.get('content-disposition')).toMatch(/^attachment; filename="members-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect([...reply.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [header, ...rows] = csvRecords(text(reply.bytes).slice(1));
    expect(header).toEqual([
      'first_name', 'last_name', 'email', 'phone', 'card', 'points', 'quick_pay', 'birthdate', 'marketing', 'sms_marketing', 'language', 'points_expire_on',
      'member_since', 'tier', 'blocked', 'other_cards', 'points:Points', 'points_expire_on:Points', 'stored_value:USD', 'points:Stars', 'points_expire_on:Stars',
    ]);
    const byName = new Map(rows.map((r) => [r[0], Object.fromEntries(header!.map((h, i) => [h, r[i]]))]));
    expect([...byName.keys()].sort()).toEqual(["'=HYPERLINK(\"http://evil.test\",\"Click\")", 'Dash', 'Lucía', 'Pablo']);
    // Guarded for the spreadsheet (the import takes the apostrophe off); no birthday the import would refuse the member for.
    expect(byName.get('Dash')).toMatchObject({ email: `'${dashEmail}`, birthdate: '' });
    expect(byName.get('Lucía')).toMatchObject({
      last_name: 'Fernández, Ruiz', card: 'SOL0001', points: '120', quick_pay: '12.50', birthdate: '1990-03-15', marketing: 'yes', sms_marketing: 'no',
      blocked: 'no', 'points:Points': '120', 'points:Stars': '7', 'stored_value:USD': '12.50',
      // Adjustments: points without a date (the importing program's rule dates them).
      points_expire_on: '', 'points_expire_on:Points': '', 'points_expire_on:Stars': '',
    });
    expect(byName.get('Lucía')!.member_since).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(byName.get('Pablo')).toMatchObject({ email: '', phone: '+14155550102', quick_pay: '0.05', points: '0', 'points:Stars': '0', 'stored_value:USD': '0.05' });
    expect(byName.get("'=HYPERLINK(\"http://evil.test\",\"Click\")")).toMatchObject({ marketing: 'yes', sms_marketing: 'yes' });
    expect(text(reply.bytes)).not.toContain('Gone');
    expect(text(reply.bytes)).not.toContain('Erased');
    expect(text(reply.bytes)).not.toContain('Stranger');
  });

  it('is the owners’: a manager and a store manager 403, no session 401', async () => {
    for (const who of [manager, storeManager]) {
      const reply = await download(who.token);
      expect([reply.status, JSON.parse(text(reply.bytes)).code]).toEqual([403, 'forbidden']);
    }
    expect((await download(null)).status).toBe(401);
  });

  it('is audited: who, and how many rows', async () => {
    await download(owner.token);
    const entries = await node.engine.db.selectFrom('audit_log').selectAll().where('action', '=', 'customers.exported').where('vendor_id', '=', vendor.vendorId).orderBy('id', 'desc').execute();
    expect(entries.length).toBeGreaterThanOrEqual(1);
    const audit = await staffCall(asNode(), owner.token, 'GET', '/backoffice/audit');
    const entry = audit.body.items.find((e: any) => e.action === 'customers.exported');
    expect(entry).toMatchObject({ actor: owner.email, object_type: 'program' });
    expect(JSON.stringify(entry)).toContain('"rows":4');
    // A HEAD would run the whole export to send nothing (and audit it): there is none.
    const before = entries.length;
    const head = await fetch(`${node.url}/backoffice/customers/export.csv`, { method: 'HEAD', headers: { authorization: `Bearer ${owner.token}` } });
    expect(head.status).not.toBe(200);
    const after = await node.engine.db.selectFrom('audit_log').select('id').where('action', '=', 'customers.exported').where('vendor_id', '=', vendor.vendorId).execute();
    expect(after.length).toBe(before);
  });

  it('is central’s on a paired store: 409 member_list_managed_by_central', async () => {
    const role = node.engine.programRole;
    node.engine.programRole = 'replica';
    try {
      const reply = await download(owner.token);
      expect([reply.status, JSON.parse(text(reply.bytes)).code]).toEqual([409, 'member_list_managed_by_central']);
    } finally {
      node.engine.programRole = role;
    }
  });

  it('imports unchanged into a fresh program: the same members with the same balances', async () => {
    const file = (await download(owner.token)).bytes;
    await inFreshProgram(async (engine, fresh) => {
      const read = readMemberFile(memberFileText(file));
      expect(read.ignoredColumns).toEqual(['member_since', 'tier', 'blocked', 'other_cards', 'stored_value:usd']);
      const report = await importMembers(engine, { vendorId: fresh.vendorId, fileName: 'members.csv', records: read.records, decimalMark: read.decimalMark, dryRun: false });
      expect(report).toMatchObject({ imported: 4, refused: 0, points: 120, quickPay: 1255 });
      // Points' own columns are the points column's (it wins); the fresh program has no Stars.
      expect(report.columnsNotRead).toEqual(['points:points', 'points_expire_on:points', 'points:stars', 'points_expire_on:stars']);
      expect(await engine.db.selectFrom('users').select('email').where('email_key', '=', dashEmail).executeTakeFirst()).toEqual({ email: dashEmail });
      const importColumns = (rows: string[]) => rows.map((line) => csvRecords(`${line}\r\n`)[0]!.slice(0, 12)).sort();
      const staff = { vendorId: fresh.vendorId } as StaffPrincipal;
      const again = await memberExportPage(engine.db, await planMemberExport(engine, staff), 0);
      const original = csvRecords(text(file).slice(1)).slice(1).map((r) => r.slice(0, 12)).sort();
      expect(importColumns(again.lines)).toEqual(original);
    });
  });

  it('carries a balance below zero over as nothing owed in the import’s columns, the true figure beside it (the import refused the row)', async () => {
    // Points spent, then the sale that earned them voided: -40 (seventeenth round's review).
    const api = inStoreApi(asNode);
    const neg = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Nela', last_name: 'Below' });
    await adjust(neg.userId, vendor.quickPayCurrencyId, 2500);
    const reward = (await api.addReward(vendor, { name: 'Lunch', cost: 40 })).id;
    await api.orderOk(vendor.apiKey, { card_number: neg.email, receipt_number: 'NEG-1', subtotal: 50 });
    await api.orderOk(vendor.apiKey, { card_number: neg.email, receipt_number: 'NEG-2', subtotal: 0, redemptions: [reward] });
    await api.voidOk(vendor.apiKey, 'NEG-1', { contentType: true });
    expect(await api.balanceOf(vendor.loyaltyCurrencyId, neg.userId)).toBe(-40);

    const file = (await download(owner.token)).bytes;
    const [header, ...rows] = csvRecords(text(file).slice(1));
    const nela = Object.fromEntries(header!.map((h, i) => [h, rows.find((r) => r[0] === 'Nela')![i]]));
    expect(nela).toMatchObject({ points: '0', quick_pay: '25.00', 'points:Points': '-40', 'stored_value:USD': '25.00' });

    await inFreshProgram(async (engine, fresh) => {
      const read = readMemberFile(memberFileText(file));
      const report = await importMembers(engine, { vendorId: fresh.vendorId, fileName: 'members.csv', records: read.records, decimalMark: read.decimalMark, dryRun: false });
      expect(report.reported).toEqual([]);
      expect(await engine.db.selectFrom('users').select('first_name').where('email_key', '=', neg.email.toLowerCase()).executeTakeFirst()).toEqual({ first_name: 'Nela' });
    });
  });

  it('carries a member known here by their card alone (no contact in the file) into a fresh program: enrolled by that card, balances with them', async () => {
    // A customer of another program the counter enrolled by their email and a card of this one: the
    // program sees their name and card, never their contacts (seenAtCounter), so the file has none.
    const elsewhere = await node.addVendor('Café Estrella');
    const carla = await signUpAt(asNode(), elsewhere.vendorId, { first_name: 'Carla', last_name: 'Tarjeta' });
    expect((await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number: 'SOL0077' } })).status).toBe(201);
    const enrolled = await http(`${node.url}/onscreen/register?api_key=${encodeURIComponent(vendor.apiKey)}`, { method: 'POST', body: { email: carla.email, card_number: 'SOL0077' } });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBeLessThan(300);
    await adjust(carla.userId, vendor.loyaltyCurrencyId, 30);
    await adjust(carla.userId, vendor.quickPayCurrencyId, 450);

    const file = (await download(owner.token)).bytes;
    const [header, ...rows] = csvRecords(text(file).slice(1));
    const row = Object.fromEntries(header!.map((h, i) => [h, rows.find((r) => r[0] === 'Carla')![i]]));
    expect(row).toMatchObject({ last_name: 'T.', email: '', phone: '', card: 'SOL0077', points: '30', quick_pay: '4.50' });

    await inFreshProgram(async (engine, fresh) => {
      const read = readMemberFile(memberFileText(file));
      const report = await importMembers(engine, { vendorId: fresh.vendorId, fileName: 'members.csv', records: read.records, decimalMark: read.decimalMark, dryRun: false });
      expect(report.reported).toEqual([]);
      const member = await engine.db
        .selectFrom('cards as c')
        .innerJoin('user_cards as uc', 'uc.card_id', 'c.id')
        .innerJoin('users as u', 'u.id', 'uc.user_id')
        .innerJoin('user_vendors as uv', (join) => join.onRef('uv.user_id', '=', 'u.id').on('uv.vendor_id', '=', fresh.vendorId))
        .select(['u.id', 'u.first_name', 'u.last_name', 'u.email', 'u.phone', 'uc.status'])
        .where('c.vendor_id', '=', fresh.vendorId)
        .where('c.number', '=', 'SOL0077')
        .where('uv.removed_at', 'is', null)
        .executeTakeFirstOrThrow();
      expect(member).toMatchObject({ first_name: 'Carla', last_name: 'T.', email: null, phone: null, status: 'ACTIVE' });
      const balances = await engine.db.selectFrom('ledger_accounts').select(['currency_id', 'balance']).where('holder_type', '=', 'user').where('holder_id', '=', member.id).orderBy('currency_id').execute();
      expect(balances.map((b) => [Number(b.currency_id), Number(b.balance)]).sort()).toEqual([[fresh.loyaltyCurrencyId, 30], [fresh.quickPayCurrencyId, 450]].sort());
      // Found again by the card: the same file a second time skips them.
      const again = await importMembers(engine, { vendorId: fresh.vendorId, fileName: 'members.csv', records: read.records, decimalMark: read.decimalMark, dryRun: false });
      expect(again.reported.find((r) => r.customer_id === Number(member.id))).toMatchObject({ outcome: 'skipped', reason: 'already_member', field: 'card' });
    });
  });

  it('carries two loyalty currencies’ balances and the days their points expire into a fresh program with both; a currency it lacks is not read', async () => {
    // Twentieth round: Points and Stamps (1 per 5 dollars) earned at the counter in a New York
    // program whose points expire after 30 days, and Gems the fresh program does not have.
    const api = inStoreApi(asNode);
    // Late evening in New York: the UTC day is already the next one (the last test of this node: its clock moves on).
    node.clock.set(Date.UTC(2026, 11, 8, 3, 30));
    const cafe = await node.addVendor('Café Dos');
    const cafeOwner = await ownerOf(asNode(), cafe.vendorId);
    const bearer = { token: cafe.accessToken };
    const currency = async (name: string) => {
      const made = await http(`${node.url}/currencies`, { method: 'POST', ...bearer, body: { name } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return Number((await node.engine.db.selectFrom('currencies').select('id').where('public_id', '=', made.body.id).executeTakeFirstOrThrow()).id);
    };
    const stampsId = await currency('Stamps');
    const gemsId = await currency('Gems');
    const stampsPublicId = (await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', stampsId).executeTakeFirstOrThrow()).public_id;
    expect((await http(`${node.url}/earning-rules`, { method: 'POST', ...bearer, body: { name: '1 stamp per 5 dollars', currency: stampsPublicId, points: 1, per_amount: 5 } })).status).toBe(201);
    expect((await http(`${node.url}/program/settings`, { method: 'PUT', ...bearer, body: { points_expiry_days: 30 } })).status).toBe(200);
    await node.engine.db.updateTable('stores').set({ time_zone: 'America/New_York' }).where('vendor_id', '=', cafe.vendorId).execute();
    const ana = await signUpAt(asNode(), cafe.vendorId, { first_name: 'Ana', last_name: 'Dos' });
    const ben = await signUpAt(asNode(), cafe.vendorId, { first_name: 'Ben', last_name: 'Dos' });
    const gems = await node.engine.db.selectFrom('currencies').select('public_id').where('id', '=', gemsId).executeTakeFirstOrThrow();
    expect((await staffCall(asNode(), cafeOwner.token, 'POST', `/backoffice/customers/${ben.userId}/adjustments`, { currency: gems.public_id, amount: 9, reason: 'Opening balance' })).status).toBe(201);
    await api.orderOk(cafe.apiKey, { card_number: ana.email, receipt_number: 'DOS-1', subtotal: 40 });
    node.clock.advance(3 * 24 * 3600_000);
    await api.orderOk(cafe.apiKey, { card_number: ana.email, receipt_number: 'DOS-2', subtotal: 25 });
    await api.orderOk(cafe.apiKey, { card_number: ben.email, receipt_number: 'DOS-3', subtotal: 10 });
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const lastDay = day(Date.UTC(2027, 0, 9)); // 10 Jan 03:30Z + 30 days is the evening of 9 January in New York
    expect(lastDay).toBe('2027-01-09');

    const file = (await download((await ownerOf(asNode(), cafe.vendorId)).token)).bytes;
    const [header, ...rows] = csvRecords(text(file).slice(1));
    const rowOf = (name: string) => Object.fromEntries(header!.map((h, i) => [h, rows.find((r) => r[0] === name)![i]]));
    // Ana's lots expire on 6 and 9 January: the latest day, so none of her points goes sooner than it would have.
    expect(rowOf('Ana')).toMatchObject({ points: '65', points_expire_on: lastDay, 'points:Points': '65', 'points_expire_on:Points': lastDay, 'points:Stamps': '13', 'points_expire_on:Stamps': lastDay });
    expect(rowOf('Ben')).toMatchObject({ points: '10', points_expire_on: lastDay, 'points:Stamps': '2', 'points_expire_on:Stamps': lastDay, 'points:Gems': '9', 'points_expire_on:Gems': '' });

    await inFreshProgram(async (engine, fresh) => {
      (engine.clock as ManualClock).set(node.clock.now());
      await engine.db.updateTable('stores').set({ time_zone: 'America/New_York' }).where('vendor_id', '=', fresh.vendorId).execute();
      const freshStamps = await createCurrency(engine, { vendorId: fresh.vendorId }, { name: 'Stamps' });
      const read = readMemberFile(memberFileText(file));
      const report = await importMembers(engine, { vendorId: fresh.vendorId, fileName: 'members.csv', records: read.records, decimalMark: read.decimalMark, dryRun: false, pointsCurrency: 'Points' });
      expect(report.reported).toEqual([]);
      expect(report.pointsByCurrency).toEqual([
        { currency: expect.stringMatching(/^curr_/), name: 'Points', points: 75 },
        { currency: freshStamps.publicId, name: 'Stamps', points: 15 },
      ]);
      expect(report.columnsNotRead).toEqual(['points:points', 'points_expire_on:points', 'points:gems', 'points_expire_on:gems']);
      // Exported again from the fresh program: the same balances and days in every loyalty column.
      const again = await memberExportPage(engine.db, await planMemberExport(engine, { vendorId: fresh.vendorId } as StaffPrincipal), 0);
      const againHeader = (await planMemberExport(engine, { vendorId: fresh.vendorId } as StaffPrincipal)).header.split(',');
      const againRow = (name: string) => Object.fromEntries(againHeader.map((h, i) => [h, again.lines.map((line) => csvRecords(`${line}\r\n`)[0]!).find((r) => r[0] === name)![i]]));
      const loyaltyColumns = ['points', 'points_expire_on', 'points:Points', 'points_expire_on:Points', 'points:Stamps', 'points_expire_on:Stamps'];
      const pick = (row: Record<string, string | undefined>) => Object.fromEntries(loyaltyColumns.map((c) => [c, row[c]]));
      expect(pick(againRow('Ana'))).toEqual(pick(rowOf('Ana')));
      expect(pick(againRow('Ben'))).toEqual(pick(rowOf('Ben')));
    });
  });

  it('carries a currency whose name ends in parentheses (Points and Points (2024)) into a fresh program with both, each balance to its own', async () => {
    // Twentieth round (review): `points:Points (2024)` was read as Points with the public id "2024",
    // landed on Points (the points column's) and was not read: the 2024 balance was lost.
    const tres = await node.addVendor('Café Tres');
    const tresOwner = await ownerOf(asNode(), tres.vendorId);
    const made = await http(`${node.url}/currencies`, { method: 'POST', token: tres.accessToken, body: { name: 'Points (2024)' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const points = await node.engine.db.selectFrom('currencies').select('public_id').where('vendor_id', '=', tres.vendorId).where('name', '=', 'Points').executeTakeFirstOrThrow();
    const eva = await signUpAt(asNode(), tres.vendorId, { first_name: 'Eva', last_name: 'Tres' });
    for (const [currency, amount] of [[points.public_id, 30], [made.body.id as string, 7]] as const) {
      const reply = await staffCall(asNode(), tresOwner.token, 'POST', `/backoffice/customers/${eva.userId}/adjustments`, { currency, amount, reason: 'Opening balance' });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    }
    const file = (await download(tresOwner.token)).bytes;
    const [header, row] = csvRecords(text(file).slice(1));
    expect(Object.fromEntries(header!.map((h, i) => [h, row![i]]))).toMatchObject({ points: '30', 'points:Points': '30', 'points:Points (2024)': '7' });

    await inFreshProgram(async (engine, fresh) => {
      const fresh2024 = await createCurrency(engine, { vendorId: fresh.vendorId }, { name: 'Points (2024)' });
      const read = readMemberFile(memberFileText(file));
      const report = await importMembers(engine, { vendorId: fresh.vendorId, fileName: 'members.csv', records: read.records, decimalMark: read.decimalMark, dryRun: false, pointsCurrency: 'Points' });
      expect(report.reported).toEqual([]);
      expect(report.columnsNotRead).toEqual(['points:points', 'points_expire_on:points']);
      expect(report.pointsByCurrency).toEqual([
        { currency: expect.stringMatching(/^curr_/), name: 'Points', points: 30 },
        { currency: fresh2024.publicId, name: 'Points (2024)', points: 7 },
      ]);
      const balances = await engine.db
        .selectFrom('ledger_accounts as a')
        .innerJoin('currencies as c', 'c.id', 'a.currency_id')
        .innerJoin('users as u', 'u.id', 'a.holder_id')
        .select(['c.name', 'a.balance'])
        .where('u.email', '=', eva.email)
        .orderBy('c.id')
        .execute();
      expect(balances.map((b) => [b.name, Number(b.balance)])).toEqual([['Points', 30], ['Points (2024)', 7]]);
    });
  });
});


// Eighteenth round: one download reads one snapshot, taken when it starts. Pages of two rows, the
// download paused after its first page; meanwhile a member already written is merged into, one
// already written re-joins (a new membership, further on), one not yet written is renamed, one
// earns at the counter, a new one joins. The file is the one a download made just before — no row
// twice, none missing, none changed — and the counter's sale went through while it was paused.
// PostgreSQL on a server (PG_URL): the embedded one has a single connection, nothing writes beside
// a read there.
const SNAPSHOT_NODES = NODES.filter((n) => n.name === 'SQLite' || process.env.PG_URL);

describe.each(SNAPSHOT_NODES)('one download is one snapshot on $name', ({ name, start }) => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;
  let vendor: VendorCredentials;
  let other: VendorCredentials;
  let owner: SignedInStaff;
  const members: Customer[] = [];
  let receipts = 0;

  beforeAll(async () => {
    node = await start();
    vendor = await node.addVendor('Café Instante');
    other = await node.addVendor('Café Otro');
    owner = await ownerOf(asNode(), vendor.vendorId);
    for (let i = 0; i < 6; i += 1) members.push(await signUpAt(asNode(), vendor.vendorId, { first_name: `Member${i}`, last_name: 'Snap' }));
  }, 120_000);
  afterEach(() => {
    memberExportSettings.rows = MEMBER_EXPORT_PAGE;
    memberExportSettings.timeLimitMs = MEMBER_EXPORT_TIME_LIMIT_MS;
    memberExportSettings.betweenPages = null;
  });
  afterAll(() => node?.close());

  const url = () => `${node.url}/backoffice/customers/export.csv`;
  const downloadText = async () => {
    const response = await fetch(url(), { headers: { authorization: `Bearer ${owner.token}` } });
    expect(response.status).toBe(200);
    return response.text();
  };
  /** A download with pages of two rows that stops after its first page until `resume` is called. */
  const pausedDownload = async (signal?: AbortSignal) => {
    let reached!: () => void;
    const paused = new Promise<void>((resolve) => (reached = resolve));
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let pages = 0;
    memberExportSettings.rows = 2;
    memberExportSettings.betweenPages = async () => {
      pages += 1;
      if (pages > 1) return;
      reached();
      await resumed;
    };
    const response = await fetch(url(), { headers: { authorization: `Bearer ${owner.token}` }, ...(signal ? { signal } : {}) });
    expect(response.status).toBe(200);
    await paused;
    return { response, resume };
  };
  const sqliteFile = () => `${asNode().dataDir}/punchcard.db`;
  /** SQLite: whether the WAL can be emptied now (no reader on an older state), from a connection of the test's own. */
  const walEmptiable = () => {
    const outside = new BetterSqlite3(sqliteFile());
    try {
      outside.pragma('busy_timeout = 0');
      return (outside.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>)[0]!.busy === 0;
    } finally {
      outside.close();
    }
  };
  /** PostgreSQL: the node's connections to its database that are inside a transaction. */
  const inTransaction = async () => {
    const observer = new pg.Client({ connectionString: process.env.PG_URL });
    await observer.connect();
    try {
      const database = (await node.engine.db.selectNoFrom((eb) => eb.fn<string>('current_database', []).as('name')).executeTakeFirstOrThrow()).name;
      const { rows } = await observer.query("select count(*)::int as n from pg_stat_activity where datname = $1 and state like 'idle in transaction%'", [database]);
      return rows[0].n as number;
    } finally {
      await observer.end();
    }
  };

  it('writes every member once, as they were when the download started, while members change and the counter sells', async () => {
    // A member of another program too, so leaving this one keeps the account (they come back below).
    expect((await loginAt(asNode(), members[1]!.email, PASSWORD, other.vendorId)).status).toBe(200);
    const before = await downloadText();
    expect(before.split('\r\n').filter((line) => line.includes('Snap'))).toHaveLength(6);

    const { response, resume } = await pausedDownload();
    // Merged into a member already written: written still, on the next page, as before.
    await node.engine.db.updateTable('users').set({ merged_into: members[0]!.userId }).where('id', '=', members[4]!.userId).execute();
    // An already written member leaves and re-joins: a new membership, after the page boundary.
    expect((await staffCall(asNode(), owner.token, 'POST', `/backoffice/customers/${members[1]!.userId}/remove`, { reason: 'asked to leave' })).body).toEqual({ removed: true, erased: false });
    expect((await loginAt(asNode(), members[1]!.email, PASSWORD, vendor.vendorId)).status).toBe(200);
    // Not yet written: renamed.
    await node.engine.db.updateTable('users').set({ first_name: 'Renamed' }).where('id', '=', members[3]!.userId).execute();
    // A new member joins.
    await signUpAt(asNode(), vendor.vendorId, { first_name: 'Newcomer', last_name: 'Snap' });
    // A sale at the counter commits while the download holds its snapshot (points for a member not yet written).
    receipts += 1;
    const sale = await inStoreApi(asNode).orderOk(vendor.apiKey, { card_number: members[2]!.email, receipt_number: `SNAP-${name}-${receipts}`, subtotal: 25 });
    expect(sale).toBeTruthy();
    resume();
    const during = await response.text();

    expect(during).toBe(before);
    // The changes were real: the next download has them.
    const after = await downloadText();
    expect(after).not.toBe(before);
    expect(after).toContain('Renamed');
    expect(after).toContain('Newcomer');
    expect(after).not.toContain('Member4');
    expect(after.split('\r\n').filter((line) => line.includes('Member1'))).toHaveLength(1);
  }, 60_000);

  it('holds its snapshot only while the download runs: a client gone mid-download releases it', async () => {
    const exports = () => node.engine.db.selectFrom('audit_log').select('after').where('action', '=', 'customers.exported').where('vendor_id', '=', vendor.vendorId).orderBy('id', 'desc').execute();
    // More aborted downloads than the test pool's four connections: a connection kept by one would leave the last waiting.
    for (let round = 0; round < 5; round += 1) {
      const abort = new AbortController();
      const { response, resume } = await pausedDownload(abort.signal);
      // Something committed after the snapshot, which it keeps from being cleaned away.
      await node.engine.db.updateTable('users').set({ last_name: `Snap ${round}` }).where('id', '=', members[5]!.userId).execute();
      if (node.engine.dialect === 'sqlite') expect(walEmptiable()).toBe(false);
      else expect(await inTransaction()).toBe(1);
      const audited = await exports();
      abort.abort();
      await response.text().catch(() => undefined);
      // Resumed before the node saw the client go, the download would just finish (complete: true below).
      await new Promise((resolve) => setTimeout(resolve, 500));
      resume();
      // The stream's end is asynchronous after the abort: waited for by its audit entry.
      for (let tries = 0; tries < 400 && (await exports()).length === audited.length; tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(JSON.parse(String((await exports())[0]!.after))).toMatchObject({ complete: false });
      if (node.engine.dialect === 'sqlite') expect(walEmptiable()).toBe(true);
      else expect(await inTransaction()).toBe(0);
    }
    memberExportSettings.rows = MEMBER_EXPORT_PAGE;
    memberExportSettings.betweenPages = null;
    expect(await downloadText()).toContain('Newcomer');
  }, 60_000);

  it('serves two downloads at once, each with its snapshot; a third is refused until one ends', async () => {
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let paused = 0;
    memberExportSettings.rows = 2;
    memberExportSettings.betweenPages = async () => {
      paused += 1;
      await resumed;
    };
    const held: Response[] = [];
    for (let i = 0; i < MEMBER_EXPORTS_AT_ONCE; i += 1) {
      held.push(await fetch(url(), { headers: { authorization: `Bearer ${owner.token}` } }));
      for (let tries = 0; tries < 400 && paused <= i; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(paused).toBe(MEMBER_EXPORTS_AT_ONCE);
    try {
      const refused = await fetch(url(), { headers: { authorization: `Bearer ${owner.token}` } });
      expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '60']);
      // An error, not a file: no attachment header on it (review: it was named members-….csv).
      expect(refused.headers.get('content-disposition')).toBeNull();
      expect((await refused.json()).code).toBe('rate_limited');
    } finally {
      resume();
    }
    const files = await Promise.all(held.map((response) => response.text()));
    expect(files[0]).toBe(files[1]);
    expect(await downloadText()).toBe(files[0]);
  }, 60_000);

  it('at its time limit, an export whose reader stopped reading is told to stop, and ends: its slot freed, its audit written', async () => {
    // What the route's stream does for a client that stopped reading (a phone's browser sent to the
    // background): the generator waits at a chunk, never resumed; at the limit the route destroys its
    // stream, which returns the generator. Before, only the snapshot went: the slot stayed taken.
    memberExportSettings.timeLimitMs = 300;
    memberExportSettings.rows = 2;
    const staff = { sessionId: 0, staffId: owner.id, vendorId: vendor.vendorId, email: owner.email, name: 'Owner', role: 'owner', storeId: null } as const;
    const audits = () => node.engine.db.selectFrom('audit_log').select('after').where('action', '=', 'customers.exported').where('vendor_id', '=', vendor.vendorId).execute();
    const before = (await audits()).length;
    const stalled: AsyncGenerator<string>[] = [];
    let told = 0;
    for (let i = 0; i < MEMBER_EXPORTS_AT_ONCE; i += 1) {
      const rows = memberExportCsv(node.engine, staff, { onTimeLimit: () => { told += 1; void rows.return(undefined); } });
      expect((await rows.next()).value).toMatch(/^\uFEFFfirst_name,/);
      stalled.push(rows);
    }
    await expect.poll(() => told, { timeout: 5_000 }).toBe(MEMBER_EXPORTS_AT_ONCE);
    await expect.poll(async () => (await audits()).length - before, { timeout: 5_000 }).toBe(MEMBER_EXPORTS_AT_ONCE);
    expect((await audits()).slice(-MEMBER_EXPORTS_AT_ONCE).map((a) => JSON.parse(String(a.after)).complete)).toEqual([false, false]);
    memberExportSettings.timeLimitMs = MEMBER_EXPORT_TIME_LIMIT_MS;
    expect(await downloadText()).toContain('first_name');
  }, 60_000);

  it('lets go of its snapshot at its time limit, and the download is cut off', async () => {
    memberExportSettings.timeLimitMs = 300;
    const { response, resume } = await pausedDownload();
    await node.engine.db.updateTable('users').set({ last_name: 'Snap late' }).where('id', '=', members[5]!.userId).execute();
    if (node.engine.dialect === 'sqlite') expect(walEmptiable()).toBe(false);
    else expect(await inTransaction()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 600));
    if (node.engine.dialect === 'sqlite') expect(walEmptiable()).toBe(true);
    else expect(await inTransaction()).toBe(0);
    resume();
    await expect(response.text()).rejects.toThrow();
  }, 60_000);
});
