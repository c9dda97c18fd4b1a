import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';

export interface NewInboxMessage {
  vendorId: number;
  userId: number;
  /** 'program' (the admin API) or one of the program's own (welcome, tier, reward, egift). */
  kind: string;
  title: string;
  body: string;
  /** A message with the same key already in this customer's inbox is not posted again. */
  dedupeKey?: string | null;
}

/** Puts a message in a customer's inbox, inside the caller's transaction. Returns false for a duplicate. */
export async function postInboxMessage(db: Kysely<DB>, engine: Engine, message: NewInboxMessage): Promise<boolean> {
  const dedupeKey = message.dedupeKey ?? null;
  if (dedupeKey !== null) {
    const seen = await db
      .selectFrom('inbox_messages')
      .select('id')
      .where('user_id', '=', message.userId)
      .where('vendor_id', '=', message.vendorId)
      .where('dedupe_key', '=', dedupeKey)
      .executeTakeFirst();
    if (seen) return false;
  }
  await db
    .insertInto('inbox_messages')
    .values({
      id: await nextObjectId(db, engine.nodeId),
      vendor_id: message.vendorId,
      user_id: message.userId,
      kind: message.kind,
      title: message.title,
      body: message.body,
      dedupe_key: dedupeKey,
      created_at: engine.clock.now(),
      read_at: null,
      deleted_at: null,
    })
    .execute();
  return true;
}
