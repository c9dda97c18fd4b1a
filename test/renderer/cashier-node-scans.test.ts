import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNodeScanSetting, mayOpenPanel } from '../../src/renderer/src/cashier/node-scan-setting';
import type { StoreEventMessage } from '../../src/renderer/src/events/event-stream';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ScriptedScanSource } from '../../src/devices/scan-source';
import type { ScanOutcome } from '../../src/server/node/scanners';
import { cashierScreen, queued, settle } from '../support/cashier-screen';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { eventStreams } from '../support/event-stream';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Several counters of one store, each with its own cashier screen, all hear the scans of the node's
// scanners: a screen whose "the node's scans open the customer here" setting is off leaves their
// customers in its queue, while its own check-ins (typed, or a wedge line it posted) still open the
// panel. Real node with scripted scanners (one at the counter, one at the kiosk), real event stream.

const COUNTER_SCANNER = 'counter-scanner';
const KIOSK_SCANNER = 'door-scanner';

let node: TestNode;
let v: VendorCredentials;
const counterScanner = new ScriptedScanSource(COUNTER_SCANNER);
const doorScanner = new ScriptedScanSource(KIOSK_SCANNER);
const outcomes: ScanOutcome[] = [];
const { events, closeAll } = eventStreams(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS, scanners: { sources: [counterScanner, doorScanner] } });
  // The node's scanners check in at its first (here only) store.
  v = await node.addVendor();
  node.scanners!.on('check-in', (outcome: ScanOutcome) => outcomes.push(outcome));
  const reply = await http(`${node.url}/app/scanners?api_key=${encodeURIComponent(v.apiKey)}`);
  const door = (reply.body.scanners as Array<{ id: string; name: string }>).find((s) => s.name === KIOSK_SCANNER)!;
  const assigned = await http(`${node.url}/app/scanners/station?api_key=${encodeURIComponent(v.apiKey)}`, { method: 'PUT', body: { scanner: door.id, station: 'kiosk' } });
  expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
});

afterAll(async () => {
  await node?.close();
});

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  closeAll();
});

/** A cashier screen of the store, fed by its real event stream, with this screen's setting. */
const screen = (nodeScansOpenHere: boolean) => cashierScreen(node, v.apiKey, events, stops, { nodeScansOpenHere });

/** Scans `value` on a node scanner and waits until the node has checked it in. */
async function scanAtNode(value: string, on: ScriptedScanSource): Promise<number> {
  outcomes.length = 0;
  expect(on.scan(value)).toBe(true);
  await vi.waitFor(() => expect(outcomes).toHaveLength(1), { timeout: 10_000 });
  const outcome = outcomes[0]!;
  if (!outcome.ok) throw new Error(`the node refused the scan: ${outcome.code}`);
  return outcome.sessionId;
}

describe('the node’s scans on a screen that leaves them to another counter', () => {
  it('a counter scan opens the panel on the screen that takes them and only queues on the other', async () => {
    const here = await screen(true);
    const away = await screen(false);
    const ana = await signUpAt(node, v.vendorId, { first_name: 'Ana', last_name: 'López' });

    const session = await scanAtNode(ana.email, counterScanner);

    await vi.waitFor(() => expect(here.cashier.customer.getState().sessionId).toBe(session), { timeout: 5_000 });
    await vi.waitFor(() => expect(queued(away.cashier)).toContain(session));
    await settle();
    expect(away.cashier.customer.getState().hash).toBeNull();
    expect(queued(away.cashier)).toEqual(queued(here.cashier));
  });

  it('a kiosk-station scan only queues there, and someone waiting scanned again at the counter stays in the queue', async () => {
    const here = await screen(true);
    const away = await screen(false);
    const ben = await signUpAt(node, v.vendorId, { first_name: 'Ben', last_name: 'Okafor' });

    const session = await scanAtNode(ben.email, doorScanner);
    // The screen that takes the node's scans opens a free panel for a kiosk scan too (as documented).
    await vi.waitFor(() => expect(here.cashier.customer.getState().sessionId).toBe(session), { timeout: 5_000 });
    await vi.waitFor(() => expect(queued(away.cashier)).toContain(session));
    await settle();
    expect(away.cashier.customer.getState().hash).toBeNull();

    // Ben at the counter's node scanner now (session.updated by the scanner): still not opened here.
    expect(await scanAtNode(ben.email, counterScanner)).toBe(session);
    await settle();
    expect(away.cashier.customer.getState().hash).toBeNull();
  });

  it('a check-in typed at the screen, or a wedge line it posted, still opens its panel', async () => {
    const away = await screen(false);
    const cleo = await signUpAt(node, v.vendorId, { first_name: 'Cleo', last_name: 'Ng' });
    const dev = await signUpAt(node, v.vendorId, { first_name: 'Dev', last_name: 'Rao' });

    // A wedge line posted by the screen (POST /app/scans): no openSession call, the event opens it.
    await away.api.scan(cleo.email);
    await vi.waitFor(() => expect(away.cashier.customer.getState().customer?.user.first_name).toBe('Cleo'), { timeout: 5_000 });
    expect(await away.cashier.customer.getState().closeSession()).toBe(true);

    const typed = await away.api.checkIn(dev.email);
    await vi.waitFor(() => expect(away.cashier.customer.getState().hash).toBe(typed.pos_session.hash), { timeout: 5_000 });
  });
});

describe('node scan setting', () => {
  const event = (by?: string, station?: 'counter' | 'kiosk'): Pick<StoreEventMessage, 'by' | 'station'> => ({ ...(by ? { by } : {}), ...(station ? { station } : {}) });

  it('keeps a node scanner’s check-ins (any station) out of the panel when off, and nothing else', () => {
    for (const scan of [event('scanner'), event('scanner', 'counter'), event('scanner', 'kiosk')]) {
      expect(mayOpenPanel(scan, true, 'here')).toBe(true);
      expect(mayOpenPanel(scan, false, 'here')).toBe(false);
    }
    for (const own of [event('cashier'), event('integration'), event('kiosk'), event('app'), event()]) expect(mayOpenPanel(own, false, 'here')).toBe(true);
  });

  it('opens a check-in a counter’s screen made only on that screen, and a kiosk screen’s on any', () => {
    expect(mayOpenPanel({ by: 'cashier', screen: 'here' }, true, 'here')).toBe(true);
    expect(mayOpenPanel({ by: 'cashier', screen: 'there' }, true, 'here')).toBe(false);
    expect(mayOpenPanel({ by: 'integration', screen: 'there' }, true, 'here')).toBe(false);
    expect(mayOpenPanel({ by: 'kiosk', screen: 'there' }, false, 'here')).toBe(true);
  });

  it('is on by default and kept in the browser', () => {
    const kept = new Map<string, string>();
    vi.stubGlobal('localStorage', { getItem: (k: string) => kept.get(k) ?? null, setItem: (k: string, value: string) => void kept.set(k, value) });
    try {
      expect(createNodeScanSetting().getState().opensPanel).toBe(true);
      createNodeScanSetting().getState().setOpensPanel(false);
      expect(createNodeScanSetting().getState().opensPanel).toBe(false);
      createNodeScanSetting().getState().setOpensPanel(true);
      expect(createNodeScanSetting().getState().opensPanel).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('stays on, and can be turned off for the page, where the browser keeps nothing', () => {
    vi.stubGlobal('localStorage', undefined);
    try {
      const setting = createNodeScanSetting();
      expect(setting.getState().opensPanel).toBe(true);
      setting.getState().setOpensPanel(false);
      expect(setting.getState().opensPanel).toBe(false);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
