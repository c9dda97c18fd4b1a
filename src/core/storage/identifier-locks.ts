import { type Kysely, sql } from 'kysely';
import type { Dialect } from './dialect';
import type { DB } from './schema';

// Locks on customer identifiers that have no unique index (a phone, a cédula, a passport number):
// a command that checks "nobody holds it" and then sets it takes the identifier's lock first, so a
// second command with the same value waits, then reads the first one's row. The lock space and
// stripes are the ones central's push takes (src/core/sync/central/push-locks.ts), so a customer
// registering at central and a store's push carrying the same new phone wait for each other too
// (the push takes its keys through lockKeys).

/**
 * The advisory lock space and stripe count of customer identifiers. Stripes: a push page of a
 * thousand registrations must not hold thousands of entries of PostgreSQL's shared lock table.
 */
const IDENTIFIER_LOCK_SPACE = 7_301_002;
const IDENTIFIER_STRIPES = 128;

/** Identifiers a command checks and sets, as stored (a phone in E.164); null or absent: none. */
export interface CustomerIdentifiers {
  phone?: string | null | undefined;
  cedula?: string | null | undefined;
  passport?: string | null | undefined;
}

/** The lock keys of `ids`, named as central's push names them (its cédulas are not locked there: no merge by cédula). */
export function identifierLockKeys(ids: CustomerIdentifiers): string[] {
  return [
    ...(ids.phone ? [`customer-phone:${ids.phone}`] : []),
    ...(ids.cedula ? [`customer-cedula:${ids.cedula}`] : []),
    ...(ids.passport ? [`customer-passport:${ids.passport}`] : []),
  ];
}

/** Takes the locks of a customer's identifiers (lockKeys), all in one statement. */
export function lockIdentifiers(trx: Kysely<DB>, dialect: Dialect, ids: CustomerIdentifiers): Promise<void> {
  return lockKeys(trx, dialect, identifierLockKeys(ids));
}

/**
 * Takes the locks of `keys` until the transaction ends, on PostgreSQL. A key locks one of a fixed
 * set of stripes (two commands sharing one only wait), taken in stripe order in one statement, so
 * two commands locking several never wait for each other in a circle. Take them before anything
 * else that locks (an id, a row): a command holding the id counter while it waits here could close
 * a circle with one holding the stripe. SQLite already runs one writer at a time.
 */
export async function lockKeys(trx: Kysely<DB>, dialect: Dialect, keys: Iterable<string>): Promise<void> {
  if (dialect !== 'postgres') return;
  const distinct = [...new Set(keys)];
  if (distinct.length === 0) return;
  await sql`select count(pg_advisory_xact_lock(${IDENTIFIER_LOCK_SPACE}, stripe))
    from (select distinct (hashtextextended(k, 0) & ${IDENTIFIER_STRIPES - 1})::int as stripe from unnest(${distinct}::text[]) as k order by stripe) as stripes`.execute(trx);
}
