import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import type { Engine } from '../../src/core/engine';
import { expirePoints } from '../../src/core/expiry/expire-points';
import { updateProgramSettings } from '../../src/core/rules/settings/update-program-settings';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';
import { eventually } from '../support/eventually';

// A central node and a store node paired over HTTP, the store's computer 3 years behind (a PC
// whose CMOS battery died). Found in the tenth round: the store dated its sale and its points'
// expiry by that clock, so central's hourly expiry took points earned a minute before. Once
// central has answered, the store dates by central's time; its badge still says how far off the
// computer is.

const DAY = 86_400_000;
const BEHIND = 3 * 365 * DAY;
const dirs = [makeTempDir('punchcard-clock-central-'), makeTempDir('punchcard-clock-store-')];
let central: RunningNode;
let store: RunningNode;
let chain: VendorCredentials;
/** The store node's log lines, parsed. */
const logged: Array<{ level: number; msg: string; clock_offset_seconds?: number }> = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line) as (typeof logged)[number]);
      done();
    },
  }),
);

async function orderDates(engine: Engine, receipt: string) {
  const order = await engine.db.selectFrom('orders').select(['ordered_at', 'created_at', 'user_id']).where('receipt_number', '=', receipt).executeTakeFirstOrThrow();
  const lot = await engine.db
    .selectFrom('ledger_entries as e')
    .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
    .select(['e.created_at', 'e.expires_at', 'e.amount'])
    .where('a.holder_type', '=', 'user')
    .where('a.holder_id', '=', order.user_id)
    .where('e.expires_at', 'is not', null)
    .executeTakeFirstOrThrow();
  return { orderedAt: Number(order.ordered_at), createdAt: Number(order.created_at), lotAt: Number(lot.created_at), expiresAt: Number(lot.expires_at), points: Number(lot.amount), userId: Number(order.user_id) };
}

beforeAll(async () => {
  central = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0 });
  chain = await setUpVendor(central.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
  await updateProgramSettings(central.engine, await authenticateApiKey(central.engine, chain.apiKey), { pointsExpiryDays: 30 });
  const { code } = await issuePairingCode(central.engine, chain.vendorId, chain.storeId);
  await pairStoreWithCentral({ dataDir: dirs[1]!.path, central: central.url, code });
  store = await startStoreNode({ dataDir: dirs[1]!.path, port: 0, clock: { now: () => Date.now() - BEHIND }, logger });
}, 60_000);

afterAll(async () => {
  await store?.close();
  await central?.close();
  for (const dir of dirs) dir.remove();
});

describe('a paired store whose computer is 3 years behind', () => {
  it('dates a sale made after central answered by central’s time, at the store and at central; central’s expiry leaves its points', async () => {
    const status = await eventually('central’s answer and the first sync', async () => {
      const s = (await http(`${store.url}/sync/status`)).body;
      return s.first_sync?.done && s.clock_offset_seconds !== null ? s : undefined;
    });
    // The badge, health and log go on telling the computer's own offset.
    expect(Math.abs(status.clock_offset_seconds + BEHIND / 1000)).toBeLessThan(5);
    const warning = await eventually('the clock warning', async () => logged.find((line) => line.msg.startsWith("this computer's clock is off from central's")));
    expect(warning.msg).toContain("the store dates what it sells by central's time");
    expect(Math.abs(warning.clock_offset_seconds! + BEHIND / 1000)).toBeLessThan(5);

    const before = Date.now();
    const registered = await http(`${store.url}/onscreen/register?api_key=${chain.apiKey}`, { method: 'POST', body: { email: 'cmos@example.com' } });
    expect(registered.status, JSON.stringify(registered.body)).toBeLessThan(300);
    const sold = await http(`${store.url}/order?api_key=${chain.apiKey}`, { method: 'POST', body: { card_number: 'cmos@example.com', receipt_number: 'R-1', subtotal: 30 } });
    expect(sold.status, JSON.stringify(sold.body)).toBe(200);
    const after = Date.now();
    await eventually('the sale at central', async () => ((await http(`${store.url}/sync/status`)).body.pending === 0 ? true : undefined));

    for (const engine of [store.engine, central.engine]) {
      const dates = await orderDates(engine, 'R-1');
      for (const at of [dates.orderedAt, dates.createdAt, dates.lotAt]) {
        expect.soft(at).toBeGreaterThanOrEqual(before - 3_000);
        expect.soft(at).toBeLessThanOrEqual(after + 3_000);
      }
      expect.soft(dates.expiresAt).toBeGreaterThanOrEqual(before - 3_000 + 30 * DAY);
      expect.soft(dates.expiresAt).toBeLessThanOrEqual(after + 3_000 + 30 * DAY);
      expect(dates.points).toBe(30);
    }

    // Central's expiry job (hourly) finds nothing due: the customer keeps the 30 points.
    const expired = await expirePoints(central.engine);
    expect([expired.accounts, expired.points]).toEqual([0, 0]);
    const { userId } = await orderDates(central.engine, 'R-1');
    const account = await central.engine.db.selectFrom('ledger_accounts').select('balance').where('holder_type', '=', 'user').where('holder_id', '=', userId).executeTakeFirstOrThrow();
    expect(Number(account.balance)).toBe(30);
  }, 90_000);

  it('restarted while central is out of reach, dates a sale from its last sync’s time on, not 3 years back, and says why', async () => {
    const lastPull = Date.parse(String((await http(`${store.url}/sync/status`)).body.last_pull_at));
    expect(Number.isFinite(lastPull)).toBe(true);
    await central.close();
    await store.close();
    logged.length = 0;
    store = await startStoreNode({ dataDir: dirs[1]!.path, port: 0, clock: { now: () => Date.now() - BEHIND }, logger });
    const warning = logged.find((line) => line.msg.startsWith("this computer's clock is behind the store's last sync"));
    expect(warning, JSON.stringify(logged)).toBeDefined();

    const sold = await http(`${store.url}/order?api_key=${chain.apiKey}`, { method: 'POST', body: { card_number: 'cmos@example.com', receipt_number: 'R-2', subtotal: 10 } });
    expect(sold.status, JSON.stringify(sold.body)).toBe(200);
    const dates = await orderDates(store.engine, 'R-2');
    // From the last sync on (the store was down a moment): not the computer's 3 years back.
    expect(dates.orderedAt).toBeGreaterThanOrEqual(lastPull);
    // The last sync's time was central's as the store measured it (within the round trip's error, as
    // the first case allows): a resumed clock may be that much ahead of this machine's.
    expect(dates.orderedAt).toBeLessThanOrEqual(Date.now() + 3_000);
  }, 60_000);
});
