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

/** Ends every connection of `database` but the caller's own; how many it ended. */
async function endConnections(serverUrl: string, database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const ended = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
    return ended.rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

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
    expect(await endConnections(serverUrl, name)).toBeGreaterThan(0);
    const warned = () => jsonLines(central.stdout()).some((line) => String(line.msg).includes('the database ended a connection'));
    for (let waited = 0; !warned() && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(warned(), central.stdout()).toBe(true);

    // Central still runs, and serves from new connections.
    const after = await Promise.all(Array.from({ length: 4 }, () => http(`${url}/currencies`, { headers: token })));
    expect(after.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect((await http(`${url}/health`)).status).toBe(200);
    const stopped = await stopWith(central, 'SIGTERM');
    expect(stopped.code).toBe(0);
    expect(jsonLines(central.stdout()).filter((line) => Number(line.level) >= 50)).toEqual([]);
  }, 180_000);
});
