import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/core/storage/database';
import { createServerDatabase } from '../support/postgres';

// The settings a node's PostgreSQL connections start with (storage/database.ts, openPostgres).
// Needs a server: the embedded PGlite has no JIT and no connection options.
describe.skipIf(!process.env.PG_URL)('PostgreSQL connection settings (PG_URL)', () => {
  it('JIT is off on every connection of the pool; an options parameter in the URL still wins', async () => {
    const scratch = await createServerDatabase(process.env.PG_URL!, 'punchcard_settings');
    try {
      const database = openPostgres(scratch.url, 3);
      try {
        // Three at once: three connections of the pool.
        const shown = await Promise.all([0, 1, 2].map(() => sql<{ jit: string }>`select current_setting('jit') as jit, pg_sleep(0.05)`.execute(database.db)));
        expect(shown.map((r) => r.rows[0]!.jit)).toEqual(['off', 'off', 'off']);
      } finally {
        await database.close();
      }
      const operator = openPostgres(`${scratch.url}?options=${encodeURIComponent('-c jit=on')}`, 1);
      try {
        expect((await sql<{ jit: string }>`select current_setting('jit') as jit`.execute(operator.db)).rows[0]!.jit).toBe('on');
      } finally {
        await operator.close();
      }
    } finally {
      await scratch.drop();
    }
  });
});
