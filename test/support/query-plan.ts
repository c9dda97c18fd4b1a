import type { CompiledQuery, Kysely } from 'kysely';

/** SQLite's plan for a compiled query, its steps joined by " | " (EXPLAIN QUERY PLAN). */
export async function queryPlan(db: Kysely<any>, compiled: CompiledQuery): Promise<string> {
  const plan = await db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
  return plan.rows.map((row) => row.detail).join(' | ');
}
