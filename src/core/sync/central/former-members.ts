import type { Kysely } from 'kysely';
import { WIPED_PERSON } from '../../customers/personal-data';
import { inList } from '../../storage/dialect';
import type { DB } from '../../storage/schema';
import { chunks } from '../bulk-lists';

/**
 * Of these customers, those who left the vendor (docs/sync.md, "Customers who left a program"): a
 * membership there, none current, not merged into another account (a merged account travels with
 * its survivor's memberships, and is a former member when its survivor is). Central sends their
 * row to the vendor's stores without who they are: the stores keep it for the sales that point at it, and the person asked that program to
 * forget them. The page's ids are looked up one by one (an id range would span every node's ids,
 * node number × 2^32 + sequence, and so every left membership of the vendor): chunks of
 * `user_id in (…)` through the index of left memberships (migration 0030), and of `id in (…)`
 * through the customers' key; only customers with a left membership are looked at further.
 */
export async function formerMembersOf(db: Kysely<DB>, vendorId: number, userIds: readonly number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const asked = [...new Set(userIds)];
  const former = await leftOf(db, vendorId, asked);
  // A copy merged into an account (a store's registration of someone central knew) says who the
  // survivor is: it goes as the survivor does.
  const survivorOf = new Map<number, number>();
  for (const chunk of chunks(asked, CHUNK)) {
    for (const copy of await mergedCopiesQuery(db, chunk).execute()) survivorOf.set(Number(copy.id), Number(copy.merged_into));
  }
  if (survivorOf.size === 0) return former;
  const leftSurvivors = await leftOf(db, vendorId, [...new Set(survivorOf.values())]);
  for (const [copy, survivor] of survivorOf) if (leftSurvivors.has(survivor)) former.add(copy);
  return former;
}

const CHUNK = 5_000;

/** The vendor's left memberships of these customers (each id looked up, never an id range). */
function leftMembershipsQuery(db: Kysely<DB>, vendorId: number, userIds: readonly number[]) {
  return db.selectFrom('user_vendors').select('user_id').where('vendor_id', '=', vendorId).where('removed_at', 'is not', null).where(inList(db, 'user_id', userIds, 'bigint'));
}

/** Which of these customers are copies merged into another account, and into which. */
function mergedCopiesQuery(db: Kysely<DB>, userIds: readonly number[]) {
  return db.selectFrom('users').select(['id', 'merged_into']).where(inList(db, 'id', userIds, 'bigint')).where('merged_into', 'is not', null);
}

/** Of these customers, those with a left membership of the vendor and no current one, not merged. */
async function leftOf(db: Kysely<DB>, vendorId: number, asked: number[]): Promise<Set<number>> {
  const former = new Set<number>();
  for (const chunk of chunks(asked, CHUNK)) {
    for (const row of await leftMembershipsQuery(db, vendorId, chunk).execute()) former.add(Number(row.user_id));
  }
  if (former.size === 0) return former;
  for (const chunk of chunks([...former], CHUNK)) {
    const stillIn = await db
      .selectFrom('users as u')
      .select('u.id')
      .where(inList(db, 'u.id', chunk, 'bigint'))
      .where((eb) =>
        eb.or([
          eb('u.merged_into', 'is not', null),
          eb.exists(eb.selectFrom('user_vendors as uv').select('uv.id').whereRef('uv.user_id', '=', 'u.id').where('uv.vendor_id', '=', vendorId).where('uv.removed_at', 'is', null)),
        ]),
      )
      .execute();
    for (const row of stillIn) former.delete(Number(row.id));
  }
  return former;
}

/** A customer's row as the stores of a program they left receive it. */
export function withoutPerson<T extends Record<string, unknown>>(row: T): T {
  return { ...row, ...WIPED_PERSON };
}
