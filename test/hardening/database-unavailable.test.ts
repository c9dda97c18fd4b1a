import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/server/errors/error-handler';
import { CentralError, httpTransport, UNREACHABLE } from '../../src/server/sync/http-transport';
import { jsonLines, killLeftovers, launch, listeningUrl, run, stopWith } from '../support/processes';
import { createServerDatabase, waitForLockWait } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';
import { relayTo } from '../support/tcp-relay';
import { http, type HttpReply, startTestNode } from '../support/test-node';

// A database the node cannot use now is a 503 the client can tell from a bug: central's PostgreSQL
// ended, refused or silent (database_unavailable), a store's SQLite file full or read-only
// (storage_unavailable); both with Retry-After, nothing of the driver or the address in the reply,
// and the node serving again by itself once the database is back.

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  await killLeftovers();
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function expectUnavailable(reply: HttpReply, code: string, retryAfter: string, secrets: string[]): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(503);
  expect(reply.body).toMatchObject({ code, message: expect.stringMatching(/try again/i) });
  expect(reply.headers.get('retry-after')).toBe(retryAfter);
  const text = JSON.stringify(reply.body);
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/ECONN|SQLITE|terminat|timeout|select |\bat .*\.(ts|js)/i);
}

describe.skipIf(!process.env.PG_URL)('punchcard central whose PostgreSQL is lost (PG_URL)', () => {
  it('answers 503 database_unavailable with Retry-After while PostgreSQL is ended, refused or silent, and serves again once it is back', async () => {
    const serverUrl = process.env.PG_URL!;
    const scratch = await createServerDatabase(serverUrl, 'h_dbdown');
    cleanups.push(scratch.drop);
    const name = new URL(scratch.url).pathname.slice(1);
    const dir = makeTempDir('h-dbdown-');
    cleanups.push(() => dir.remove());
    const init = await run(['init', '--data', dir.path, '--vendor', 'Chain Coffee', '--json'], { PUNCHCARD_DATABASE_URL: scratch.url }, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const token = { authorization: `Bearer ${(JSON.parse(init.stdout.trim()) as { access_token: string }).access_token}` };

    const relay = await relayTo(new URL(serverUrl));
    cleanups.push(() => relay.close());
    const viaRelay = new URL(scratch.url);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    const central = launch(['central', '--data', dir.path, '--port', '0'], undefined, { PUNCHCARD_DATABASE_URL: viaRelay.toString() });
    const url = await listeningUrl(central, 'central');
    const currencies = () => http(`${url}/currencies`, { headers: token });
    // Back in service: a request or two may still meet a pooled connection the outage ended before
    // the pool has heard of it (503 too); then the node serves again without a restart.
    const servesAgain = async () => {
      const statuses: number[] = [];
      while (statuses.length < 5 && statuses.at(-1) !== 200) statuses.push((await currencies()).status);
      expect(statuses.at(-1), statuses.join(' ')).toBe(200);
      expect(statuses.every((status) => status === 200 || status === 503), statuses.join(' ')).toBe(true);
    };
    expect((await currencies()).status).toBe(200);
    const secrets = [String(relay.port), new URL(serverUrl).port || '5432', name, 'postgres'];

    // 1. The server ends the connection a request is using (pg_terminate_backend: 57P01).
    const admin = new pg.Client({ connectionString: scratch.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    await admin.query('begin');
    await admin.query('lock table currencies in access exclusive mode');
    const waiting = currencies();
    await waitForLockWait(admin);
    const ended = await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and wait_event_type = 'Lock' and pid <> pg_backend_pid()", [name]);
    expect(ended.rowCount).toBeGreaterThan(0);
    expectUnavailable(await waiting, 'database_unavailable', '5', secrets);
    await admin.query('rollback');
    await servesAgain();

    // 2. Nothing listens where PostgreSQL was (connections cut, new ones refused).
    await relay.down();
    expectUnavailable(await currencies(), 'database_unavailable', '5', secrets);
    // The legacy envelope says it alike (a session's lookup needs the database).
    const legacy = await http(`${url}/user/profile?session_key=${'a'.repeat(40)}`);
    expect(legacy.status).toBe(503);
    expect(legacy.body.error.errors[0]).toMatchObject({ reason: 'database_unavailable' });
    expect(legacy.headers.get('retry-after')).toBe('5');
    await relay.up();
    await servesAgain();

    // 3. PostgreSQL accepts but never answers: the pool gives up after its connect timeout.
    // (The first request may still meet an idle connection the cut has not yet closed at central's end.)
    relay.silence();
    expectUnavailable(await currencies(), 'database_unavailable', '5', secrets);
    expectUnavailable(await currencies(), 'database_unavailable', '5', secrets);
    relay.relay();
    await servesAgain();
    expect((await http(`${url}/health`)).status).toBe(200);

    await stopWith(central, 'SIGTERM');
    // One error line per refused request, saying what is wrong; none names the password-bearing URL.
    const lines = jsonLines(central.stdout()).filter((line) => line.code === 'database_unavailable');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.every((line) => Number(line.level) === 50 && /PostgreSQL cannot be reached/.test(String(line.msg)))).toBe(true);
    expect(lines.map((line) => line.cause)).toEqual(expect.arrayContaining(['57P01', 'ECONNREFUSED', 'Connection terminated due to connection timeout']));
    expect(central.stdout()).not.toContain(viaRelay.toString());
  }, 240_000);
});

describe("a store's SQLite file that cannot be written", () => {
  it('answers 503 storage_unavailable with Retry-After when the file is full or read-only, logs what to fix, and writes again after', async () => {
    const node = await startTestNode({ traceLog: true });
    cleanups.push(() => node.close());
    const { accessToken } = await node.addVendor();
    let n = 0;
    const addCard = () => http(`${node.url}/cards`, { method: 'POST', token: accessToken, body: { number: `DBDOWN${++n}` } });
    expect((await addCard()).status).toBe(201);

    // Full: the file may not grow by a page (SQLite's own SQLITE_FULL, as on a full disk).
    const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(node.engine.db)).rows[0]!.page_count);
    await sql.raw(`pragma max_page_count = ${pages}`).execute(node.engine.db);
    let reply = await addCard();
    for (let i = 0; reply.status === 201 && i < 2_000; i += 1) reply = await addCard();
    expectUnavailable(reply, 'storage_unavailable', '30', [node.dataDir]);
    // Every request of an outage is refused; the log says so once per cause every 10 s.
    for (let i = 0; i < 5; i++) expectUnavailable(await addCard(), 'storage_unavailable', '30', [node.dataDir]);
    // Reads still work.
    expect((await http(`${node.url}/cards`, { token: accessToken })).status).toBe(200);
    await sql`pragma max_page_count = 1073741823`.execute(node.engine.db);
    expect((await addCard()).status).toBe(201);

    // Read-only: the write connection may not write (SQLITE_READONLY, as on a read-only file system).
    await sql`pragma query_only = ON`.execute(node.engine.db);
    expectUnavailable(await addCard(), 'storage_unavailable', '30', [node.dataDir]);
    await sql`pragma query_only = OFF`.execute(node.engine.db);
    expect((await addCard()).status).toBe(201);

    await node.log!.flush();
    const lines = jsonLines(readFileSync(node.log!.file, 'utf8')).filter((line) => line.code === 'storage_unavailable');
    expect(lines.map((line) => [line.level, line.cause])).toEqual([
      [50, 'SQLITE_FULL'],
      [50, 'SQLITE_READONLY'],
    ]);
    expect(lines[0]!.msg).toMatch(/disk .* is full/);
    expect(lines[1]!.msg).toMatch(/read-only/);
  }, 120_000);
});

describe('a bug', () => {
  it('still answers 500 internal_error, even next to a database that cannot be used', async () => {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    app.get('/v2/bug', async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'id')");
    });
    // A code like a socket's, without the socket call: not the database's.
    app.get('/v2/look-alike', async () => {
      throw Object.assign(new Error('ECONNREFUSED'), { code: 'ECONNREFUSED' });
    });
    await app.ready();
    for (const path of ['/v2/bug', '/v2/look-alike']) {
      const reply = await app.inject({ method: 'GET', url: path });
      expect(reply.statusCode).toBe(500);
      expect(reply.json().error.errors[0]).toMatchObject({ reason: 'internal_error' });
      expect(reply.headers['retry-after']).toBeUndefined();
    }
    await app.close();
  });
});

describe('a database that is damaged or gone', () => {
  // Real failures, not look-alikes: SQLite reading a file whose pages were overwritten or that is
  // not a database at all, PostgreSQL asked for a database that does not exist (dropped under a
  // running central). Each needs a person, not a code fix: 503 with what to do in the log.
  async function replyTo(failing: () => unknown): Promise<{ status: number; body: any; retryAfter: unknown }> {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    app.get('/v2/read', async () => failing());
    await app.ready();
    const reply = await app.inject({ method: 'GET', url: '/v2/read' });
    await app.close();
    return { status: reply.statusCode, body: reply.json(), retryAfter: reply.headers['retry-after'] };
  }

  it('answers 503 storage_unavailable for an SQLite file with damaged pages or no database in it', async () => {
    const dir = makeTempDir('h-corrupt-');
    cleanups.push(() => dir.remove());
    const damaged = `${dir.path}/damaged.db`;
    const db = new Database(damaged);
    db.exec('create table t (id integer primary key, b blob)');
    const insert = db.prepare('insert into t (b) values (randomblob(500))');
    for (let i = 0; i < 400; i++) insert.run();
    db.close();
    // Garbage over every page but the first (the header and schema stay readable).
    const pageSize = readFileSync(damaged).readUInt16BE(16);
    const file = openSync(damaged, 'r+');
    writeSync(file, Buffer.alloc(pageSize * 20, 0xa5), 0, pageSize * 20, pageSize);
    closeSync(file);
    const notADatabase = `${dir.path}/not-a-database.db`;
    writeFileSync(notADatabase, Buffer.alloc(8192, 0x5a));

    for (const [path, cause] of [[damaged, /^SQLITE_CORRUPT/], [notADatabase, /^SQLITE_NOTADB/]] as const) {
      const reader = new Database(path, { readonly: true });
      let thrown: unknown;
      const reply = await replyTo(() => {
        try {
          return reader.prepare('select sum(length(b)) as n from t').get();
        } catch (error) {
          thrown = error;
          throw error;
        }
      });
      reader.close();
      expect((thrown as { code: string }).code).toMatch(cause);
      expect(reply.status).toBe(503);
      expect(reply.body.error.errors[0]).toMatchObject({ reason: 'storage_unavailable' });
      expect(reply.retryAfter).toBe('30');
      expect(JSON.stringify(reply.body)).not.toMatch(/SQLITE|malformed|\.db/);
    }
  });

  it.skipIf(!process.env.PG_URL)('answers 503 database_unavailable for a PostgreSQL database that does not exist (PG_URL)', async () => {
    const url = new URL(process.env.PG_URL!);
    url.pathname = '/punchcard_dropped_database_never_created';
    const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
    cleanups.push(() => pool.end());
    let thrown: unknown;
    const reply = await replyTo(() =>
      pool.query('select 1').catch((error: unknown) => {
        thrown = error;
        throw error;
      }),
    );
    expect((thrown as { code: string }).code).toBe('3D000');
    expect(reply.status).toBe(503);
    expect(reply.body.error.errors[0]).toMatchObject({ reason: 'database_unavailable' });
    expect(reply.retryAfter).toBe('5');
    expect(JSON.stringify(reply.body)).not.toContain('punchcard_dropped_database');
  });
});

describe("a store's sync link to a central answering 503", () => {
  it('reads as central out of reach (a warning, the same backoff), not as central refusing its data', async () => {
    const replies: Record<string, [number, object]> = {
      '/sync/pull': [503, { code: 'database_unavailable', message: 'The database is not available right now. Please try again in a few seconds.' }],
      '/sync/push': [409, { code: 'sync_log_behind', message: 'Central’s change log ends before what this store has read.' }],
    };
    const central = createHttpServer((request, response) => {
      const [status, body] = replies[request.url!.split('?')[0]!]!;
      request.resume();
      response.writeHead(status, { 'content-type': 'application/json', 'retry-after': '5' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => central.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => central.close(resolve)));
    const transport = httpTransport(`http://127.0.0.1:${(central.address() as { port: number }).port}`, 'pcn_test');
    // store-sync.ts logs a last error that starts so as "central unreachable" (warn), any other as a refusal (error).
    const down = await transport.pull(0, 10).catch((error: unknown) => error);
    expect(down).toBeInstanceOf(CentralError);
    expect(down).toMatchObject({ status: 503, code: 'database_unavailable', message: expect.stringMatching(new RegExp(`^${UNREACHABLE} .*503 database_unavailable`)) });
    const refused = await transport.push({ events: [] } as never).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 409, code: 'sync_log_behind' });
    expect((refused as Error).message.startsWith(UNREACHABLE)).toBe(false);
  });
});
