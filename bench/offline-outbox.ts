// A store's outbox of offline events for central to apply (bench/sync.ts, bench/apply-replay.ts).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { sql } from 'kysely';
import { type Engine, startEngine } from '../src/core/engine';
import { authenticateApiKey } from '../src/core/credentials/authenticate';
import { registerInStore } from '../src/core/onscreen/register-in-store';
import { checkIn } from '../src/core/onscreen/check-in';
import { closeSession } from '../src/core/onscreen/close-session';
import { placeOrder } from '../src/core/orders/place-order';
import { migrateToLatest, openDatabaseUrl } from '../src/core/storage/database';
import { installChangeCapture } from '../src/core/sync/capture/install-capture';
import { issuePairingCode, pairNode } from '../src/core/sync/central/pairing';
import { setMeta } from '../src/core/storage/node-meta';
import type { setUpVendor } from '../src/core/tenancy/set-up-vendor';

/** Offline orders by identification (one event each), or check-ins each closed by its sale. */
export type Flow = 'orders' | 'check-ins';

/** A store node paired with `central` whose outbox holds `events` offline events, made by the real use cases. */
export async function storeWithOfflineOrders(central: Engine, vendor: Awaited<ReturnType<typeof setUpVendor>>, flow: Flow, events: number, runDir: string): Promise<{ store: Engine; nodeId: number; credential: string }> {
  const { code } = await issuePairingCode(central, vendor.vendorId, vendor.storeId);
  const paired = await pairNode(central, code, 'bench');
  const database = openDatabaseUrl(join(runDir, 'store.db'));
  await migrateToLatest(database.db);
  await setMeta(database.db, 'node_id', String(paired.node_id));
  // Generating the outbox is not what is measured: commits need not reach the disk here.
  await sql`pragma synchronous = off`.execute(database.db);
  const store = await startEngine({ database, nodeKey: randomBytes(32), role: 'store', programRole: 'replica' });
  await installChangeCapture(store.db, store.dialect, 'store');
  // Central's program reaches the store as its first sync would bring it: here, copied directly.
  for (const table of ['vendors', 'stores', 'points_of_sale', 'api_keys', 'currencies', 'earning_rules']) {
    const rows = await central.db.selectFrom(table as 'vendors').selectAll().execute();
    await store.db.updateTable('sync_apply_mode').set({ active: 1 }).execute();
    for (const row of rows) await store.db.insertInto(table as 'vendors').values(row as never).execute();
    await store.db.updateTable('sync_apply_mode').set({ active: 0 }).execute();
  }
  store.centralLink.reachable = false;
  const scope = await authenticateApiKey(store, vendor.apiKey);
  const customers = 200;
  for (let i = 0; i < customers; i += 1) await registerInStore(store, scope, { email: `c${i}@bench.test` });
  if (flow === 'orders') {
    for (let i = 0; i < events - customers; i += 1) {
      await placeOrder(store, scope, { identification: `c${i % customers}@bench.test`, receiptNumber: `R${i}`, subtotal: 5 + (i % 20) });
    }
  } else {
    // Registration left each customer checked in: closed first, as a cashier would.
    for (const { hash } of await store.db.selectFrom('pos_sessions').select('hash').where('status', '=', 'active').execute()) await closeSession(store, scope, hash);
    for (let i = 0; i < (events - 2 * customers) / 2; i += 1) {
      const { session } = await checkIn(store, scope, { identification: `c${i % customers}@bench.test` });
      await placeOrder(store, scope, { sessionHash: session.hash, receiptNumber: `R${i}`, subtotal: 5 + (i % 20) });
    }
  }
  // Its pages reach the disk now, not during the apply that is measured (the kernel would write
  // them back then, beside central's own writes and syncs).
  await sql`pragma synchronous = full`.execute(database.db);
  await sql`pragma wal_checkpoint(truncate)`.execute(database.db);
  return { store, nodeId: paired.node_id, credential: paired.credential };
}
