import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { checkNodeHealth } from '../../src/core/chain-health/node-health';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { openSqlite } from '../../src/core/storage/database';
import { summariseOutbox } from '../../src/core/sync/outbox/pending-events';
import { ManualClock } from '../support/clock';
import { fillDisk, mountSmallDisk } from '../support/small-disk';
import { pairStore, startCentral } from './support/chain';

// A paired store whose own disk fills (its SQLite file on a real, tiny file system: a tmpfs, so
// root; CI runs as root): its push reaches central, then recording central's verdicts fails with
// SQLITE_FULL. That is the store's disk, not the link: the link stays up, the sync status says the
// disk is full (it said "database or disk is full" with the link down, and the node's log "the
// store sells offline meanwhile"), /health says disk_full before any sale is tried, and once space
// is freed the next round sends the outbox — central keeps each sale once.

const disk = mountSmallDisk('h-sync-disk-', 'size=8m');
const mountPoint = disk.path;

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  disk.remove();
});

describe.runIf(disk.mounted)('a paired store on a disk that fills up (root: a tmpfs)', () => {
  it('keeps its link up, says its disk is full, and sends its outbox once there is room', async () => {
    const clock = new ManualClock();
    const central = await startCentral(clock);
    closers.push(() => central.close());
    const store = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, (credential) => central.transportFor(credential), openSqlite(`${mountPoint}/punchcard.db`));
    closers.push(() => store.close());
    await registerInStore(store.engine, await store.scope(), { email: 'gil@example.com', firstName: 'Gil' });
    for (let i = 1; i <= 3; i += 1) await placeOrder(store.engine, await store.scope(), { identification: 'gil@example.com', receiptNumber: `R-${i}`, subtotal: 10 });
    expect((await summariseOutbox(store.engine.db)).pending).toBe(4);

    const filler = `${mountPoint}/filler`;
    fillDisk(filler);
    await expect(store.client.syncOnce()).rejects.toMatchObject({ code: expect.stringMatching(/^SQLITE_FULL/) });
    expect(store.engine.centralLink.reachable).toBe(true);
    expect(store.client.lastError).toMatch(/^this store cannot write its own database \(SQLITE_FULL\): the disk holding the database is full/);
    expect((await store.client.status()).link).toBe('up');
    const health = await checkNodeHealth(store.engine, { dataDir: mountPoint, syncStatus: () => store.client.status(), startedAt: clock.now() });
    expect(health.database).toMatchObject({ status: 'unavailable', writable: false, problem: 'disk_full' });
    expect(health.sync).toMatchObject({ link: 'up', pending: 4 });

    rmSync(filler);
    await store.client.syncOnce();
    expect(store.client.lastError).toBeNull();
    expect((await summariseOutbox(store.engine.db)).pending).toBe(0);
    const atCentral = await central.engine.db.selectFrom('orders').select('receipt_number').orderBy('receipt_number').execute();
    expect(atCentral.map((row) => row.receipt_number)).toEqual(['R-1', 'R-2', 'R-3']);
  }, 60_000);
});
