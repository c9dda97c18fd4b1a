import { sql } from 'kysely';
import type { Engine } from '../engine';

export interface WindowCount {
  hits: number;
  windowStart: number;
}

/**
 * Counts one hit on a fixed window in the database and returns the window as it stands: a new
 * window opens when the last one has passed. One upsert statement, so concurrent processes of a
 * node never lose a hit. The key is stored as a keyed digest: no email or IP address at rest.
 */
export async function countHit(engine: Engine, key: string, windowMs: number): Promise<WindowCount> {
  const now = engine.clock.now();
  const passed = sql<boolean>`rate_limit_windows.window_start <= ${now - windowMs}`;
  const row = await engine.db
    .insertInto('rate_limit_windows')
    .values({ key_hash: engine.sealer.digest(key), window_start: now, expires_at: now + windowMs, hits: 1 })
    .onConflict((oc) =>
      oc.column('key_hash').doUpdateSet({
        hits: sql<number>`case when ${passed} then 1 else rate_limit_windows.hits + 1 end`,
        window_start: sql<number>`case when ${passed} then ${now} else rate_limit_windows.window_start end`,
        expires_at: sql<number>`case when ${passed} then ${now + windowMs} else rate_limit_windows.expires_at end`,
      }),
    )
    .returning(['hits', 'window_start'])
    .executeTakeFirstOrThrow();
  return { hits: Number(row.hits), windowStart: Number(row.window_start) };
}

/** The window of `key` as it stands, without counting a hit; null when none is open. */
export async function currentWindow(engine: Engine, key: string, windowMs: number): Promise<WindowCount | null> {
  const row = await engine.db
    .selectFrom('rate_limit_windows')
    .select(['hits', 'window_start'])
    .where('key_hash', '=', engine.sealer.digest(key))
    .where('window_start', '>', engine.clock.now() - windowMs)
    .executeTakeFirst();
  return row ? { hits: Number(row.hits), windowStart: Number(row.window_start) } : null;
}

/** Closes the window of `key` (the count starts anew). */
export async function forgetWindow(engine: Engine, key: string): Promise<void> {
  await engine.db.deleteFrom('rate_limit_windows').where('key_hash', '=', engine.sealer.digest(key)).execute();
}

/** Deletes windows that have passed (they would restart at 1 anyway). */
export async function sweepRateWindows(engine: Engine): Promise<void> {
  await engine.db.deleteFrom('rate_limit_windows').where('expires_at', '<=', engine.clock.now()).execute();
}
