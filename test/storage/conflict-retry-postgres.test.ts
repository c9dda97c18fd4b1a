import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';

// Every command takes the node's write lock first (storage/write-lock.ts), so two commands never
// deadlock each other; with a connection outside the node they still can: PostgreSQL aborts one of
// two deadlocked transactions (40P01) and transact() runs the aborted command again, so the caller
// sees its result, not the deadlock. Needs a server: PGlite has one connection.
describe.skipIf(!process.env.PG_URL)('a command PostgreSQL aborts to break a deadlock runs again (PG_URL)', () => {
  let database: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;

  beforeAll(async () => {
    database = await openTestPostgres();
    engine = await startEngine({ database: database.database, nodeKey: randomBytes(32), clock: new ManualClock(), role: 'central' });
    await engine.db.insertInto('node_meta').values([{ key: 'left', value: '0' }, { key: 'right', value: '0' }]).execute();
  });

  afterAll(async () => {
    await engine?.close();
    await database?.drop();
  });

  it('two commands locking two rows in opposite orders run one after the other, each once (the write lock comes first)', async () => {
    const attempts = { left: 0, right: 0 };
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const command = (first: 'left' | 'right', second: 'left' | 'right', pause: Promise<unknown>) =>
      transact(engine, async (trx) => {
        attempts[first] += 1;
        const bump = (key: string) => sql`update node_meta set value = value || '+' where key = ${key}`.execute(trx);
        await bump(first);
        firstLocked();
        await pause;
        await bump(second);
        return first;
      });
    const leftFirst = command('left', 'right', new Promise((resolve) => setTimeout(resolve, 200)));
    await locked;
    const results = await Promise.all([leftFirst, command('right', 'left', Promise.resolve())]);
    expect(results).toEqual(['left', 'right']);
    expect(attempts).toEqual({ left: 1, right: 1 });
    const rows = await engine.db.selectFrom('node_meta').select(['key', 'value']).where('key', 'in', ['left', 'right']).orderBy('key').execute();
    expect(rows).toEqual([{ key: 'left', value: '0++' }, { key: 'right', value: '0++' }]);
  });

  it('a command PostgreSQL aborts to break a deadlock with another connection runs again, and commits', async () => {
    // The command locks `left` and then waits for `right`, which a connection outside the node
    // (a maintenance script, say) holds while it waits for `left`: the command waited first, so its
    // deadlock check finds the circle and PostgreSQL aborts it; it runs again once the other commits.
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      let attempts = 0;
      let leftLocked!: () => void;
      const locked = new Promise<void>((resolve) => (leftLocked = resolve));
      const command = transact(engine, async (trx) => {
        attempts += 1;
        await sql`update node_meta set value = value || 'c' where key = 'left'`.execute(trx);
        if (attempts === 1) {
          leftLocked();
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await sql`update node_meta set value = value || 'c' where key = 'right'`.execute(trx);
      });
      await locked;
      await other.query('begin');
      await other.query("update node_meta set value = value || 'o' where key = 'right'");
      // Wait until the command waits for `right`, then close the circle.
      for (let waited = 0; ; waited += 20) {
        const { rows } = await other.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
        if (rows[0].n >= 1) break;
        if (waited > 5_000) throw new Error('the command never waited for the row');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const closing = other.query("update node_meta set value = value || 'o' where key = 'left'").then(() => other.query('commit'));
      await Promise.all([command, closing]);
      expect(attempts).toBe(2);
      const rows = await engine.db.selectFrom('node_meta').select(['key', 'value']).where('key', 'in', ['left', 'right']).orderBy('key').execute();
      expect(rows.map((r) => r.value)).toEqual(['0++oc', '0++oc']);
    } finally {
      await other.end();
    }
  });

  it('gives up after a few attempts: a command that deadlocks every time fails with the deadlock', async () => {
    let attempts = 0;
    const failing = transact(engine, async (trx) => {
      attempts += 1;
      await trx.selectNoFrom((eb) => eb.val(1).as('one')).execute();
      throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    });
    await expect(failing).rejects.toMatchObject({ code: '40P01' });
    expect(attempts).toBe(4);
  });

  it('does not run again a command that failed for another reason', async () => {
    let attempts = 0;
    await expect(
      transact(engine, async (trx) => {
        attempts += 1;
        await trx.insertInto('node_meta').values({ key: 'left', value: 'again' }).execute();
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(attempts).toBe(1);
  });
});
