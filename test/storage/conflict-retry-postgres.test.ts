import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine, transact } from '../../src/core/engine';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';

// PostgreSQL aborts one of two deadlocked transactions (40P01); transact() runs the aborted command
// again, so the caller sees its result, not the deadlock. Needs a server: PGlite has one connection.
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

  it('two commands locking two rows in opposite orders both commit, one of them on its second attempt', async () => {
    const attempts = { left: 0, right: 0 };
    // Each command locks its first row, waits until the other has locked its own, then asks for it.
    let bothLocked!: () => void;
    const firstLocks = new Promise<void>((resolve) => (bothLocked = resolve));
    let locked = 0;
    const command = (first: 'left' | 'right', second: 'left' | 'right') =>
      transact(engine, async (trx) => {
        attempts[first] += 1;
        const bump = (key: string) => sql`update node_meta set value = value || '+' where key = ${key}`.execute(trx);
        await bump(first);
        if (attempts[first] === 1) {
          locked += 1;
          if (locked === 2) bothLocked();
          await firstLocks;
        }
        await bump(second);
        return first;
      });

    const results = await Promise.all([command('left', 'right'), command('right', 'left')]);
    expect(results).toEqual(['left', 'right']);
    // One command was the deadlock's victim and ran twice; its aborted attempt left nothing.
    expect(attempts.left + attempts.right).toBe(3);
    const rows = await engine.db.selectFrom('node_meta').select(['key', 'value']).where('key', 'in', ['left', 'right']).orderBy('key').execute();
    expect(rows).toEqual([{ key: 'left', value: '0++' }, { key: 'right', value: '0++' }]);
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
