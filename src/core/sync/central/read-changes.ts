import { type Kysely, sql } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import { dialectOf, inList, noIndexOn } from '../../storage/dialect';
import { chunks } from '../bulk-lists';
import type { DB } from '../../storage/schema';
import type { PullResponse, PulledChange } from '../protocol';
import type { PairedNode } from './apply-push';
import { formerMembersOf, withoutPerson } from './former-members';
import { logHead } from './read-snapshot';

const USER_COLUMNS_KEPT_CENTRAL = new Set(['password_hash', 'failed_logins', 'locked_until']);

/**
 * The page of central's change log a store receives after its cursor: its vendor's rows, and the
 * customers who joined its vendor. A membership is preceded by the customer's current row, so a
 * customer who first joined another vendor arrives before the rows that point at them. A customer
 * who left the vendor arrives without who they are (former-members.ts).
 */
export async function readChangesForNode(db: Kysely<DB>, node: PairedNode, after: number, limit: number): Promise<PullResponse> {
  // The head is read first: every seq up to it has committed (the log's order is the commit order),
  // so a page that ends short of it may move the cursor to it without skipping anything.
  const headSeq = await logHead(db);
  // A cursor past the log's end was given by a log central no longer has: central was restored from
  // an older backup (its seqs will be given again to other changes, which this store would skip).
  if (after > headSeq) throw new ServiceError('sync_log_behind', `This store has read central's change log to ${after}, but it ends at ${headSeq}: central was restored from an older backup. Pair this store again (docs: README, Backups).`);
  const rows = await changesQuery(db, node.vendorId, after, limit).execute();
  const entries = rows.map((row) => ({ row, data: JSON.parse(row.data) as Record<string, unknown> }));
  const joined = (row: (typeof rows)[number]) => row.tbl === 'user_vendors' && row.op === 'upsert';
  const joinedIds = entries.filter(({ row }) => joined(row)).map(({ data }) => Number(data['user_id']));
  const members = await currentCustomers(db, joinedIds);
  const former = await formerMembersOf(db, node.vendorId, [...joinedIds, ...entries.filter(({ row }) => row.tbl === 'users').map(({ row }) => Number(row.row_id))]);
  const shown = (userId: number, user: Record<string, unknown>) => (former.has(userId) ? withoutPerson(user) : { ...user });
  // A membership comes with the copies merged into its customer, shown as the customer is: leaving
  // (wiped) or joining again (whole) changes nothing in those rows that the log would carry, and
  // the stores hold them as they last received them.
  const copies = await mergedCopiesOf(db, joinedIds);
  const changes: PulledChange[] = [];
  for (const { row, data } of entries) {
    const userId = Number(joined(row) ? data['user_id'] : row.row_id);
    const user = joined(row) ? members.get(userId) : undefined;
    // Each change its own object: a link in this process (tests, the simulation) hands them over as they are.
    if (user) changes.push({ seq: Number(row.seq), tbl: 'users', op: 'upsert', data: shown(userId, user) });
    if (user) for (const copy of copies.get(userId) ?? []) changes.push({ seq: Number(row.seq), tbl: 'users', op: 'upsert', data: shown(userId, copy) });
    const sent = row.tbl === 'users' && row.op !== 'delete' ? shown(userId, data) : data;
    changes.push({ seq: Number(row.seq), tbl: row.tbl, op: row.op === 'delete' ? 'delete' : 'upsert', data: sent });
  }
  const more = rows.length === limit;
  const last = rows.length > 0 ? Number(rows[rows.length - 1]!.seq) : after;
  const cursor = more ? last : Math.max(after, last, headSeq);
  return { changes, cursor, head: headSeq, more };
}

/** The current rows of the copies merged into these customers, by survivor (through the index of migration 0032). */
async function mergedCopiesOf(db: Kysely<DB>, ids: number[]): Promise<Map<number, Array<Record<string, unknown>>>> {
  const found = new Map<number, Array<Record<string, unknown>>>();
  for (const chunk of chunks([...new Set(ids)], 5_000)) {
    for (const copy of await db.selectFrom('users').selectAll().where(inList(db, 'merged_into', chunk, 'bigint')).execute()) {
      const row = Object.fromEntries(Object.entries(copy).filter(([key]) => !USER_COLUMNS_KEPT_CENTRAL.has(key)));
      found.set(Number(copy.merged_into), [...(found.get(Number(copy.merged_into)) ?? []), row]);
    }
  }
  return found;
}

/** Customers' current rows as stores receive them, by id: one query a page (a query a membership cost a round trip each on PostgreSQL). */
async function currentCustomers(db: Kysely<DB>, ids: number[]): Promise<Map<number, Record<string, unknown>>> {
  const found = new Map<number, Record<string, unknown>>();
  for (const chunk of chunks([...new Set(ids)], 5_000)) {
    for (const user of await db.selectFrom('users').selectAll().where(inList(db, 'id', chunk, 'bigint')).execute()) {
      found.set(Number(user.id), Object.fromEntries(Object.entries(user).filter(([key]) => !USER_COLUMNS_KEPT_CENTRAL.has(key))));
    }
  }
  return found;
}

/**
 * The node's entries of the log after `after`, in seq order: its vendor's rows, and the customers
 * who joined its vendor (or whose survivor did). Exported for the test of its plan: on SQLite the
 * log is read from the cursor along its seq and each entry kept or not (`+` keeps the planner off
 * the vendor and table indexes, through which it took every change of the vendor after the cursor
 * and every customer change of the whole log, then sorted them: 105 ms for a pull with nothing new
 * at 1M customers, 2.7 s a page of 1,000).
 */
export function changesQuery(db: Kysely<DB>, vendorId: number, after: number, limit: number) {
  const dialect = dialectOf(db as Kysely<unknown>);
  return db
    .selectFrom('sync_changes as c')
    .select(['c.seq', 'c.tbl', 'c.op', 'c.data', 'c.row_id'])
    .where('c.seq', '>', after)
    .where((eb) =>
      eb.or([
        eb(noIndexOn(dialect, 'c.vendor_id'), '=', vendorId),
        eb.and([
          eb(noIndexOn(dialect, 'c.tbl'), '=', 'users'),
          eb.exists(
            eb
              .selectFrom('user_vendors as uv')
              .select(sql`1`.as('one'))
              .where('uv.vendor_id', '=', vendorId)
              // A customer merged into another travels with the survivor's memberships.
              .where((w) =>
                w.or([
                  w('uv.user_id', '=', w.ref('c.row_id')),
                  w('uv.user_id', '=', w.selectFrom('users as m').select('m.merged_into').whereRef('m.id', '=', 'c.row_id')),
                ]),
              ),
          ),
        ]),
      ]),
    )
    .orderBy('c.seq')
    .limit(limit);
}
