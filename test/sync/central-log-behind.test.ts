import { afterEach, describe, expect, it } from 'vitest';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { getMeta, setMeta } from '../../src/core/storage/node-meta';
import { logHead } from '../../src/core/sync/central/read-snapshot';
import { ManualClock } from '../support/clock';
import { pairStore, startCentral } from './support/chain';

// Central restored from an older backup (pg_dump) while a store had read its log further: the store's
// cursor is past the log's end, and the seqs it read will be given again to other changes, which
// the store would skip for good (customers registered at central then "not found" at the store,
// with the link shown up). Central refuses such a pull in words; the store's status says so.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

describe('a store whose cursor is past the end of central’s log', () => {
  it('is refused with sync_log_behind, and its status says central was restored from an older backup', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    open.push(central);
    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (credential) => central.transportFor(credential));
    open.push(store);
    await registerInStore(store.engine, await store.scope(), { email: 'before.restore@example.com' });
    await store.client.syncOnce();
    const head = await logHead(central.engine.db);
    expect(Number(await getMeta(store.engine.db, 'sync_cursor'))).toBe(head);

    // What the store read of the log central no longer has.
    await setMeta(store.engine.db, 'sync_cursor', String(head + 93));
    await expect(store.client.syncOnce()).rejects.toThrow(/restored from an older backup/);
    const status = await store.client.status();
    expect(status.link).toBe('down');
    expect(status.lastError).toMatch(/read central's change log to \d+, but it ends at \d+/);
    expect(Number(await getMeta(store.engine.db, 'sync_cursor'))).toBe(head + 93);
  });
});
