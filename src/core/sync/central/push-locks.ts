import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import type { PushedEvent } from '../protocol';

// What a push locks on PostgreSQL before it decides anything, so that decisions made on reads hold
// until it commits. SQLite runs one writer at a time, so there a push never meets another.

/**
 * The node's last applied event, read with its row locked: a push the store retried (its first
 * timed out while central was still applying it) waits for the first to commit and then finds its
 * events at or below last_seq — repeats, answered from their stored verdicts — instead of applying
 * them a second time and refusing them on their primary keys.
 */
export async function lockNodeLastSeq(trx: Kysely<DB>, dialect: Dialect, nodeId: number): Promise<number> {
  const query = trx.selectFrom('sync_nodes').select('last_seq').where('id', '=', nodeId);
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirstOrThrow();
  return Number(row.last_seq);
}

/** Identifier locks are stripes: a page of a thousand registrations must not hold thousands of entries of PostgreSQL's shared lock table. */
const IDENTIFIER_LOCK_SPACE = 7_301_002;
const IDENTIFIER_STRIPES = 128;

/**
 * Locks the email keys, phones and passport numbers of the customer rows these events send, until
 * the push commits: a customer is merged by email or phone into the one central already has
 * (apply-push.ts, page-customers.ts), and a passport is taken only when nobody else holds it, and
 * each of these is decided on a read. Two stores pushing the same new phone at once would both read
 * "nobody" and make two customers (a phone has no unique index to stop the second). A key locks one
 * of a fixed set of stripes (two pushes sharing one only wait, as they mostly do anyway for the
 * change log's lock), taken in stripe order in one statement, so two pushes cannot wait for each other.
 */
export async function lockCustomerIdentifiers(trx: Kysely<DB>, dialect: Dialect, events: readonly PushedEvent[]): Promise<void> {
  if (dialect !== 'postgres') return;
  const keys = new Set<string>();
  for (const event of events) {
    for (const change of event.changes) {
      if (change.tbl !== 'users' || change.op === 'delete') continue;
      const { email_key: email, phone, passport_number: passport } = change.data;
      if (typeof email === 'string' && email) keys.add(`customer-email:${email}`);
      if (typeof phone === 'string' && phone) keys.add(`customer-phone:${phone}`);
      if (typeof passport === 'string' && passport) keys.add(`customer-passport:${passport}`);
    }
  }
  if (keys.size === 0) return;
  await sql`select count(pg_advisory_xact_lock(${IDENTIFIER_LOCK_SPACE}, stripe))
    from (select distinct (hashtextextended(k, 0) & ${IDENTIFIER_STRIPES - 1})::int as stripe from unnest(${[...keys]}::text[]) as k order by stripe) as stripes`.execute(trx);
}
