import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STALE_MS } from '../../src/core/import/import-jobs';
import { openDatabaseUrl } from '../../src/core/storage/database';
import { nodesOfThisFile, run, stopWith } from '../support/processes';
import { freePort } from '../support/free-port';
import { createServerDatabase } from '../support/postgres';
import { http } from '../support/test-node';

// The back office's member import on a central of two `punchcard central` processes on one
// database (the machine's PostgreSQL at PG_URL; one SQLite file when unset): its jobs are rows
// (migration 0047), so the screen's poll, the confirmation and the problem rows may reach either
// process, one import runs per program across both, a stopping process ends its own import, and
// one whose process died (its heartbeat stopped) frees the program.

let dropDatabase: (() => Promise<void>) | null = null;

afterAll(async () => {
  await dropDatabase?.();
});
// Registered after the afterAll above (after-hooks run last-registered first): the nodes are gone before their database is dropped.
const { tempDir, start } = nodesOfThisFile('punchcard-central-import-');

async function sharedDatabase(): Promise<Record<string, string>> {
  const serverUrl = process.env.PG_URL;
  if (!serverUrl) return {};
  const scratch = await createServerDatabase(serverUrl, 'punchcard_import');
  dropDatabase = scratch.drop;
  return { PUNCHCARD_DATABASE_URL: scratch.url };
}

const PASSWORD = 'correct horse battery';
const FILE = ['first_name,last_name,email,notes', 'Ana,López,ana@chain.test,regular', 'Ben,Okafor,ben@chain,', 'Carla,Núñez,carla@chain.test,'].join('\n');
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('importing members on a central of two processes', () => {
  it('is one job whichever process is asked: polled, confirmed and its problem rows read at the other; one at a time across both', async () => {
    const env = await sharedDatabase();
    const dir = tempDir();
    const init = await run(['init', '--data', dir, '--vendor', 'Chain Coffee', '--owner', 'owner@chain.test', '--json'], { ...env, PUNCHCARD_OWNER_PASSWORD: PASSWORD }, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const startCentral = async () => start(['central', '--data', dir, '--port', String(await freePort())], 'central', env);
    const [a, b] = await Promise.all([startCentral(), startCentral()]);
    const signIn = await http(`${a.url}/backoffice/sign-in`, { method: 'POST', body: { email: 'owner@chain.test', password: PASSWORD } });
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
    const token = signIn.body.token as string;
    const call = (url: string, method: string, path: string, body?: unknown) => http(`${url}${path}`, { method, token, ...(body !== undefined ? { body } : {}) });
    const upload = (url: string, fileName: string, content: string) => call(url, 'POST', '/backoffice/imports/customers', { file_name: fileName, content_base64: base64(content) });
    const untilDone = async (url: string, id: string) => {
      for (let i = 0; i < 1200; i += 1) {
        const reply = await call(url, 'GET', `/backoffice/imports/customers/${id}`);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        if (reply.body.status !== 'running') return reply.body;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the import never finished');
    };

    // The preview started at A, followed and confirmed at B; the import followed at A, its problem rows read at B.
    const started = await upload(a.url, 'members.csv', FILE);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const preview = await untilDone(b.url, started.body.id);
    expect(preview).toMatchObject({ status: 'finished', ignored_columns: ['notes'], report: { imported: 2, refused: 1 } });
    const confirmed = await call(b.url, 'POST', `/backoffice/imports/customers/${preview.id}/confirm`);
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(202);
    const imported = await untilDone(a.url, confirmed.body.id);
    expect(imported).toMatchObject({ status: 'finished', dry_run: false, preview_id: preview.id, report: { imported: 2, refused: 1 } });
    const again = await call(a.url, 'POST', `/backoffice/imports/customers/${preview.id}/confirm`);
    expect([again.status, again.body.code]).toEqual([409, 'import_not_confirmable']);
    const problems = await fetch(`${b.url}/backoffice/imports/customers/${imported.id}/problems.csv`, { headers: { authorization: `Bearer ${token}` } });
    expect(problems.status).toBe(200);
    expect((await problems.text()).split('\r\n')[1]).toBe('Ben,Okafor,ben@chain,3,invalid_email,The email is not an email address.');
    const listed = await call(b.url, 'GET', '/backoffice/imports/customers');
    expect(listed.body.items.map((j: { id: string }) => j.id)).toEqual([imported.id, preview.id]);

    // A long preview running at A: B refuses a second upload, follows it, and when A stops, reads it failed as A left it.
    const rows = Array.from({ length: 40_000 }, (_, i) => `Member,${i},member${i}@chain.test,`);
    const long = await upload(a.url, 'many.csv', ['first_name,last_name,email,notes', ...rows].join('\n'));
    expect(long.status, JSON.stringify(long.body)).toBe(202);
    const second = await upload(b.url, 'members.csv', FILE);
    expect([second.status, second.body.code], JSON.stringify(second.body)).toEqual([409, 'import_in_progress']);
    let progress = 0;
    for (let i = 0; i < 600 && progress === 0; i += 1) {
      const seen = await call(b.url, 'GET', `/backoffice/imports/customers/${long.body.id}`);
      expect(seen.body.status).toBe('running');
      progress = seen.body.done;
      if (progress === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(progress).toBeGreaterThan(0);
    expect((await stopWith(a.process, 'SIGTERM')).code).toBe(0);
    const stopped = await untilDone(b.url, long.body.id);
    expect(stopped).toMatchObject({ status: 'failed', error: { code: 'node_stopped' } });
    expect(stopped.done).toBeGreaterThan(0);
    expect(stopped.done).toBeLessThan(40_000);

    // A process that died mid-import leaves its row running with a heartbeat that stopped: it reads as failed and no longer holds the program.
    const database = openDatabaseUrl(env.PUNCHCARD_DATABASE_URL ?? join(dir, 'punchcard.db'));
    try {
      const vendor = await database.db.selectFrom('vendors').select('id').executeTakeFirstOrThrow();
      const late = Date.now() - STALE_MS - 1000;
      await database.db
        .insertInto('import_jobs')
        .values({ id: 'died-mid-import', vendor_id: vendor.id, seq: 1000, staff_email: 'owner@chain.test', file_name: 'old.csv', dry_run: 0, status: 'running', rows: 10, done: 4, created_at: late, updated_at: late, ignored_columns: '[]', file: '{"records":[],"decimalMark":"."}' })
        .execute();
      const dead = await call(b.url, 'GET', '/backoffice/imports/customers/died-mid-import');
      expect(dead.body).toMatchObject({ status: 'failed', done: 4, error: { code: 'node_stopped' } });
      const next = await upload(b.url, 'members.csv', FILE);
      expect(next.status, JSON.stringify(next.body)).toBe(202);
      expect(await database.db.selectFrom('import_jobs').select('status').where('id', '=', 'died-mid-import').executeTakeFirstOrThrow()).toEqual({ status: 'failed' });
      expect((await untilDone(b.url, next.body.id)).status).toBe('finished');
    } finally {
      await database.close();
    }
  }, 300_000);
});
