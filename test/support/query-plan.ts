import { randomBytes } from 'node:crypto';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { makeTempDir } from './temp-dir';

/** SQLite's plan for a compiled query, its steps joined by " | " (EXPLAIN QUERY PLAN). */
export async function queryPlan(db: Kysely<any>, compiled: CompiledQuery): Promise<string> {
  const plan = await db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
  return plan.rows.map((row) => row.detail).join(' | ');
}

/**
 * A store node on an empty SQLite file for a test file of plans (started before its tests, removed
 * after): nodes never ANALYZE, so the plan SQLite gives an empty database is the one it keeps at
 * scale. `engine()` is the node; `planOf` plans one of its queries.
 */
export function nodeForPlans(prefix: string): { engine: () => Engine; planOf: (query: Compilable<unknown>) => Promise<string> } {
  const dir = makeTempDir(prefix);
  let engine: Engine;
  beforeAll(async () => {
    engine = await startEngine({ database: openSqlite(`${dir.path}/node.db`), nodeKey: randomBytes(32), role: 'store' });
  });
  afterAll(async () => {
    await engine.close();
    dir.remove();
  });
  return { engine: () => engine, planOf: (query) => queryPlan(engine.db, query.compile()) };
}
