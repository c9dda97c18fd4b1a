import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, killLeftovers, launch, listeningUrl, run, stopWith } from '../support/processes';
import { createServerDatabase } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `punchcard central` on PostgreSQL whose server ends its connections (a restart, a failover, an
// idle timeout: here pg_terminate_backend). The pool's error for an idle connection used to be
// thrown from the event loop and stop central; now it is a warning and the next query reconnects.

const dirs: Array<{ remove(): void }> = [];
let dropDatabase: (() => Promise<void>) | null = null;

afterAll(async () => {
  await killLeftovers();
  for (const d of dirs) d.remove();
  await dropDatabase?.();
});

/** Runs `work` with a client of the server (not of the scratch database). */
async function asAdmin<T>(serverUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** The server processes of `database`'s connections but the caller's own. */
const backendsOf = (serverUrl: string, database: string) =>
  asAdmin(serverUrl, async (admin) => (await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database])).rows.map((row) => row.pid));

/** Ends every connection of `database` but the caller's own; how many it ended. */
const endConnections = (serverUrl: string, database: string) =>
  asAdmin(serverUrl, async (admin) => (await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database])).rowCount ?? 0);

describe.skipIf(!process.env.PG_URL)('punchcard central when PostgreSQL ends its connections (PG_URL)', () => {
  it('keeps serving: a warning, then the next requests connect anew', async () => {
    const serverUrl = process.env.PG_URL!;
    const scratch = await createServerDatabase(serverUrl, 'punchcard_lost');
    dropDatabase = scratch.drop;
    const env = { PUNCHCARD_DATABASE_URL: scratch.url };
    const dir = makeTempDir('punchcard-lost-');
    dirs.push(dir);
    const init = await run(['init', '--data', dir.path, '--vendor', 'Chain Coffee', '--json'], env, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const program = JSON.parse(init.stdout.trim()) as Record<string, any>;
    const central = launch(['central', '--data', dir.path, '--port', '0'], undefined, env);
    const url = await listeningUrl(central, 'central');
    const token = { authorization: `Bearer ${program.access_token}` };
    // Some connections in the pool, idle once answered.
    const first = await Promise.all(Array.from({ length: 4 }, () => http(`${url}/currencies`, { headers: token })));
    expect(first.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);

    const name = new URL(scratch.url).pathname.slice(1);
    const before = await backendsOf(serverUrl, name);
    expect(await endConnections(serverUrl, name)).toBeGreaterThan(0);
    const warned = () => jsonLines(central.stdout()).some((line) => String(line.msg).includes('the database ended a connection'));
    // The pool tells of an idle connection the server ended (a warning; it used to stop central). A
    // grace period for it: once in a CI run it did not come within 10 s, so what is asserted below is
    // what matters — central serving on new connections.
    for (let waited = 0; !warned() && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));

    // Central still runs, and serves from new connections (none of the ended ones is left).
    const after = await Promise.all(Array.from({ length: 4 }, () => http(`${url}/currencies`, { headers: token })));
    expect(after.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect((await http(`${url}/health`)).status).toBe(200);
    const now = await backendsOf(serverUrl, name);
    expect(now.length).toBeGreaterThan(0);
    expect(now.filter((pid) => before.includes(pid))).toEqual([]);
    const stopped = await stopWith(central, 'SIGTERM');
    expect(stopped.code).toBe(0);
    // A background pass whose query was under way when its connection ended, or that held it between
    // two statements, fails that once (57P01, or the driver's "Connection terminated unexpectedly";
    // logged; the next pass runs on a new connection): nothing else may be an error. (Such a held
    // connection's error once stopped central: its client had no listener.)
    const ended = (line: Record<string, any>) => line.err?.code === '57P01' || line.err?.message === 'Connection terminated unexpectedly';
    expect(jsonLines(central.stdout()).filter((line) => Number(line.level) >= 50 && !ended(line))).toEqual([]);
  }, 180_000);
});
