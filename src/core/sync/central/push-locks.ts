import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import type { Dialect } from '../../storage/dialect';
import { identifierLockKeys, lockKeys } from '../../storage/identifier-locks';
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
  const query = trx.selectFrom('sync_nodes').select(['last_seq', 'revoked_at']).where('id', '=', nodeId);
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirstOrThrow();
  // Revoked since its credential was checked (a push in flight): nothing of it is applied.
  if (row.revoked_at !== null) throw new ServiceError('node_revoked');
  return Number(row.last_seq);
}

/**
 * Locks the email keys, phones and passport numbers of the customer rows these events send, until
 * the push commits: a customer is merged by email or phone into the one central already has
 * (apply-push.ts, page-customers.ts), and a passport is taken only when nobody else holds it, and
 * each of these is decided on a read. Two stores pushing the same new phone at once would both read
 * "nobody" and make two customers (a phone has no unique index to stop the second). The locks are
 * the ones a sign-up or profile change at central takes (storage/identifier-locks.ts: the same
 * stripes and key names), so those wait for a push carrying the same identifier too.
 */
export async function lockCustomerIdentifiers(trx: Kysely<DB>, dialect: Dialect, events: readonly PushedEvent[]): Promise<void> {
  const keys: string[] = [];
  for (const event of events) {
    for (const change of event.changes) {
      if (change.tbl !== 'users' || change.op === 'delete') continue;
      const { email_key: email, phone, passport_number: passport } = change.data;
      if (typeof email === 'string' && email) keys.push(`customer-email:${email}`);
      keys.push(...identifierLockKeys({ phone: typeof phone === 'string' ? phone : null, passport: typeof passport === 'string' ? passport : null }));
    }
  }
  await lockKeys(trx, dialect, keys);
}
