import { type Kysely, sql } from 'kysely';
import type { DB } from '../../storage/schema';
import type { PullResponse, PulledChange } from '../protocol';
import type { PairedNode } from './apply-push';

const USER_COLUMNS_KEPT_CENTRAL = new Set(['password_hash', 'failed_logins', 'locked_until']);

/**
 * The page of central's change log a store receives after its cursor: its vendor's rows, and the
 * customers who joined its vendor. A membership is preceded by the customer's current row, so a
 * customer who first joined another vendor arrives before the rows that point at them.
 */
export async function readChangesForNode(db: Kysely<DB>, node: PairedNode, after: number, limit: number): Promise<PullResponse> {
  // The head is read first: every seq up to it has committed (the log's order is the commit order),
  // so a page that ends short of it may move the cursor to it without skipping anything.
  const head = await db.selectFrom('sync_changes').select((eb) => eb.fn.max('seq').as('head')).executeTakeFirst();
  const headSeq = Number(head?.head ?? 0);
  const rows = await db
    .selectFrom('sync_changes as c')
    .select(['c.seq', 'c.tbl', 'c.op', 'c.data', 'c.row_id'])
    .where('c.seq', '>', after)
    .where((eb) =>
      eb.or([
        eb('c.vendor_id', '=', node.vendorId),
        eb.and([
          eb('c.tbl', '=', 'users'),
          eb.exists(
            eb
              .selectFrom('user_vendors as uv')
              .select(sql`1`.as('one'))
              .where('uv.vendor_id', '=', node.vendorId)
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
    .limit(limit)
    .execute();
  const changes: PulledChange[] = [];
  for (const row of rows) {
    const data = JSON.parse(row.data) as Record<string, unknown>;
    if (row.tbl === 'user_vendors' && row.op === 'upsert') {
      const user = await db.selectFrom('users').selectAll().where('id', '=', Number(data['user_id'])).executeTakeFirst();
      if (user) {
        const userData = Object.fromEntries(Object.entries(user).filter(([key]) => !USER_COLUMNS_KEPT_CENTRAL.has(key)));
        changes.push({ seq: Number(row.seq), tbl: 'users', op: 'upsert', data: userData });
      }
    }
    changes.push({ seq: Number(row.seq), tbl: row.tbl, op: row.op === 'delete' ? 'delete' : 'upsert', data });
  }
  const more = rows.length === limit;
  const last = rows.length > 0 ? Number(rows[rows.length - 1]!.seq) : after;
  const cursor = more ? last : Math.max(after, last, headSeq);
  return { changes, cursor, head: headSeq, more };
}
