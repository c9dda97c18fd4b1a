import type { Kysely } from 'kysely';
import type { DB } from '../storage/schema';

/** Which of these API keys are still live (not revoked, not deleted), read from the database itself. */
export async function liveApiKeyIds(db: Kysely<DB>, ids: number[]): Promise<Set<number>> {
  const live = await db.selectFrom('api_keys').select('id').where('id', 'in', ids).where('revoked_at', 'is', null).execute();
  return new Set(live.map((row) => Number(row.id)));
}
