import type { Kysely } from 'kysely';
import { type Engine, transact } from '../engine';
import type { DB } from '../storage/schema';
import { withCaptureQuiet } from '../sync/capture/capture-quiet';

/**
 * How long an app barcode is kept after it expired. Check-in answers an expired code exactly as an
 * unknown one (customer_not_found, "not valid or has expired": onscreen/identify-customer.ts), so
 * the counter never notices the purge; the day keeps the codes drawn lately for whoever looks into
 * a refused scan, and a token is never near its expiry when it goes, whatever the node's clock.
 */
export const BARCODE_TOKEN_GRACE_MS = 24 * 3600_000;

/** Rows deleted per transaction: SQLite's statements hold the event loop, so requests go in between. */
export const PURGE_BATCH = 1_000;

/**
 * Deletes the app barcodes that expired more than BARCODE_TOKEN_GRACE_MS ago (by this node's
 * clock), PURGE_BATCH at a time; `between` runs after each full batch (the hourly job lets requests
 * in there), false stops. Returns how many went.
 *
 * Every node purges its own copies by this rule, so the deletes are no news to anyone: they are not
 * captured (central's stores purge theirs themselves; a store pushes no barcodes anyway). A delete
 * per barcode in central's log would be pulled by every store of the program and kept after
 * compaction (each row's newest change stays): the first run alone would log every barcode ever
 * drawn once more. Central's log forgets the purged barcodes' versions instead (forgetLoggedVersions).
 * Revoking barcodes (customers/sessions.ts) is an ordinary write and still travels.
 */
export async function purgeExpiredBarcodeTokens(engine: Engine, between: () => Promise<boolean> = async () => true): Promise<number> {
  const cutoff = engine.clock.now() - BARCODE_TOKEN_GRACE_MS;
  let removed = 0;
  for (;;) {
    const deleted = await transact(engine, async (trx) => {
      const ids = (await expiredBarcodeTokensQuery(trx, cutoff, PURGE_BATCH).execute()).map((r) => r.id);
      if (ids.length === 0) return 0;
      // Capture quiet for this statement only, as a store applying central's rows does.
      await withCaptureQuiet(trx, () => trx.deleteFrom('barcode_tokens').where('id', 'in', ids).execute());
      await forgetLoggedVersions(trx, ids);
      return ids.length;
    });
    removed += deleted;
    if (deleted < PURGE_BATCH || !(await between())) return removed;
  }
}

/**
 * Central's log kept each purged barcode's versions for ever (compaction keeps a row's first and
 * newest), one per barcode an app ever drew, replayed to every store pairing later. A barcode a day
 * past its expiry is no use to any store, and nothing points at one, so its versions go with it; a
 * store that has not read them yet never needs them. The log's head stays whatever it is (seqs
 * must never be reused: a store's cursor may be past it). A store's own log never holds barcodes.
 */
async function forgetLoggedVersions(trx: Kysely<DB>, ids: number[]): Promise<void> {
  await trx
    .deleteFrom('sync_changes')
    .where('tbl', '=', 'barcode_tokens')
    .where('row_id', 'in', ids)
    .where('seq', '<', (eb) => eb.selectFrom('sync_changes').select((m) => m.fn.max('seq').as('head')))
    .execute();
}

/** Up to `limit` barcodes that expired before `cutoff` (a range of barcode_tokens_expiry). Exported for the plan test. */
export const expiredBarcodeTokensQuery = (db: Kysely<DB>, cutoff: number, limit: number) =>
  db.selectFrom('barcode_tokens').select('id').where('expires_at', '<', cutoff).limit(limit);
