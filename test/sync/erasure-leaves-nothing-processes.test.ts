import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { isValidNationalId } from '../../src/core/customers/national-id';
import { openDatabaseUrl } from '../../src/core/storage/database';
import { WEBHOOK_KINDS } from '../../src/core/webhooks/kinds';
import { freePort } from '../support/free-port';
import { extractCode, type Mailbox, startMailbox } from '../support/mailbox';
import { CARDS } from '../support/payments';
import { createServerDatabase } from '../support/postgres';
import { nodesOfThisFile, run, type Running, stopWith } from '../support/processes';
import { http } from '../support/test-node';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

// "An erased customer leaves nothing behind" (docs/decisions.md, eleventh round): a chain of real
// processes — central (SQLite file; PostgreSQL too when PG_URL is set) and two paired stores on
// SQLite files — where a customer with a distinctive value in every personal field signs up, saves a
// card, is checked in and buys at both stores, gets mail, buys a guest eGift under their own name and
// email, is looked up and adjusted by staff (audit), and is heard of by a webhook receiver. Then the
// customer deletes their account (the app's two calls, code by email), sync runs to completion, every
// node is backed up, and every place is scanned for every distinctive value: each table of each
// node's database, the raw database and WAL files, the data folders (outbox, backups) and the nodes'
// request logs. What may stay (the receiver's own copies; a sent message's envelope at the SMTP
// server) is outside the nodes.

const drops: Array<() => Promise<void>> = [];
let mailbox: Mailbox | null = null;
let receiver: WebhookReceiver | null = null;

afterAll(async () => {
  for (const drop of drops) await drop();
  await receiver?.close();
  await mailbox?.close();
});

// Registered after the afterAll above (after-hooks run last-registered first): the nodes are gone before their databases are dropped and the mailbox and receiver close.
const { tempDir, start } = nodesOfThisFile('punchcard-erase-');

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A valid Ecuadorian cédula nobody else in the test holds. */
function freshCedula(): string {
  for (;;) {
    const candidate = `17${String(randomInt(0, 6))}${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
    if (isValidNationalId('EC', candidate)) return candidate;
  }
}

/** The person: a distinctive value in every personal field (lower case where text is compared). */
function person() {
  const tag = randomBytes(3).toString('hex');
  const mobile = `99${String(randomInt(1_000_000, 9_999_999))}`;
  return {
    first: `Quorvexa${tag}`,
    last: `Brindlemoss${tag}`,
    email: `quorvexa.${tag}@erasure.example`,
    mobile,
    birthdate: 616_291_200, // 1989-07-13
    address1: `Calle Zumbador ${tag}`,
    city: `Vilcabambita${tag}`,
    postal: String(randomInt(100_000, 999_999)),
    cedula: freshCedula(),
    card: CARDS.visa.replace(/ /g, ''),
    cardDescription: `Tarjeta de ${tag}cardnote`,
    egiftMessage: `Para ti de ${tag}giftnote`,
  };
}
type Person = ReturnType<typeof person>;

/** What must not be found anywhere, by label. */
function needles(p: Person): Record<string, string> {
  return {
    first_name: p.first.toLowerCase(),
    last_name: p.last.toLowerCase(),
    email: p.email.toLowerCase(),
    // The local part alone (a mail's Message-ID, an encoded header could split the address).
    email_local: p.email.split('@')[0]!.toLowerCase(),
    phone: p.mobile,
    birthdate_iso: '1989-07-13',
    address1: p.address1.toLowerCase(),
    city: p.city.toLowerCase(),
    postal_code: p.postal,
    cedula: p.cedula,
    card_number: p.card,
    card_description: p.cardDescription.toLowerCase(),
    egift_message: p.egiftMessage.toLowerCase(),
  };
}

interface Finding {
  where: string;
  what: string;
}

function scanText(where: string, text: string, find: Record<string, string>, into: Finding[]): void {
  const lower = text.toLowerCase();
  for (const [what, needle] of Object.entries(find)) if (lower.includes(needle)) into.push({ where, what });
}

/** Every file under `root` (database, WAL, outbox, logs, backups), as raw bytes read as latin1. */
function scanFolder(label: string, root: string, find: Record<string, string>, into: Finding[]): void {
  if (!existsSync(root)) return;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const bytes = readFileSync(path);
        // Text as stored (UTF-8), and as UTF-16 (SQLite could store either; the scan stays honest).
        scanText(`${label}:${path.slice(root.length + 1)}`, bytes.toString('latin1') + '\n' + bytes.toString('utf16le'), find, into);
      }
    }
  };
  walk(root);
}

/** Every text or blob column of every table of a database, row by row. */
async function scanDatabase(label: string, url: string, find: Record<string, string>, into: Finding[], birthdate: number, userId: number): Promise<void> {
  const database = openDatabaseUrl(url);
  try {
    const tables =
      database.dialect === 'postgres'
        ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(database.db)).rows
        : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(database.db)).rows;
    for (const { name } of tables) {
      const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(database.db)).rows;
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) {
          if (value === null || value === undefined) continue;
          if (typeof value === 'number' || typeof value === 'bigint') {
            // A number column holds one value, compared whole: a six-digit postal code is found
            // inside some millisecond timestamp (created_at) now and then, which is not the person.
            const whole = String(value);
            for (const [what, needle] of Object.entries(find)) if (whole === needle) into.push({ where: `${label} ${name}.${column}`, what });
            if (whole === String(birthdate)) into.push({ where: `${label} ${name}.${column}`, what: 'birthdate' });
            continue;
          }
          const text = Buffer.isBuffer(value) ? value.toString('latin1') : value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : String(value);
          scanText(`${label} ${name}.${column}`, text, find, into);
          if (text.includes(String(birthdate))) into.push({ where: `${label} ${name}.${column}`, what: 'birthdate' });
        }
      }
    }
    const user = await database.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    if (user && user.status !== 'deleted') into.push({ where: `${label} users`, what: `status ${user.status}` });
  } finally {
    await database.close();
  }
}

/**
 * The files PostgreSQL keeps the database's tables, TOAST and indexes in, read through the server
 * (pg_read_binary_file: PG_URL's user is a superuser in this project's tests), after a CHECKPOINT
 * wrote the buffers out: old row versions an UPDATE left behind live there until a VACUUM.
 */
async function scanPostgresFiles(label: string, database: Awaited<ReturnType<typeof openDatabaseUrl>>, find: Record<string, string>, into: Finding[]): Promise<void> {
  await sql`checkpoint`.execute(database.db);
  const relations = (
    await sql<{ name: string; path: string }>`select c.relname as name, pg_relation_filepath(c.oid) as path from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in (current_schema(), 'pg_toast') and c.relkind in ('r', 't', 'i') and pg_relation_filepath(c.oid) is not null`.execute(database.db)
  ).rows;
  for (const { name, path } of relations) {
    const size = (await sql<{ size: string }>`select pg_relation_size(${name}::regclass)::text as size`.execute(database.db).catch(() => ({ rows: [{ size: '1' }] }))).rows[0]!.size;
    if (size === '0') continue;
    const bytes = (await sql<{ data: Buffer }>`select pg_read_binary_file(${path}) as data`.execute(database.db).catch(() => ({ rows: [] as Array<{ data: Buffer }> }))).rows[0]?.data;
    if (bytes) scanText(`${label} file of ${name}`, Buffer.from(bytes).toString('latin1'), find, into);
  }
}

const json = { 'content-type': 'application/json' };

interface Chain {
  centralEnv: Record<string, string>;
  centralDir: string;
  centralUrl: string;
  dbUrl: string;
  stores: Array<{ dir: string; url: string; process: Running }>;
  central: Running;
  program: Record<string, any>;
}

async function startChain(backend: 'sqlite' | 'postgres'): Promise<Chain> {
  const centralEnv: Record<string, string> = { PUNCHCARD_OWNER_PASSWORD: 'correct horse battery' };
  if (backend === 'postgres') {
    const scratch = await createServerDatabase(process.env.PG_URL!, 'punchcard_erasure_everywhere');
    drops.push(scratch.drop);
    centralEnv.PUNCHCARD_DATABASE_URL = scratch.url;
  }
  const centralDir = tempDir();
  const init = await run(['init', '--data', centralDir, '--vendor', 'Café Borrado', '--country', 'EC', '--currency', 'USD', '--owner', 'owner@erasure.example', '--json'], centralEnv, 120_000);
  expect(init.code, init.stderr).toBe(0);
  const program = JSON.parse(init.stdout.trim()) as Record<string, any>;
  const port = await freePort();
  const central = await start(['central', '--data', centralDir, '--port', String(port), '--webhooks-allow-private', '--smtp', mailbox!.url], 'central', centralEnv);
  const stores: Chain['stores'] = [];
  for (const label of ['Door', 'Window']) {
    const code = await run(['pair-code', '--data', centralDir, '--store', String(program.store_id), '--json'], centralEnv, 120_000);
    expect(code.code, code.stderr).toBe(0);
    const dir = tempDir();
    const store = await start(['store', '--data', dir, '--port', '0', '--central', central.url, '--pair', (JSON.parse(code.stdout) as { code: string }).code, '--label', label, '--smtp', mailbox!.url], 'store');
    stores.push({ dir, ...store });
  }
  return { centralEnv, centralDir, centralUrl: central.url, dbUrl: centralEnv.PUNCHCARD_DATABASE_URL ?? join(centralDir, 'punchcard.db'), stores, central: central.process, program };
}

async function synced(chain: Chain): Promise<void> {
  for (const store of chain.stores) {
    await eventually('a store drained and caught up', async () => {
      const s = (await http(`${store.url}/sync/status`)).body;
      return s.link === 'up' && s.pending === 0 && s.cursor_lag === 0 ? true : undefined;
    });
  }
}

/** The customer's life at the chain, up to the moment they delete their account. */
async function liveAndLeave(chain: Chain, p: Person, way: 'app' | 'staff', beforeDeletion: (userId: number) => Promise<void>): Promise<number> {
  const { centralUrl: url, program } = chain;
  const bearer = { authorization: `Bearer ${program.access_token}`, ...json };
  const endpoint = await http(`${url}/webhooks`, { method: 'POST', headers: bearer, body: { url: receiver!.url, events: [...WEBHOOK_KINDS] } });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  receiver!.secrets.push(endpoint.body.secret);

  const registered = await http(`${url}/user/register`, {
    method: 'POST',
    headers: json,
    body: { first_name: p.first, last_name: p.last, anonymous: false, email_address: p.email, password: 'correct horse 1', terms: true, vendor: program.vendor_id, birthdate: p.birthdate, cedula: p.cedula },
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  const userId = Number(registered.body.id);
  const login = await http(`${url}/user/authenticate`, { method: 'POST', headers: json, body: { email_address: p.email, password: 'correct horse 1', vendor: program.vendor_id } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  const key = encodeURIComponent(login.body.session_identifier as string);
  const profile = await http(`${url}/user/profile?session_key=${key}`, { method: 'PUT', headers: json, body: { address1: p.address1, city: p.city, postal_code: p.postal, phone_number: { number: `0${p.mobile}`, code: '593' } } });
  expect(profile.status, JSON.stringify(profile.body)).toBe(200);
  const card = await http(`${url}/user/billing-profile/add?session_key=${key}`, {
    method: 'POST',
    headers: json,
    body: { name: `${p.first} ${p.last}`, number: CARDS.visa, expiry_month: '12', expiry_year: '2031', cvv: '123', description: p.cardDescription, zip_code: p.postal },
  });
  expect(card.status, JSON.stringify(card.body)).toBe(200);
  // Money on the card: the deletion gives it up knowingly (forfeit_balances).
  const reload = await http(`${url}/user/billing-profile/reload?session_key=${key}`, { method: 'POST', headers: { ...json, 'idempotency-key': randomBytes(8).toString('hex') }, body: { user_billingprofile: card.body.id, amount: 5 } });
  expect(reload.status, JSON.stringify(reload.body)).toBe(200);
  // A guest eGift for someone else, bought in the person's own name and email.
  const gift = await http(`${url}/vendor/${program.vendor_id}/egift`, {
    method: 'POST',
    headers: { ...json, 'idempotency-key': randomBytes(8).toString('hex') },
    body: {
      amount: 10,
      buyer: { name: `${p.first} ${p.last}`, email: p.email },
      recipient: { name: 'Rita Recipient', email: 'rita.recipient@example.com' },
      message: p.egiftMessage,
      image_url: null,
      billing: { name: `${p.first} ${p.last}`, number: CARDS.visa, expiry: { month: '12', year: '2031' }, cvv: '123', zip_code: p.postal },
    },
  });
  expect(gift.status, JSON.stringify(gift.body)).toBe(200);

  // Checked in and buying at both stores, found by email, cédula and phone.
  const [a, b] = chain.stores as [Chain['stores'][0], Chain['stores'][0]];
  const checkIn = await eventually('the check-in at A', async () => {
    const reply = await http(`${a.url}/onscreen?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { card_number: p.email } });
    return [200, 201].includes(reply.status) ? reply : undefined;
  });
  expect(checkIn.body.pos_session).toBeDefined();
  const saleA = await http(`${a.url}/order?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { card_number: p.cedula, receipt_number: 'A-1', subtotal: 40 } });
  expect(saleA.status, JSON.stringify(saleA.body)).toBe(200);
  const saleB = await eventually('the sale at B', async () => {
    const reply = await http(`${b.url}/order?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { card_number: `+593${p.mobile}`, receipt_number: 'B-1', subtotal: 12 } });
    return reply.status === 200 ? reply : undefined;
  });
  expect(saleB.body).toBeDefined();

  // Staff look them up (by name, email, phone) and adjust their points: the audit log has them.
  const signIn = await http(`${url}/backoffice/sign-in`, { method: 'POST', headers: json, body: { email: 'owner@erasure.example', password: 'correct horse battery' } });
  expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
  const staff = { authorization: `Bearer ${signIn.body.token}`, ...json };
  for (const q of [p.first, p.email, p.mobile, p.cedula]) {
    const found = await http(`${url}/backoffice/customers?q=${encodeURIComponent(q)}`, { headers: staff });
    expect(found.status, JSON.stringify(found.body)).toBe(200);
  }
  const profileSeen = await http(`${url}/backoffice/customers/${userId}`, { headers: staff });
  expect(profileSeen.status, JSON.stringify(profileSeen.body)).toBe(200);
  const points = (profileSeen.body.balances as Array<{ code: string | null; currency: number }>).find((balance) => balance.code === null)!;
  const adjusted = await http(`${url}/backoffice/customers/${userId}/adjustments`, { method: 'POST', headers: staff, body: { currency: points.currency, amount: 5, reason: 'Goodwill for a late order' } });
  expect(adjusted.status, JSON.stringify(adjusted.body)).toBe(201);
  const blocked = await http(`${url}/backoffice/customers/${userId}/block`, { method: 'POST', headers: staff, body: { reason: 'Card shared with a friend' } });
  expect(blocked.status, JSON.stringify(blocked.body)).toBe(200);
  const unblocked = await http(`${url}/backoffice/customers/${userId}/unblock`, { method: 'POST', headers: staff });
  expect(unblocked.status, JSON.stringify(unblocked.body)).toBe(200);

  // Mail to them: a password reset's code (real SMTP; the node keeps the sent message's record).
  const mailsBefore = mailbox!.messages.length;
  const reset = await http(`${url}/user/password-reset/reset`, { method: 'POST', headers: json, body: { email_address: p.email, vendor: program.vendor_id } });
  expect(reset.status, JSON.stringify(reset.body)).toBe(200);
  await mailbox!.waitFor((m) => mailbox!.messages.indexOf(m) >= mailsBefore && m.to.includes(p.email), 30_000);

  // Everything reached everywhere: the sales at central, the webhooks at the receiver.
  await synced(chain);
  await eventually('the webhooks of both sales', async () => (receiver!.ofType('order.placed').length >= 2 ? true : undefined));

  await beforeDeletion(userId);
  if (way === 'app') {
    // The app's deletion: the code comes by email (real SMTP), then the confirmation.
    const seen = new Set(mailbox!.messages);
    const submit = await http(`${url}/vendor/${program.vendor_id}/customers/${userId}/submit?session_key=${key}`, { method: 'DELETE', headers: json, body: { forfeit_balances: true } });
    expect(submit.status, JSON.stringify(submit.body)).toBe(200);
    const mail = await mailbox!.waitFor((m) => !seen.has(m) && m.to.includes(p.email), 30_000);
    const confirm = await http(`${url}/vendor/${program.vendor_id}/customers`, { method: 'DELETE', headers: json, body: { code: extractCode(mail.text), forfeit_balances: true } });
    expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
  } else {
    // Staff remove them at their request (by phone, at the counter): the same erasure.
    const removed = await http(`${url}/backoffice/customers/${userId}/remove`, { method: 'POST', headers: staff, body: { reason: 'Asked at the counter to be forgotten', forfeit_balances: true } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.erased).toBe(true);
  }
  await eventually('customer.deleted at the receiver', async () => (receiver!.ofType('customer.deleted').length >= 1 ? true : undefined));
  await synced(chain);
  return userId;
}

async function scanChain(chain: Chain, p: Person, userId: number, phase: string): Promise<Finding[]> {
  const find = needles(p);
  const found: Finding[] = [];
  await scanDatabase(`central(${phase})`, chain.dbUrl, find, found, p.birthdate, userId);
  for (const [i, store] of chain.stores.entries()) await scanDatabase(`store${i}(${phase})`, join(store.dir, 'punchcard.db'), find, found, p.birthdate, userId);
  scanFolder(`central-folder(${phase})`, chain.centralDir, find, found);
  for (const [i, store] of chain.stores.entries()) scanFolder(`store${i}-folder(${phase})`, store.dir, find, found);
  // The request logs: each node logs to its standard output and error.
  scanText(`central-log(${phase})`, chain.central.stdout() + chain.central.stderr(), find, found);
  for (const [i, store] of chain.stores.entries()) scanText(`store${i}-log(${phase})`, store.process.stdout() + store.process.stderr(), find, found);
  return found;
}

function summary(found: Finding[]): string[] {
  return [...new Set(found.map((f) => `${f.where} <- ${f.what}`))].sort();
}

const cases: Array<{ backend: 'sqlite' | 'postgres'; way: 'app' | 'staff' }> = [
  { backend: 'sqlite', way: 'app' },
  { backend: 'sqlite', way: 'staff' },
  ...(process.env.PG_URL ? [{ backend: 'postgres' as const, way: 'app' as const }] : []),
];

describe.each(cases)('an erased customer leaves nothing behind (central on $backend, erased by $way)', ({ backend, way }) => {
  it('no node keeps any personal value of theirs: databases, WAL, folders, backups, logs', async () => {
    mailbox ??= await startMailbox();
    receiver ??= await startWebhookReceiver();
    const chain = await startChain(backend);
    const p = person();
    let before: Finding[] = [];
    const userId = await liveAndLeave(chain, p, way, async (id) => {
      before = await scanChain(chain, p, id, 'before');
    });
    // The scan finds what it looks for: before the erasure, every value the nodes keep is found in
    // some node's rows, the WAL files included (the card number and a birthdate as a date, never).
    const seenBefore = new Set(before.map((finding) => finding.what));
    for (const what of Object.keys(needles(p)).filter((label) => !['card_number', 'birthdate_iso'].includes(label))) expect(seenBefore, what).toContain(what);
    expect(seenBefore).toContain('birthdate');
    expect(before.filter((finding) => finding.where.includes('.db-wal')).length).toBeGreaterThan(0);
    for (const node of ['central', 'store0', 'store1']) expect(before.some((finding) => finding.where.startsWith(`${node}(before) users.first_name`))).toBe(true);
    // The logs the scan reads are the request logs: staff's searches are there, their terms redacted.
    expect(chain.central.stdout()).toContain('/backoffice/customers?q=');

    // Backups made after the erasure, into the data folders the scan reads (a PostgreSQL central
    // is backed up with pg_dump: `punchcard backup` refuses it).
    if (backend === 'sqlite') {
      const backup = await run(['backup', '--data', chain.centralDir, '--to', join(chain.centralDir, 'after-erasure')], chain.centralEnv, 120_000);
      expect(backup.code, backup.stderr).toBe(0);
    }
    for (const store of chain.stores) {
      const backup = await run(['backup', '--data', store.dir, '--to', join(store.dir, 'after-erasure')], {}, 120_000);
      expect(backup.code, backup.stderr).toBe(0);
    }

    // While the nodes run (their WAL files in use), then once they stopped.
    expect(summary(await scanChain(chain, p, userId, 'running'))).toEqual([]);
    for (const store of chain.stores) await stopWith(store.process, 'SIGTERM');
    await stopWith(chain.central, 'SIGTERM');
    expect(summary(await scanChain(chain, p, userId, 'stopped'))).toEqual([]);

    if (backend === 'postgres') {
      // PostgreSQL's files keep the rows' versions from before the erasure (left: docs/decisions.md,
      // eleventh round): dead tuples and index entries, which a plain VACUUM leaves readable. Once
      // the tables are rewritten (VACUUM FULL, what an operator can run) nothing is left, so no
      // live row, hidden column or index names them.
      const database = openDatabaseUrl(chain.dbUrl);
      try {
        const dead: Finding[] = [];
        await scanPostgresFiles('central', database, needles(p), dead);
        expect(dead.map((finding) => finding.where)).toContain('central file of users');
        await sql`vacuum full`.execute(database.db);
        const rewritten: Finding[] = [];
        await scanPostgresFiles('central', database, needles(p), rewritten);
        expect(summary(rewritten)).toEqual([]);
      } finally {
        await database.close();
      }
    }
  }, 300_000);
});
