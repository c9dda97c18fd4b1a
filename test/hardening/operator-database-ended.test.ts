import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startStoreNode } from '../../src/server/node/store-node';
import { createServerDatabase } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// Central's PostgreSQL ends its connections (a restart, a failover: here pg_terminate_backend). The
// operator reads one warning per connection ended, saying what the server said — not two lines
// each, the second carrying the driver's client object, both with a stack trace.

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe.skipIf(!process.env.PG_URL)("central's log when PostgreSQL ends its connections (PG_URL)", () => {
  it('says it once per connection, in the server\'s words, without a stack', async () => {
    const serverUrl = process.env.PG_URL!;
    const scratch = await createServerDatabase(serverUrl, 'punchcard_ended');
    cleanups.push(() => scratch.drop());
    const dir = makeTempDir('punchcard-ended-');
    cleanups.push(() => dir.remove());
    const lines: Array<Record<string, any>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, any>);
        done();
      },
    });
    const central = await startStoreNode({ dataDir: dir.path, role: 'central', port: 0, database: scratch.url, logger: pino({ level: 'warn' }, stream) });
    cleanups.push(() => central.close());
    // Connections in the pool, idle once answered.
    await Promise.all(Array.from({ length: 4 }, () => http(`${central.url}/health`)));

    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const name = new URL(scratch.url).pathname.slice(1);
    const ended = (await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name])).rowCount ?? 0;
    await admin.end();
    expect(ended).toBeGreaterThan(0);
    const told = () => lines.filter((line) => line.msg === 'the database ended a connection; the next query opens another');
    for (let waited = 0; told().length < ended && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(told()).toHaveLength(ended);
    for (const line of told()) {
      // An idle connection hears the server's 57P01; one a background job held at that moment may
      // only see its socket close (the driver's words, as test/cli/central-database-lost allows).
      expect([line.level, `${line.code} ${line.detail}`]).toEqual([40, expect.stringMatching(/^(57P01 terminating connection due to administrator command|null Connection terminated unexpectedly)$/)]);
      expect(line.err).toBeUndefined();
    }
    expect((await http(`${central.url}/health`)).status).toBe(200);
  }, 60_000);
});
