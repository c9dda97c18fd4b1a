import { afterEach, describe, expect, it } from 'vitest';
import { RECONNECT_CAP_MS, reconnectDelay } from '../../src/core/sync/store/sync-client';
import { getMeta } from '../../src/core/storage/node-meta';
import { ManualClock } from '../support/clock';
import { pairStoreBehindSwitch, startCentral, type StoreHandle, type Switch } from './support/chain';

// How soon a store notices central is back (docs/sync.md, "Link and status"): the loop's pauses
// are recorded, not waited out.

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

async function storeWithSwitch(): Promise<StoreHandle & { link: Switch }> {
  const clock = new ManualClock();
  const central = await startCentral(clock);
  open.push(central);
  const store = await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
  open.push(store);
  return store;
}

describe('reconnecting to central', () => {
  it('pauses between failed rounds double from 0.5–1 s up to 8 s, never less than half a step', () => {
    const lowest = Array.from({ length: 12 }, (_, i) => reconnectDelay(i + 1, () => 0));
    const highest = Array.from({ length: 12 }, (_, i) => reconnectDelay(i + 1, () => 1));
    expect(lowest).toEqual([500, 1_000, 2_000, 4_000, 4_000, 4_000, 4_000, 4_000, 4_000, 4_000, 4_000, 4_000]);
    expect(highest).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000]);
    expect(RECONNECT_CAP_MS).toBe(8_000);
  });

  it('while central is down the loop retries at most 8 s apart, and the first round after it returns brings the link up', async () => {
    const store = await storeWithSwitch();
    store.link.down = true;
    const delays: number[] = [];
    const failedRounds = 12;
    let rounds = 0;
    let done: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const links: string[] = [];
    store.client.start({
      idleMs: 5_000,
      random: () => 0.5,
      schedule: (resume, ms) => {
        rounds += 1;
        delays.push(ms);
        links.push(store.engine.centralLink.reachable ? 'up' : 'down');
        // Central returns while the store waits after its 12th failed round.
        if (rounds === failedRounds) store.link.down = false;
        if (rounds === failedRounds + 1) done();
        else setImmediate(resume);
        return () => undefined;
      },
    });
    await finished;
    await store.client.stop();
    expect(links).toEqual([...Array<string>(failedRounds).fill('down'), 'up']);
    expect(Math.max(...delays.slice(0, failedRounds))).toBe(6_000);
    expect(delays.slice(0, 4)).toEqual([750, 1_500, 3_000, 6_000]);
    // Up again: the next round after the idle interval, and the status the CLI reads says so.
    expect(delays[failedRounds]).toBe(5_000);
    expect(store.client.lastError).toBeNull();
    expect(JSON.parse((await getMeta(store.engine.db, 'sync_link'))!)).toEqual(['up', null]);
  });

  it('a poke during the pause (the poke stream reconnected) runs a round at once', async () => {
    const store = await storeWithSwitch();
    store.link.down = true;
    let cancelled = 0;
    let rounds = 0;
    let paused: () => void = () => undefined;
    let pausedAgain = new Promise<void>((resolve) => (paused = resolve));
    store.client.start({
      schedule: () => {
        rounds += 1;
        paused();
        // Never resumes by itself: only the poke ends this pause.
        return () => (cancelled += 1);
      },
    });
    await pausedAgain;
    expect([rounds, store.engine.centralLink.reachable]).toEqual([1, false]);
    expect(JSON.parse((await getMeta(store.engine.db, 'sync_link'))!)).toEqual(['down', 'down']);
    store.link.down = false;
    pausedAgain = new Promise<void>((resolve) => (paused = resolve));
    store.client.poke();
    await pausedAgain;
    expect([rounds, cancelled, store.engine.centralLink.reachable]).toEqual([2, 1, true]);
    await store.client.stop();
  });
});
