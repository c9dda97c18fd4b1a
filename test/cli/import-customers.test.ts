import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeMemberOnRequest } from '../../src/core/customer-care/remove-member';
import { emailKey } from '../../src/core/customers/contact';
import { registerCustomer } from '../../src/core/customers/register-customer';
import { CLI_STARTER, importJobSettings } from '../../src/core/import/import-jobs';
import { IMPORT_BATCH_ROWS } from '../../src/core/import/import-members';
import { addOwner } from '../../src/core/staff/add-owner';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import { openFolderEngine } from '../../src/server/cli/folder-checks';
import { STOPPED_EXIT_CODE } from '../../src/server/cli/import-command';
import { createRequester } from '../../src/renderer/src/api/client';
import { createHistoryApi } from '../../src/renderer/src/api/history-api';
import { LEDGER_KINDS, ledgerKindWords } from '../../src/renderer/src/admin/ledger-kind-words';
import { historyRowTexts, readHistoryRecord } from '../../src/renderer/src/cashier/history-lines';
import { useCashierStrings } from '../../src/renderer/src/cashier/strings';
import { startStoreNode } from '../../src/server/node/store-node';
import { runInProcess } from '../support/cli-in-process';
import { run } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `punchcard import customers` on a data folder, as a merchant runs it on opening day: the file
// imported by the real command (a process), bad rows reported by line, a second run adding
// nothing, and the members' balances read back over HTTP at the counter equal to the file's.

const MEMBERS = [
  'first_name,last_name,email,phone,card,points,quick_pay,member_since',
  'Ana,López,ana@example.com,(415) 555-0101,OLD0001,120,12.50,2019-03-01',
  'Ben,Okafor,,415-555-0102,,40,,2020-01-01',
  'Carla,Núñez,carla@example,,,,,2021-05-05',
  'Dan,Kim,dan@example.com,,OLD0004,5,12.505,2022-02-02',
  '"Stone, Eve",,eve@example.com,,OLD0005,0,7.05,2023-03-03',
  'Fay,,ana@example.com,,,3,,2024-04-04',
].join('\r\n');

const dirs: Array<{ remove(): void }> = [];
let data: string;
let file: string;
let init: { vendor_id: number; api_key: string };

beforeAll(async () => {
  const dir = makeTempDir('punchcard-import-');
  dirs.push(dir);
  data = join(dir.path, 'shop');
  file = join(dir.path, 'members.csv');
  writeFileSync(file, `\uFEFF${MEMBERS}\r\n`);
  const made = await runInProcess(['init', '--data', data, '--vendor', 'Café Uno', '--country', 'US', '--time-zone', 'America/Los_Angeles', '--json']);
  expect(made.code, made.stderr).toBe(0);
  init = JSON.parse(made.stdout);
});

afterAll(() => {
  for (const dir of dirs) dir.remove();
});

describe('punchcard import customers', () => {
  it('imports the good rows, reports the bad ones by line, and the counter reads the file’s balances', async () => {
    const dry = await run(['import', 'customers', '--data', data, '--file', file, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('6 rows in');
    expect(dry.stdout).toContain('(dry run: nothing was written)');
    expect(dry.stdout).toMatch(/^ {2}would import +3 \(opening balances: 160 points, 19\.55 USD quick pay\)$/m);
    expect(dry.stdout).toContain('  line 4: invalid_email, "carla@example" is not an email address.');
    expect(dry.stdout).toContain('  columns not read: member_since');

    const real = await run(['import', 'customers', '--data', data, '--file', file, '--json']);
    expect(real.code, real.stderr).toBe(0);
    const report = JSON.parse(real.stdout);
    expect(report).toMatchObject({ dry_run: false, vendor_id: init.vendor_id, rows: 6, imported: 3, already_members: 0, refused: 3, points: 160, quick_pay: 1955, quick_pay_currency: 'USD', ignored_columns: ['member_since'] });
    expect(report.refused_by_reason).toEqual({ invalid_email: 1, too_many_decimals: 1, duplicate_in_file: 1 });
    expect(report.problems.map((p: { line: number; reason: string; field: string }) => [p.line, p.reason, p.field])).toEqual([
      [4, 'invalid_email', 'email'],
      [5, 'too_many_decimals', 'quick_pay'],
      [7, 'duplicate_in_file', 'email'],
    ]);

    // The same file again: nothing added, every imported row reported as a member already.
    const again = await runInProcess(['import', 'customers', '--data', data, '--file', file, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 0, already_members: 3, refused: 3, points: 0, quick_pay: 0 });

    const screens = makeTempDir('punchcard-import-screens-');
    dirs.push(screens);
    const node = await startStoreNode({ dataDir: data, port: 0, rendererDir: screens.path });
    try {
      const panelOf = async (identification: string) => {
        const checkIn = await http(`${node.url}/onscreen?api_key=${init.api_key}`, { method: 'POST', body: { card_number: identification } });
        expect(checkIn.status, JSON.stringify(checkIn.body)).toBe(201);
        const panel = await http(`${node.url}/onscreen?api_key=${init.api_key}&pos_session_hash=${checkIn.body.pos_session.hash}`);
        expect(panel.status).toBe(200);
        await http(`${node.url}/onscreen?api_key=${init.api_key}`, { method: 'DELETE', body: { pos_session_hash: checkIn.body.pos_session.hash } });
        return { id: Number(panel.body.user.id), name: `${panel.body.user.first_name} ${panel.body.user.last_name}`.trim(), points: panel.body.loyalty_balance.data[0].amount, quickPay: panel.body.quick_pay_balance.amount };
      };
      const ana = await panelOf('OLD0001');
      expect(ana).toEqual({ id: expect.any(Number), name: 'Ana López', points: 120, quickPay: 12.5 });
      expect(await panelOf('ana@example.com')).toEqual(ana);
      expect(await panelOf('(415) 555-0102')).toMatchObject({ name: 'Ben Okafor', points: 40, quickPay: 0 });
      expect(await panelOf('old0005')).toMatchObject({ name: 'Stone, Eve', points: 0, quickPay: 7.05 });

      // The panel's history says where the balances came from, in the screen's language.
      const history = await createHistoryApi(createRequester({ baseUrl: node.url, credential: null }), init.api_key).list(ana.id, { limit: 5 });
      const told = (language: 'en' | 'es') => history.data.map((r) => historyRowTexts(readHistoryRecord(r), useCashierStrings.all[language], language, 'USD', 'US'));
      expect(told('en')).toEqual([{ title: 'Brought from the previous program', context: '', points: '+120 Points', quickPay: '+$12.50' }]);
      expect(told('es')[0]!.title).toBe('Traído del programa anterior');
      // The back office's ledger names the entries' kind too.
      expect([ledgerKindWords(LEDGER_KINDS.en, 'import'), ledgerKindWords(LEDGER_KINDS.es, 'import')]).toEqual(['Brought from the previous program', 'Traído del programa anterior']);
      const refused = await http(`${node.url}/onscreen?api_key=${init.api_key}`, { method: 'POST', body: { card_number: 'OLD0004' } });
      expect(refused.status).toBe(404);
    } finally {
      await node.close();
    }

    // Audited as the command line: one record for the batch that imported.
    const db = new Database(join(data, 'punchcard.db'), { readonly: true });
    try {
      const audit = db.prepare("select actor, after from audit_log where action = 'customers.import'").all() as Array<{ actor: string; after: string }>;
      expect(audit.map((a) => [a.actor, JSON.parse(a.after).imported])).toEqual([['cli', 3]]);
    } finally {
      db.close();
    }
  });

  it('stops, exit code 3, when a person in the file is erased on the same data folder while it runs, and does not bring them back', async () => {
    const dir = makeTempDir('punchcard-import-erased-');
    dirs.push(dir);
    const shop = join(dir.path, 'cafe');
    const made = await runInProcess(['init', '--data', shop, '--vendor', 'Café Borrado', '--country', 'US', '--time-zone', 'America/New_York', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const { vendor_id: vendorId } = JSON.parse(made.stdout) as { vendor_id: number };
    // The node running on the folder meanwhile: an engine of its own on the same SQLite file.
    const node = await openFolderEngine({ dataDir: shop, existing: true });
    try {
      const { staff } = await addOwner(node, { vendorId, email: 'owner@erased.test' });
      const owner: StaffPrincipal = { sessionId: 0, staffId: staff.id, vendorId, email: staff.email, name: staff.name, role: 'owner', storeId: null };
      const email = 'ana@erased.test';
      const { user: ana } = await registerCustomer(node, { vendorId, firstName: 'Ana', lastName: 'Borrada', email, password: 'correct horse 1', terms: true });
      const members = join(dir.path, 'members.csv');
      const newcomers = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `New${from + i},new${from + i}@erased.test`);
      writeFileSync(members, ['first_name,email', ...newcomers(0, IMPORT_BATCH_ROWS + 20), `Ana,${email}`, ...newcomers(IMPORT_BATCH_ROWS + 20, IMPORT_BATCH_ROWS + 40)].join('\n'));
      let firstBatch = -1;
      importJobSettings.betweenBatches = async (_job, done) => {
        if (firstBatch !== -1) return;
        firstBatch = done;
        await removeMemberOnRequest(node, owner, ana.id, { reason: 'asked by phone', forfeitBalances: true });
      };
      const run = await runInProcess(['import', 'customers', '--data', shop, '--file', members, '--json']).finally(() => (importJobSettings.betweenBatches = null));

      const accounts = await node.db.selectFrom('users').select('id').where('email_key', '=', emailKey(email)).execute();
      expect(accounts).toEqual([]);
      expect(run.code).toBe(STOPPED_EXIT_CODE);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim()).toBe(
        `punchcard: the import stopped (member_left) after ${firstBatch} of ${IMPORT_BATCH_ROWS + 41} rows (the members written by then stay). A member in this file left the program or asked to be erased while it ran: take them out of the file before running it again, or they come back.`,
      );
      const kept = await node.db.selectFrom('import_jobs').select(['staff_email', 'status', 'file']).where('vendor_id', '=', vendorId).execute();
      expect(kept.map((job) => [job.staff_email, job.status, job.file.includes(email)])).toEqual([[CLI_STARTER, 'failed', false]]);
    } finally {
      await node.close();
    }
  }, 60_000);

  it('refuses a file it cannot read in one line, and writes nothing', async () => {
    const dir = makeTempDir('punchcard-import-bad-');
    dirs.push(dir);
    const missing = await runInProcess(['import', 'customers', '--data', data, '--file', join(dir.path, 'nope.csv')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(`punchcard: --file ${join(dir.path, 'nope.csv')}: no such file.`);
    const noContact = join(dir.path, 'names.csv');
    writeFileSync(noContact, 'first_name;last_name;points\nAna;López;5\n');
    const header = await runInProcess(['import', 'customers', '--data', data, '--file', noContact]);
    expect(header.code).toBe(1);
    expect(header.stderr.trim()).toBe('punchcard: The header names no email or phone column (it has: first_name, last_name, points): the import reads first_name, last_name, name, email, phone, card, points, quick_pay, birthdate, marketing, sms_marketing, language, points_expire_on.');
    const latin1 = join(dir.path, 'latin1.csv');
    writeFileSync(latin1, Buffer.from('email,first_name\nzoe@example.com,Zo\xeb\n', 'latin1'));
    const encoding = await runInProcess(['import', 'customers', '--data', data, '--file', latin1]);
    expect(encoding.code).toBe(1);
    expect(encoding.stderr).toContain('is not UTF-8 text');
  });

  it('keeps the old system’s birthdays, marketing consent and language, and the counter reads them back', async () => {
    const dir = makeTempDir('punchcard-import-profile-');
    dirs.push(dir);
    const shop = join(dir.path, 'cafe');
    const made = await runInProcess(['init', '--data', shop, '--vendor', 'Café Sol', '--country', 'ES', '--time-zone', 'Europe/Madrid', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const cafe = JSON.parse(made.stdout) as { api_key: string };
    const csv = join(dir.path, 'socios.csv');
    writeFileSync(csv, ['name;email;Fecha nacimiento;Newsletter;idioma', 'Ana López;ana@example.com;15/03/1990;sí;es', 'Ben Okafor;ben@example.com;;;', 'Cai Ruiz;cai@example.com;31/02/1990;;', 'Dua Paz;dua@example.com;;a veces;'].join('\n'));
    const imported = await run(['import', 'customers', '--data', shop, '--file', csv, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const report = JSON.parse(imported.stdout);
    expect(report).toMatchObject({ imported: 2, refused: 2, ignored_columns: [] });
    expect(report.problems.map((p: { line: number; reason: string; field: string }) => [p.line, p.reason, p.field])).toEqual([[4, 'invalid_birthdate', 'birthdate'], [5, 'invalid_consent', 'marketing']]);

    const screens = makeTempDir('punchcard-import-profile-screens-');
    dirs.push(screens);
    const node = await startStoreNode({ dataDir: shop, port: 0, rendererDir: screens.path });
    try {
      const seen = async (email: string) => {
        const checkIn = await http(`${node.url}/onscreen?api_key=${cafe.api_key}`, { method: 'POST', body: { card_number: email } });
        expect(checkIn.status, JSON.stringify(checkIn.body)).toBe(201);
        const panel = await http(`${node.url}/onscreen?api_key=${cafe.api_key}&pos_session_hash=${checkIn.body.pos_session.hash}`);
        await http(`${node.url}/onscreen?api_key=${cafe.api_key}`, { method: 'DELETE', body: { pos_session_hash: checkIn.body.pos_session.hash } });
        const { birthdate, contact_consent, language } = panel.body.user;
        return { birthdate, contact_consent, language };
      };
      expect(await seen('ana@example.com')).toEqual({ birthdate: Date.UTC(1990, 2, 15) / 1000, contact_consent: 1, language: 'es' });
      // Not said in the file: no birthday, no consent (as at the counter), the program's language.
      expect(await seen('ben@example.com')).toEqual({ birthdate: null, contact_consent: 0, language: 'es' });
    } finally {
      await node.close();
    }
  });

  it('reads a semicolon-separated export (a Spanish spreadsheet’s) with quoted fields', async () => {
    const dir = makeTempDir('punchcard-import-semicolon-');
    dirs.push(dir);
    const csv = join(dir.path, 'socios.csv');
    // Semicolons because the comma is the decimal mark there: "12,50" is twelve fifty, and "1.250"
    // (Spain's thousands) is refused rather than read as 1.25.
    writeFileSync(csv, 'Nombre;Email;Phone;Points;Quick pay\n"Zoë; la de siempre";zoe@example.com;415 555 0177;9;12,50\nYago;yago@example.com;415 555 0178;1;1.250\n'.replace('Nombre', 'name'));
    const report = await runInProcess(['import', 'customers', '--data', data, '--file', csv, '--json']);
    expect(report.code, report.stderr).toBe(0);
    const summary = JSON.parse(report.stdout);
    expect(summary).toMatchObject({ rows: 2, imported: 1, points: 9, quick_pay: 1250, refused: 1, refused_by_reason: { invalid_amount: 1 } });
    expect(JSON.stringify(summary)).toContain('a comma before the decimals (12,50)');
  });

  it('reads the members export’s per-currency columns into the program’s loyalty currency of that name, and says which it does not read', async () => {
    // Twentieth round: a file without `points` whose points:Points is the program's one loyalty currency; Stamps it does not have.
    const perCurrency = join(data, '..', 'per-currency.csv');
    writeFileSync(perCurrency, 'email,points:Points,points_expire_on:Points,points:Stamps\r\nnia@example.com,14,2030-01-31,6\r\n');
    const text = await run(['import', 'customers', '--data', data, '--file', perCurrency, '--dry-run']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^ {2}would import +1 \(opening balances: 14 points, 0\.00 USD quick pay\)$/m);
    expect(text.stdout).toContain('  columns not read: points:stamps');
    const json = await runInProcess(['import', 'customers', '--data', data, '--file', perCurrency, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ imported: 1, points: 14, points_by_currency: [{ name: 'Points', points: 14 }], ignored_columns: ['points:stamps'] });
    const db = new Database(join(data, 'punchcard.db'), { readonly: true });
    try {
      const entry = db.prepare("select e.amount, e.expires_at from ledger_entries e join ledger_accounts a on a.id = e.account_id join users u on u.id = a.holder_id where u.email = 'nia@example.com' and e.kind = 'import'").get();
      // The end of 31 January 2030 in Los Angeles (the program's store), UTC-8.
      expect(entry).toEqual({ amount: 14, expires_at: Date.UTC(2030, 1, 1, 8) - 1 });
    } finally {
      db.close();
    }
  });
});
