import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';

/**
 * A store's outbox keeps each event after central answered it; its captured rows already left at
 * the answer (recordVerdicts). Nothing reads an applied event again, and every sale adds one
 * (~200 bytes with its index), so they go after a month. Refused events stay half a year: Settings
 * lists them for staff to look into. node_seq comes from its own sequence (id_sequences), so the
 * events that go never free a number for reuse.
 */
export const KEEP_APPLIED_MS = 30 * 24 * 3600_000;
export const KEEP_REFUSED_MS = 182 * 24 * 3600_000;

const PAGE = 1_000;

/**
 * Removes the applied events older than KEEP_APPLIED_MS and the refused ones older than
 * KEEP_REFUSED_MS, reading the outbox from its oldest event a page at a time and stopping at the
 * first one not due (events are answered in node_seq order, so the rest are newer). `between` runs
 * after each page that left more to read (the hourly job lets requests in there); false stops.
 * Returns how many went.
 */
export async function pruneAnsweredEvents(engine: Engine, between: () => Promise<boolean> = async () => true): Promise<number> {
  const now = engine.clock.now();
  let removed = 0;
  let after = 0;
  for (;;) {
    const page = await oldestEventsAfter(engine.db, after, PAGE).execute();
    const due: number[] = [];
    let reachedRecent = page.length < PAGE;
    for (const event of page) {
      const answeredAt = event.acked_at === null ? null : Number(event.acked_at);
      if (answeredAt === null || now - answeredAt < KEEP_APPLIED_MS) {
        reachedRecent = true;
        break;
      }
      if (event.verdict === 'applied' || now - answeredAt >= KEEP_REFUSED_MS) due.push(Number(event.node_seq));
      after = Number(event.node_seq);
    }
    if (due.length > 0) {
      const result = await engine.db.deleteFrom('sync_events').where('node_seq', 'in', due).executeTakeFirst();
      removed += Number(result.numDeletedRows);
    }
    if (reachedRecent || !(await between())) return removed;
  }
}

/** The outbox from just after `after`, oldest first (a range of its primary key). Exported for the plan test. */
export const oldestEventsAfter = (db: Kysely<DB>, after: number, limit: number) =>
  db.selectFrom('sync_events').select(['node_seq', 'acked_at', 'verdict']).where('node_seq', '>', after).orderBy('node_seq').limit(limit);
