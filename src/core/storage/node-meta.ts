import type { Kysely } from 'kysely';
import type { DB } from './schema';

/** A value the node keeps about itself (node_meta): its number, sync cursor and times, capture role. */
export async function getMeta(db: Kysely<DB>, key: string): Promise<string | null> {
  const row = await db.selectFrom('node_meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value ?? null;
}

export async function setMeta(db: Kysely<DB>, key: string, value: string): Promise<void> {
  await db
    .insertInto('node_meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
