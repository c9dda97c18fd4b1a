import { type Kysely, sql } from 'kysely';
import type { DB } from './schema';

/**
 * PostgreSQL: the node's write lock, a transaction-level advisory lock. The change log's triggers
 * take it to keep the log in commit order, and the object-id counter's row is another lock every
 * object-making command holds to its commit: a command that locked a row first (a void's ledger
 * account) and then needed either waited on a command holding them and waiting for that row, and
 * PostgreSQL broke the circle by aborting one after its 1 s deadlock timeout. Every command
 * (`transact`) now takes this lock before anything else, so every writer locks in one order.
 */
export const PG_WRITE_LOCK = 7_301_001;

export async function takeWriteLock(db: Kysely<DB>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${PG_WRITE_LOCK})`.execute(db);
}
