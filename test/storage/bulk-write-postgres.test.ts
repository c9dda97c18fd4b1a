import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import { removeChangeCapture } from '../../src/core/sync/capture/install-capture';
import { insertRowsPostgres } from '../../src/core/sync/central/bulk-write-postgres';
import { centralWithACheckIn } from '../support/central-with-check-in';
import type { openTestPostgres } from '../support/postgres';

// Central's bulk insert on PostgreSQL logs its rows itself and leaves the capture trigger one skip
// (bulk-write-postgres.ts, pgInsertLogging). Whenever that cannot be trusted, the trigger logs: every
// inserted row enters the change log exactly once, with the trigger's own text.
describe('central’s bulk insert on PostgreSQL and the change log', () => {
  let pg: Awaited<ReturnType<typeof openTestPostgres>>;
  let engine: Engine;
  let template: Record<string, unknown>;
  let nextId = 9_000_000;

  beforeAll(async () => {
    ({ pgdb: pg, engine, template } = await centralWithACheckIn('PG Bulk'));
  });

  afterAll(async () => {
    await engine?.close();
    await pg?.drop();
  });

  const session = () => {
    nextId += 1;
    return { ...template, id: nextId, hash: `bulk-${nextId}`, status: 'closed', closed_at: 1, closed_reason: 'test' };
  };
  /** The log's entries of the test's sessions, oldest first. */
  const logged = async () => (await sql<{ row_id: string; data: string }>`select row_id, data from sync_changes where tbl = 'pos_sessions' and row_id >= 9000000 order by seq`.execute(engine.db)).rows;
  const insert = (rows: Record<string, unknown>[]) => engine.db.transaction().execute((trx) => insertRowsPostgres(trx, 'pos_sessions', rows));

  it('logs each inserted row once, as the trigger would, and the skip it leaves is used up', async () => {
    const [a, b, c] = [session(), session(), session()];
    await insert([b, a]);
    await engine.db.transaction().execute(async (trx) => {
      await insertRowsPostgres(trx, 'pos_sessions', [c]);
      // After the bulk insert, an ordinary insert into the same table is logged by the trigger.
      await trx.insertInto('pos_sessions').values(session() as never).execute();
    });
    const entries = await logged();
    expect(entries.map((e) => Number(e.row_id))).toEqual([a.id, b.id, c.id, nextId]);
    // (as the trigger logs it: without the columns sync omits, the store's kiosk mark)
    const text = await sql<{ data: string }>`select (to_jsonb(s) - 'kiosk_identified_at')::text as data from pos_sessions s where id = ${a.id}`.execute(engine.db);
    expect(entries[0]!.data).toBe(text.rows[0]!.data);
  });

  it('writes jsonb’s own text for awkward strings and for a value the cast changes', async () => {
    const awkward = ['quote " and \\ backslash', 'line\nbreak\ttab\r\u0001\u001f\u007f', 'é ñ 漢字 🙂 \u2028', '', '{"json": [1]}'];
    const rows = awkward.map((text, i) => ({ ...session(), card_number: text, table_number: i % 2 === 0 ? null : `T${i}`, closed_reason: text }));
    // A number sent as a string is stored as the number, and logged as one.
    const asString = { ...session(), closed_at: '2' };
    await insert(rows);
    await insert([asString, session()]);
    const entries = await logged();
    const ids = [...rows.map((r) => r.id), asString.id, nextId];
    const stored = await sql<{ id: string; data: string }>`select id, (to_jsonb(s) - 'kiosk_identified_at')::text as data from pos_sessions s where id in (${sql.join(ids)})`.execute(engine.db);
    const byId = new Map(stored.rows.map((r) => [Number(r.id), r.data]));
    for (const id of ids) expect(entries.find((e) => Number(e.row_id) === id)?.data).toBe(byId.get(id));
    expect(JSON.parse(entries.find((e) => Number(e.row_id) === asString.id)!.data)).toHaveProperty('closed_at', 2);
  });

  it('leaves the log to the trigger when capture is paused, absent, older, or the table changed', async () => {
    const before = (await logged()).length;
    await engine.db.transaction().execute(async (trx) => {
      await trx.updateTable('sync_apply_mode').set({ active: 1 }).execute();
      await insertRowsPostgres(trx, 'pos_sessions', [session()]);
      await trx.updateTable('sync_apply_mode').set({ active: 0 }).execute();
    });
    expect((await logged()).length).toBe(before);

    // A column added since the text was built: the trigger's entry has it.
    await sql`alter table pos_sessions add column bulk_test_extra text`.execute(engine.db);
    await insert([session()]);
    const added = await logged();
    expect(added.length).toBe(before + 1);
    expect(JSON.parse(added.at(-1)!.data)).toHaveProperty('bulk_test_extra', null);

    // A trigger of an older version (no skip), as another central process may have installed.
    const definition = await sql<{ text: string }>`select pg_get_functiondef('sync_capture_pos_sessions'::regproc) as text`.execute(engine.db);
    await sql.raw(definition.rows[0]!.text.replace(/if tg_op = 'INSERT'[\s\S]*?end if;/, '')).execute(engine.db);
    await insert([session()]);
    expect((await logged()).length).toBe(before + 2);

    await removeChangeCapture(engine.db, engine.dialect);
    await insert([session()]);
    expect((await logged()).length).toBe(before + 2);
  });
});
