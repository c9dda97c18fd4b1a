import { expect } from 'vitest';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ScriptedScanSource } from '../../src/devices/scan-source';
import type { ScanOutcome } from '../../src/server/node/scanners';
import { ROOMY_RATE_LIMITS } from './customers';
import { builtRendererForTests } from './e2e-renderer';
import { inStoreApi } from './in-store';
import { http, startTestNode, type TestNode } from './test-node';

// The store behind the end-to-end tests: a real headless node serving the built renderer at `/`,
// reading a scripted scanner (what a HID scanner on the node would read), with one vendor and
// customers seeded over the node's own HTTP interface (registration, cards) and balances posted to
// the ledger (a quick-pay load and earlier points, as the in-store API tests do).

export const STORE_NAME = 'Market Street';
export const VENDOR_NAME = 'Corner Café';
export const SCANNER_ID = 'counter-scanner';

export interface E2eStore {
  node: TestNode;
  vendor: VendorCredentials;
  /** The node's scripted scanner: `scanner.scan(card)` is a card held under the counter's scanner. */
  scanner: ScriptedScanSource;
  /** Scans `value` on the node's scanner (or `on`, another of its scanners) and waits until the node has checked it in (or refused it). */
  scan(value: string, on?: ScriptedScanSource): Promise<ScanOutcome>;
  close(): Promise<void>;
}

/**
 * Starts the node (renderer built from the current sources, scripted scanner, and `extraScanners`
 * when a test needs several) and sets up the vendor.
 */
export async function startE2eStore(options: { extraScanners?: readonly ScriptedScanSource[] } = {}): Promise<E2eStore> {
  const scanner = new ScriptedScanSource(SCANNER_ID);
  const sources = [scanner, ...(options.extraScanners ?? [])];
  const node = await startTestNode({ rendererDir: builtRendererForTests(), scanners: { sources }, rateLimits: ROOMY_RATE_LIMITS });
  const vendor = await setUpVendor(node.engine, {
    name: VENDOR_NAME,
    currency: 'USD',
    country: 'US',
    store: { name: STORE_NAME, address1: '12 Market Street', city: 'Springfield' },
  });
  const outcomes: ScanOutcome[] = [];
  node.scanners!.on('check-in', (outcome: ScanOutcome) => outcomes.push(outcome));
  return {
    node,
    vendor,
    scanner,
    async scan(value, on = scanner) {
      outcomes.length = 0;
      expect(on.scan(value), 'the scripted scanner is running').toBe(true);
      const deadline = Date.now() + 10_000;
      while (outcomes.length === 0) {
        if (Date.now() > deadline) throw new Error(`the node never checked in the scan of ${value}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return outcomes.shift()!;
    },
    close: () => node.close(),
  };
}

export interface SeededCustomer {
  firstName: string;
  lastName: string;
  /** "First Last", as the queue and the panel name them. */
  name: string;
  email: string;
  /** The loyalty card number linked to the account (what a scan reads). */
  card: string;
  userId: number;
  /** Loyalty points posted at seeding. */
  points: number;
  /** Quick-pay balance posted at seeding, in cents. */
  quickPayCents: number;
}

const PASSWORD = 'e2e password 1';

/**
 * A customer of the vendor: registered (POST /user/register), with a loyalty card issued by the
 * vendor (POST /cards) and linked by the customer (POST /user/card/add), and balances.
 */
export async function seedCustomer(
  store: E2eStore,
  customer: { firstName: string; lastName: string; card: string; points?: number; quickPayCents?: number },
): Promise<SeededCustomer> {
  const { node, vendor } = store;
  const email = `${customer.firstName}.${customer.lastName}@example.com`
    .normalize('NFD')
    .toLowerCase()
    .replace(/[^a-z0-9.@]/g, '');
  const registered = await http(`${node.url}/user/register`, {
    method: 'POST',
    body: { first_name: customer.firstName, last_name: customer.lastName, email_address: email, password: PASSWORD, terms: true, vendor: vendor.vendorId },
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  const login = await http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: email, password: PASSWORD, vendor: vendor.vendorId } });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  const issued = await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number: customer.card } });
  expect(issued.status, JSON.stringify(issued.body)).toBe(201);
  const linked = await http(`${node.url}/user/card/add?session_key=${encodeURIComponent(login.body.session_identifier)}`, { method: 'POST', body: { number: customer.card } });
  expect(linked.status, JSON.stringify(linked.body)).toBe(200);
  const userId = Number(registered.body.id);
  const points = customer.points ?? 0;
  const quickPayCents = customer.quickPayCents ?? 0;
  const { credit } = inStoreApi(() => node);
  if (points) await credit(vendor, vendor.loyaltyCurrencyId, userId, points);
  if (quickPayCents) await credit(vendor, vendor.quickPayCurrencyId, userId, quickPayCents);
  return { firstName: customer.firstName, lastName: customer.lastName, name: `${customer.firstName} ${customer.lastName}`, email, card: customer.card, userId, points, quickPayCents };
}

/** The store's queue over HTTP: the names of who is checked in, oldest first. */
export async function queueNames(store: E2eStore): Promise<string[]> {
  const reply = await http(`${store.node.url}/onscreen/queue?api_key=${encodeURIComponent(store.vendor.apiKey)}`);
  expect(reply.status).toBe(200);
  return (reply.body as any[]).map((e) => `${e.pos_session.user.first_name} ${e.pos_session.user.last_name}`);
}

/** Closes every open session of the store over HTTP (a clean queue between tests). */
export async function closeAllSessions(store: E2eStore): Promise<void> {
  const { node, vendor } = store;
  const queue = await http(`${node.url}/onscreen/queue?api_key=${encodeURIComponent(vendor.apiKey)}`);
  for (const entry of queue.body as any[]) {
    const closed = await http(`${node.url}/onscreen?api_key=${encodeURIComponent(vendor.apiKey)}`, { method: 'DELETE', body: { pos_session_hash: entry.pos_session.hash } });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
  }
}

/** The customer's balances as the node keeps them: points, and quick pay in cents. */
export async function balancesOf(store: E2eStore, customer: SeededCustomer): Promise<{ points: number; quickPayCents: number }> {
  const { balanceOf } = inStoreApi(() => store.node);
  return { points: await balanceOf(store.vendor.loyaltyCurrencyId, customer.userId), quickPayCents: await balanceOf(store.vendor.quickPayCurrencyId, customer.userId) };
}
