import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { STALE_MS } from '../../src/core/import/import-jobs';
import { IMPORT_FILE_MAX_BYTES } from '../../src/shared/schemas/backoffice-import';
import { invitedStaff, ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Importing members in the back office (/backoffice/imports/customers), over real HTTP on an SQLite
// node: the upload runs the dry run as a job (the preview: counts, refused rows by line, columns
// not read, nothing written), confirming it imports for real (audited as the owner), the refused
// rows come back as a CSV; owners only; an unreadable file is the CLI's 400; one import at a time;
// a paired store answers the CLI's 409.

let node: TestNode;
let vendor: VendorCredentials;
let owner: SignedInStaff;
let manager: SignedInStaff;
let otherOwner: SignedInStaff;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  vendor = await node.addVendor('Café Lupe');
  owner = await ownerOf(node, vendor.vendorId);
  manager = await invitedStaff(node, owner, 'manager');
  otherOwner = await ownerOf(node, (await node.addVendor()).vendorId);
});

afterAll(async () => {
  await node?.close();
});

const base64 = (text: string | Uint8Array) => Buffer.from(text).toString('base64');
const upload = (who: SignedInStaff, fileName: string, content: string | Uint8Array) =>
  staffCall(node, who.token, 'POST', '/backoffice/imports/customers', { file_name: fileName, content_base64: base64(content) });
const members = async () =>
  (await node.engine.db.selectFrom('user_vendors').select((eb) => eb.fn.countAll<number>().as('n')).where('vendor_id', '=', vendor.vendorId).executeTakeFirstOrThrow()).n;

/** Polls the job as the screen does until it is no longer running; returns every status seen. */
async function untilDone(who: SignedInStaff, id: string) {
  const seen: Array<{ status: string; done: number }> = [];
  for (let i = 0; i < 1200; i += 1) {
    const reply = await staffCall(node, who.token, 'GET', `/backoffice/imports/customers/${id}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    seen.push({ status: reply.body.status, done: reply.body.done });
    if (reply.body.status !== 'running') return { job: reply.body, seen };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the import never finished');
}

const FILE = [
  'first_name,last_name,email,phone,card,points,quick_pay,notes',
  'Ana,López,ana@example.com,(415) 555-0101,OLD0001,120,12.50,regular',
  'Ben,Okafor,ben@example,,,40,,',
  'Carla,Núñez,carla@example.com,+1 415 555 0103,,5,,"likes oat milk, no sugar"',
].join('\n');

describe('importing members in the back office', () => {
  it('previews (nothing written), imports once confirmed (audited as the owner), and hands back the refused rows', async () => {
    const before = await members();
    const started = await upload(owner, 'members.csv', FILE);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({ dry_run: true, status: 'running', rows: 3, file_name: 'members.csv', ignored_columns: ['notes'], staff_email: owner.email, report: null });

    const { job: preview } = await untilDone(owner, started.body.id);
    expect(preview).toMatchObject({ status: 'finished', done: 3, error: null, confirmed_as: null });
    expect(preview.report).toMatchObject({ imported: 2, already_members: 0, refused: 1, refused_by_reason: { invalid_email: 1 }, points: 125, quick_pay: 1250, quick_pay_currency: 'USD' });
    expect(preview.report.problems).toEqual([{ line: 3, outcome: 'refused', reason: 'invalid_email', field: 'email', message: '"ben@example" is not an email address.' }]);
    expect(await members()).toBe(before);

    const confirmed = await staffCall(node, owner.token, 'POST', `/backoffice/imports/customers/${preview.id}/confirm`);
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(202);
    expect(confirmed.body).toMatchObject({ dry_run: false, status: 'running', preview_id: preview.id });
    const { job: done } = await untilDone(owner, confirmed.body.id);
    expect(done.report).toMatchObject({ imported: 2, already_members: 0, refused: 1 });
    expect(await members()).toBe(before + 2);
    const ana = await staffCall(node, owner.token, 'GET', '/backoffice/customers?q=ana%40example.com');
    expect(ana.body.items.map((c: { first_name: string }) => c.first_name)).toEqual(['Ana']);

    // Each batch audited as the CLI's, but attributed to the owner who confirmed it.
    const audit = await staffCall(node, owner.token, 'GET', '/backoffice/audit?object_type=import');
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({ action: 'customers.import', staff_id: owner.id, actor: owner.email, after: { file: 'members.csv', imported: 2, refused: 0 } });

    // The preview is imported once; the list shows both, newest first.
    const again = await staffCall(node, owner.token, 'POST', `/backoffice/imports/customers/${preview.id}/confirm`);
    expect([again.status, again.body.code]).toEqual([409, 'import_not_confirmable']);
    expect((await staffCall(node, owner.token, 'GET', `/backoffice/imports/customers/${preview.id}`)).body.confirmed_as).toBe(done.id);
    const list = await staffCall(node, owner.token, 'GET', '/backoffice/imports/customers');
    expect(list.body.items.map((j: { id: string; report: unknown }) => [j.id, j.report])).toEqual([
      [done.id, null],
      [preview.id, null],
    ]);

    // The refused rows to fix: the columns read, then where and why (in the screen's language).
    const file = await fetch(`${node.url}/backoffice/imports/customers/${done.id}/problems.csv`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="members-problems.csv"');
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes.slice(3)).split('\r\n')).toEqual([
      'first_name,last_name,email,phone,card,points,quick_pay,problem_line,problem_reason,problem',
      'Ben,Okafor,ben@example,,,40,,3,invalid_email,The email is not an email address.',
      '',
    ]);
    const spanish = await fetch(`${node.url}/backoffice/imports/customers/${done.id}/problems.csv?language=es`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(await spanish.text()).toContain('3,invalid_email,El correo no es una dirección de correo.');
    // Once imported, the jobs keep of the file only what that takes: the refused rows (and the columns).
    const kept = await node.engine.db.selectFrom('import_jobs').select('file').where('id', 'in', [preview.id, done.id]).execute();
    expect(kept.map((row) => (JSON.parse(row.file) as { records: Array<{ fields: { email?: string } }> }).records.map((r) => r.fields.email))).toEqual([
      ['', 'ben@example'],
      ['', 'ben@example'],
    ]);

    // Another program's owner finds nothing of it.
    const foreign = await staffCall(node, otherOwner.token, 'GET', `/backoffice/imports/customers/${done.id}`);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'import_not_found']);
  });

  it('keeps a semicolon export’s separator in the problem rows, so its comma amounts read again', async () => {
    const started = await upload(owner, 'socios.csv', 'name;email;quick_pay\nx;;12,50\n');
    const { job } = await untilDone(owner, started.body.id);
    expect(job.report.problems.map((p: { reason: string }) => p.reason)).toEqual(['no_contact']);
    const file = await fetch(`${node.url}/backoffice/imports/customers/${job.id}/problems.csv`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(await file.arrayBuffer()).split('\r\n').slice(0, 2)).toEqual(['\uFEFFname;email;quick_pay;problem_line;problem_reason;problem', 'x;;12,50;2;no_contact;No email, phone or card: a member needs one to be found at the counter.']);
  });

  it('refuses an unreadable file with the CLI’s codes, a file over the limit, and changes nothing', async () => {
    const before = await members();
    const cases: Array<[string | Uint8Array, number, string, string]> = [
      [new Uint8Array([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0x4c, 0xf3, 0x70, 0x65, 0x7a]), 400, 'validation_failed', 'file'],
      ['', 400, 'validation_failed', 'file'],
      ['first_name,card\nAna,OLD1\n', 400, 'validation_failed', 'file'],
      ['email,email\na@example.com,b@example.com\n', 400, 'validation_failed', 'file'],
    ];
    for (const [content, status, code, field] of cases) {
      const reply = await upload(owner, 'bad.csv', content);
      expect([reply.status, reply.body.code, reply.body.field], JSON.stringify(reply.body)).toEqual([status, code, field]);
    }
    const notBase64 = await staffCall(node, owner.token, 'POST', '/backoffice/imports/customers', { file_name: 'x.csv', content_base64: 'not base64!' });
    expect([notBase64.status, notBase64.body.code, notBase64.body.field]).toEqual([400, 'validation_failed', 'content_base64']);
    const noName = await staffCall(node, owner.token, 'POST', '/backoffice/imports/customers', { content_base64: base64('email\na@example.com\n') });
    expect([noName.status, noName.body.code]).toEqual([400, 'validation_failed']);
    const big = await upload(owner, 'big.csv', `email\n${'a'.repeat(IMPORT_FILE_MAX_BYTES)}\n`);
    expect([big.status, big.body.code]).toEqual([413, 'import_file_too_large']);
    expect(await members()).toBe(before);
  });

  it('asks which loyalty currency the points go to where the program has several, as the CLI does', async () => {
    const stars = await node.addVendor('Café Estrella');
    const starsOwner = await ownerOf(node, stars.vendorId);
    const added = await http(`${node.url}/currencies`, { method: 'POST', token: stars.accessToken, body: { name: 'Stars' } });
    expect(added.status, JSON.stringify(added.body)).toBeLessThan(300);
    const file = 'email,points\nluz@estrella.test,10\n';
    const unnamed = await upload(starsOwner, 'members.csv', file);
    expect([unnamed.status, unnamed.body.code, unnamed.body.field]).toEqual([400, 'validation_failed', 'points_currency']);
    const body = (points_currency: string) => ({ file_name: 'members.csv', content_base64: base64(file), points_currency });
    const unknown = await staffCall(node, starsOwner.token, 'POST', '/backoffice/imports/customers', body('Moons'));
    expect([unknown.status, unknown.body.code]).toEqual([422, 'unknown_currency']);
    const named = await staffCall(node, starsOwner.token, 'POST', '/backoffice/imports/customers', body('Stars'));
    expect(named.status, JSON.stringify(named.body)).toBe(202);
    expect((await untilDone(starsOwner, named.body.id)).job.report).toMatchObject({ imported: 1, points: 10 });
  });

  it('reads each loyalty currency’s points and expiry day from its own columns: the preview counts them per currency, says the columns it does not read', async () => {
    // Twentieth round: the members export's points:<name> and points_expire_on:<name> columns.
    const stars = await node.addVendor('Café Dos Monedas');
    const starsOwner = await ownerOf(node, stars.vendorId);
    expect((await http(`${node.url}/currencies`, { method: 'POST', token: stars.accessToken, body: { name: 'Stars' } })).status).toBeLessThan(300);
    const file = [
      'email,points,points_expire_on,points:Stars,points_expire_on:Stars,points:Moons,points:Points',
      'luz@dos.test,10,,4,2027-06-30,3,99',
      // A balance owed in Stars (the export writes the true figure): carried over as nothing.
      'sol@dos.test,5,,-2,,,',
      'mar@dos.test,1,,many,,,',
    ].join('\n');
    const preview = await staffCall(node, starsOwner.token, 'POST', '/backoffice/imports/customers', { file_name: 'members.csv', content_base64: base64(file), points_currency: 'Points' });
    expect(preview.status, JSON.stringify(preview.body)).toBe(202);
    const { job } = await untilDone(starsOwner, preview.body.id);
    expect(job.ignored_columns).toEqual(['points:moons', 'points:points']);
    expect(job.report).toMatchObject({ imported: 2, refused: 1, points: 19, points_by_currency: [{ name: 'Points', points: 15 }, { name: 'Stars', points: 4 }] });
    expect(job.report.problems).toMatchObject([{ line: 4, reason: 'invalid_amount', field: 'points:stars' }]);
    const problems = await fetch(`${node.url}/backoffice/imports/customers/${job.id}/problems.csv`, { headers: { authorization: `Bearer ${starsOwner.token}` } });
    expect((await problems.text()).split('\r\n')[0]).toBe('email,points,points_expire_on,points:stars,points_expire_on:stars,points:moons,points:points,problem_line,problem_reason,problem');

    const confirmed = await staffCall(node, starsOwner.token, 'POST', `/backoffice/imports/customers/${job.id}/confirm`);
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(202);
    expect((await untilDone(starsOwner, confirmed.body.id)).job.ignored_columns).toEqual(['points:moons', 'points:points']);
    const starsId = Number((await node.engine.db.selectFrom('currencies').select('id').where('vendor_id', '=', stars.vendorId).where('name', '=', 'Stars').executeTakeFirstOrThrow()).id);
    const starsOf = (email: string) =>
      node.engine.db
        .selectFrom('ledger_entries as e')
        .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
        .innerJoin('users as u', 'u.id', 'a.holder_id')
        .select(['e.amount', 'e.expires_at'])
        .where('a.holder_type', '=', 'user')
        .where('a.currency_id', '=', starsId)
        .where('u.email', '=', email)
        .execute();
    // The program has no store zone but its first store's: UTC here, the day's last millisecond.
    expect((await starsOf('luz@dos.test')).map((e) => [Number(e.amount), Number(e.expires_at)])).toEqual([[4, Date.UTC(2027, 5, 30, 23, 59, 59, 999)]]);
    expect(await starsOf('sol@dos.test')).toEqual([]);
  });

  it('is the owners’: a manager is refused', async () => {
    const reply = await upload(manager, 'members.csv', FILE);
    expect([reply.status, reply.body.code]).toEqual([403, 'forbidden']);
    expect((await staffCall(node, manager.token, 'GET', '/backoffice/imports/customers')).status).toBe(403);
  });

  it('runs one import at a time per program, and shows its progress while it runs', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `Member,${i},member${i}@example.com`);
    const started = await upload(owner, 'many.csv', ['first_name,last_name,email', ...rows].join('\n'));
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const second = await upload(owner, 'members.csv', FILE);
    expect([second.status, second.body.code]).toEqual([409, 'import_in_progress']);
    // Another program imports meanwhile.
    const other = await upload(otherOwner, 'members.csv', FILE);
    expect(other.status).toBe(202);
    const { job, seen } = await untilDone(owner, started.body.id);
    expect(job.report).toMatchObject({ imported: 20_000, refused: 0 });
    // Polled while it ran: the node answered between batches, and the count only grew.
    expect(seen.some((s) => s.status === 'running')).toBe(true);
    expect(seen.map((s) => s.done)).toEqual([...seen.map((s) => s.done)].sort((a, b) => a - b));
    expect(seen.at(-1)!.done).toBe(20_000);
    await untilDone(otherOwner, other.body.id);
  }, 120_000);

  it('is central’s on a paired store: 409 customers_managed_by_central, as the CLI', async () => {
    const started = await upload(owner, 'members.csv', FILE);
    const { job: preview } = await untilDone(owner, started.body.id);
    node.engine.programRole = 'replica';
    try {
      const refused = await upload(owner, 'members.csv', FILE);
      expect([refused.status, refused.body.code]).toEqual([409, 'customers_managed_by_central']);
      const confirm = await staffCall(node, owner.token, 'POST', `/backoffice/imports/customers/${preview.id}/confirm`);
      expect([confirm.status, confirm.body.code]).toEqual([409, 'customers_managed_by_central']);
    } finally {
      node.engine.programRole = 'owner';
    }
  });

  // Jobs are rows (migration 0047): a running one written by another process holds the program's
  // one place; one whose process died (heartbeat older than STALE_MS) reads as failed and frees it.
  it('keeps jobs in the database: another process’s running import blocks, a dead one’s reads as failed and frees the program', async () => {
    const cafe = await node.addVendor('Café Latido');
    const cafeOwner = await ownerOf(node, cafe.vendorId);
    const now = node.clock.now();
    const row = (id: string, updatedAt: number) => ({
      id,
      vendor_id: cafe.vendorId,
      seq: id === 'elsewhere-live' ? 1 : 2,
      staff_email: cafeOwner.email,
      file_name: 'old.csv',
      dry_run: 0,
      status: 'running',
      rows: 3,
      done: 1,
      created_at: updatedAt,
      updated_at: updatedAt,
      ignored_columns: '[]',
      file: JSON.stringify({ records: [{ line: 2, fields: { first_name: 'Pilar', email: 'pilar@latido.test', phone: '+34 600 111 222' } }], decimalMark: '.' }),
    });
    await node.engine.db.insertInto('import_jobs').values(row('elsewhere-live', now - 10_000)).execute();
    const blocked = await upload(cafeOwner, 'members.csv', FILE);
    expect([blocked.status, blocked.body.code]).toEqual([409, 'import_in_progress']);
    expect((await staffCall(node, cafeOwner.token, 'GET', '/backoffice/imports/customers/elsewhere-live')).body).toMatchObject({ status: 'running', done: 1 });

    // That process dies: its heartbeat stops.
    await node.engine.db.updateTable('import_jobs').set({ updated_at: now - STALE_MS - 1 }).where('id', '=', 'elsewhere-live').execute();
    const dead = await staffCall(node, cafeOwner.token, 'GET', '/backoffice/imports/customers/elsewhere-live');
    expect(dead.body).toMatchObject({ status: 'failed', done: 1, error: { code: 'node_stopped' } });
    expect(dead.body.date_finished).not.toBeNull();
    const listed = await staffCall(node, cafeOwner.token, 'GET', '/backoffice/imports/customers');
    expect(listed.body.items.map((j: { id: string; status: string }) => [j.id, j.status])).toEqual([['elsewhere-live', 'failed']]);

    const started = await upload(cafeOwner, 'members.csv', 'first_name,email\nLeo,leo@latido.test\nMia,mia@latido.test\nNo,not-an-email\n');
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(await node.engine.db.selectFrom('import_jobs').select(['status', 'error']).where('id', '=', 'elsewhere-live').executeTakeFirstOrThrow()).toMatchObject({ status: 'failed', error: expect.stringContaining('node_stopped') });
    // Marked failed for the dead process, it keeps no row of its file, as a job that fails in its
    // own process keeps none (found by the seventeenth round's review: the people stayed there).
    const deadFile = await node.engine.db.selectFrom('import_jobs').select('file').where('id', '=', 'elsewhere-live').executeTakeFirstOrThrow();
    expect(deadFile.file).not.toContain('pilar');
    const problems = await staffCall(node, cafeOwner.token, 'GET', '/backoffice/imports/customers/elsewhere-live/problems.csv');
    expect([problems.status, problems.body?.code]).toEqual([404, 'import_not_found']);
    const finished = (await untilDone(cafeOwner, started.body.id)).job;
    expect(finished.report, JSON.stringify(finished.report)).toMatchObject({ imported: 2, refused: 1 });
  });

  it('keeps a program’s last five finished jobs and their files', async () => {
    const cafe = await node.addVendor('Café Cinco');
    const cafeOwner = await ownerOf(node, cafe.vendorId);
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const started = await upload(cafeOwner, `members-${i}.csv`, FILE);
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      await untilDone(cafeOwner, started.body.id);
      ids.push(started.body.id);
    }
    // The seventh started with six finished: the first went; the seventh, finished since, is the sixth kept until the next starts.
    const listed = await staffCall(node, cafeOwner.token, 'GET', '/backoffice/imports/customers');
    expect(listed.body.items.map((j: { id: string }) => j.id)).toEqual(ids.slice(1).reverse());
    expect((await staffCall(node, cafeOwner.token, 'GET', `/backoffice/imports/customers/${ids[0]}`)).status).toBe(404);
  });
});
