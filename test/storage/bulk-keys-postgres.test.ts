import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import type { DB } from '../../src/core/storage/schema';
import { insertRowsPostgres } from '../../src/core/sync/central/bulk-write-postgres';
import { centralWithACheckIn } from '../support/central-with-check-in';
import type { openTestPostgres } from '../support/postgres';

// Central's bulk insert on PostgreSQL checks foreign keys once per statement, with row triggers off
// for it (bulk-keys-postgres.ts). It must refuse what PostgreSQL's own checks refuse, lock the parents
// as they do, and step aside whenever turning triggers off would lose something.

describe('central’s bulk insert on PostgreSQL checks keys per statement', () => {
  let pgdb: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let template: Record<string, unknown>;
  let nextId = 8_000_000;

  beforeAll(async () => {
    ({ pgdb, engine, template } = await centralWithACheckIn('PG Keys'));
  });

  afterAll(async () => {
    await engine?.close();
    await pgdb?.drop();
  });

  const session = (changes: Record<string, unknown> = {}) => {
    nextId += 1;
    return { ...template, id: nextId, hash: `keys-${nextId}`, status: 'closed', closed_at: 1, closed_reason: 'test', ...changes };
  };
  const count = async (ids: number[]) => Number((await sql<{ n: string }>`select count(*) as n from pos_sessions where id in (${sql.join(ids)})`.execute(engine.db)).rows[0]!.n);
  const logged = async (ids: number[]) => Number((await sql<{ n: string }>`select count(*) as n from sync_changes where tbl = 'pos_sessions' and row_id in (${sql.join(ids)})`.execute(engine.db)).rows[0]!.n);

  it('takes rows whose parents exist, logged once each, and refuses a row naming a missing parent with nothing left behind', async () => {
    const good = [session(), session()];
    await engine.db.transaction().execute((trx) => insertRowsPostgres(trx, 'pos_sessions', good));
    expect(await count(good.map((r) => r.id))).toBe(2);
    expect(await logged(good.map((r) => r.id))).toBe(2);

    const bad = [session(), session({ user_id: 987_654_321 }), session()];
    // The per-statement check's own error (PostgreSQL's per-row check would raise 23503 instead).
    await expect(engine.db.transaction().execute((trx) => insertRowsPostgres(trx, 'pos_sessions', bad))).rejects.toThrow('pos_sessions.user_id: 1 of the users rows it names do not exist');
    expect(await count(bad.map((r) => r.id))).toBe(0);
    expect(await logged(bad.map((r) => r.id))).toBe(0);
  });

  it('leaves triggers on for a table with a deferrable unique constraint, whose check is a trigger too', async () => {
    await sql`alter table pos_sessions add constraint keys_test_unique unique (table_number) deferrable initially immediate`.execute(engine.db);
    try {
      const twins = [session({ table_number: 'twin' }), session({ table_number: 'twin' })];
      await expect(engine.db.transaction().execute((trx) => insertRowsPostgres(trx, 'pos_sessions', twins))).rejects.toMatchObject({ code: '23505' });
      expect(await count(twins.map((r) => r.id))).toBe(0);
    } finally {
      await sql`alter table pos_sessions drop constraint keys_test_unique`.execute(engine.db);
    }
  });

  it('leaves triggers on, and PostgreSQL checks the keys, when another trigger fires on the table’s inserts', async () => {
    await sql`create function keys_test_mark() returns trigger language plpgsql as $$ begin new.table_number := 'marked'; return new; end $$`.execute(engine.db);
    await sql`create trigger keys_test_mark before insert on pos_sessions for each row execute function keys_test_mark()`.execute(engine.db);
    try {
      const row = session();
      await engine.db.transaction().execute((trx) => insertRowsPostgres(trx, 'pos_sessions', [row]));
      const stored = await engine.db.selectFrom('pos_sessions').select('table_number').where('id', '=', row.id).executeTakeFirstOrThrow();
      expect(stored.table_number).toBe('marked');
      expect(await logged([row.id])).toBe(1);
      await expect(engine.db.transaction().execute((trx) => insertRowsPostgres(trx, 'pos_sessions', [session({ user_id: 987_654_321 })]))).rejects.toMatchObject({ code: '23503' });
    } finally {
      await sql`drop trigger keys_test_mark on pos_sessions`.execute(engine.db);
      await sql`drop function keys_test_mark()`.execute(engine.db);
    }
  });

});

// Second connections and roles: the machine's PostgreSQL only.
describe.runIf(process.env.PG_URL)('central’s bulk insert on PostgreSQL, seen from other connections and roles (PG_URL)', () => {
  let pgdb: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let template: Record<string, unknown>;
  const others: Array<{ end(): Promise<unknown> }> = [];

  beforeAll(async () => {
    ({ pgdb, engine, template } = await centralWithACheckIn('PG Lock'));
  });

  afterAll(async () => {
    for (const other of others) await other.end();
    await engine?.close();
    await pgdb?.drop();
  });

  it('locks the parents its rows name, as PostgreSQL’s own check does, until it commits', async () => {
    const posId = template['pos_id'] as number;
    const other = new pg.Client({ connectionString: pgdb.url });
    others.push(other);
    await other.connect();
    await other.query(`set lock_timeout = '300ms'`);
    // FOR UPDATE (what a delete or a change of the key takes) waits behind FOR KEY SHARE.
    const lockParent = () => other.query('select 1 from points_of_sale where id = $1 for update', [posId]);

    const attempt = engine.db.transaction().execute(async (trx) => {
      await insertRowsPostgres(trx, 'pos_sessions', [{ ...template, id: 7_000_002, hash: 'lock-test', status: 'closed' }]);
      await expect(lockParent()).rejects.toMatchObject({ code: '55P03' });
      throw new Error('rolled back on purpose');
    });
    await expect(attempt).rejects.toThrow('rolled back on purpose');
    expect((await lockParent()).rowCount).toBe(1);
  });

  it('inserts as usual, PostgreSQL checking the keys, for a role that may not turn triggers off', async () => {
    const role = `punchcard_plain_${randomBytes(4).toString('hex')}`;
    await sql.raw(`create role ${role}`).execute(engine.db);
    await sql.raw(`grant all on all tables in schema public to ${role}; grant all on all sequences in schema public to ${role}`).execute(engine.db);
    // A database handle of its own: whether the role may is remembered per handle.
    const plain = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: pgdb.url, max: 1 }) }) });
    others.push({ end: () => plain.destroy() });
    try {
      const attempt = plain.transaction().execute(async (trx) => {
        await sql.raw(`set local role ${role}`).execute(trx);
        await insertRowsPostgres(trx, 'pos_sessions', [{ ...template, id: 7_000_003, hash: 'plain-test', status: 'closed', user_id: 987_654_321 }]);
      });
      await expect(attempt).rejects.toMatchObject({ code: '23503' });
    } finally {
      await sql.raw(`revoke all on all tables in schema public from ${role}; revoke all on all sequences in schema public from ${role}; drop role ${role}`).execute(engine.db);
    }
  });
});
