import type { Kysely } from 'kysely';
import type { DB } from '../../storage/schema';

/**
 * Runs `write` in the caller's transaction with this node's change capture quiet: what it writes is
 * not news to send (central's rows applied on a store, rows moved to new ids, purged barcodes). The
 * capture triggers read the switch (install-capture.ts). A throw needs no reset: it ends the
 * transaction, or the command's savepoint, and the switch rolls back with the writes.
 */
export async function withCaptureQuiet<T>(trx: Kysely<DB>, write: () => Promise<T>): Promise<T> {
  await trx.updateTable('sync_apply_mode').set({ active: 1 }).execute();
  const result = await write();
  await trx.updateTable('sync_apply_mode').set({ active: 0 }).execute();
  return result;
}
