// Scan-to-panel latency: a card read by the store node's scanner (a scripted source, exactly where a
// HID scanner's reports arrive) until the cashier screen in Chromium shows that customer in its panel.
// Self-contained: builds the renderer if needed, starts a store node in-process (the engine, HTTP
// app and scanner service of `punchcard store`, real clock, rate limits raised for the seeding), seeds
// customers with loyalty cards over HTTP, drives Debian's Chromium.
// Prints one JSON document. `npm run bench` runs it as part of bench/run.ts.
//
// Each scan: the page arms a MutationObserver for the customer's name in the panel, the node's
// scanner reads the card (t0, Date.now() in this process), and the page notes Date.now() in the
// first animation frame after the name is in the panel (the frame that shows it). Between scans the
// session is closed over HTTP and the screen is left with no open session, so the next scan brings
// its customer up by itself (the cashier auto-selects a newly opened session when the panel is free).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { startEngine } from '../src/core/engine';
import { openSqlite } from '../src/core/storage/database';
import { setUpVendor } from '../src/core/tenancy/set-up-vendor';
import { ScriptedScanSource } from '../src/devices/scan-source';
import { buildApp } from '../src/server/app';
import { createNodeScanners } from '../src/server/node/node-scanners';
import type { ScanOutcome } from '../src/server/node/scanners';
import { launchChromium } from '../test/support/browser';
import { ROOMY_RATE_LIMITS } from '../test/support/customers';
import { builtRendererForTests } from '../test/support/e2e-renderer';
import { makeTempDir } from '../test/support/temp-dir';
import { benchLogger } from './request-log';

const SCANS = Number(process.env.BENCH_SCANS ?? 50);
const WARM_UP = 3;
const GOAL_MS = 150;

interface Customer {
  name: string;
  card: string;
}

async function post(url: string, body: unknown, token?: string): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Sets window.__panelShown: Date.now() in the frame after the panel's customer name becomes NAME. */
const ARM_OBSERVER = `
  window.__panelShown = new Promise((resolve) => {
    const name = NAME;
    const shown = () => document.querySelector('[data-testid="customer-panel"] [data-testid="customer-name"]')?.textContent === name;
    const done = () => requestAnimationFrame(() => resolve(Date.now()));
    if (shown()) return done();
    const observer = new MutationObserver(() => {
      if (!shown()) return;
      observer.disconnect();
      done();
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  undefined;
`;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (n: number) => Math.round(n * 10) / 10;

function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    min_ms: round(sorted[0]!),
    max_ms: round(sorted[sorted.length - 1]!),
    mean_ms: round(values.reduce((a, b) => a + b, 0) / values.length),
  };
}

const started = performance.now();
const buildStart = performance.now();
const rendererDir = builtRendererForTests();
const buildMs = Math.round(performance.now() - buildStart);

const dir = makeTempDir('punchcard-bench-scan-');
const scanner = new ScriptedScanSource('bench-scanner');
const engine = await startEngine({ database: openSqlite(`${dir.path}/store.db`), nodeKey: randomBytes(32), role: 'store' });
const scanners = createNodeScanners(engine, { sources: [scanner] })!;
// Rate limits far above the seeding's registrations, logins and card links from one client.
const app = await buildApp({ engine, role: 'store', version: 'bench', rendererDir, scanners, rateLimits: ROOMY_RATE_LIMITS, ...benchLogger(dir.path) });
const node = { url: await app.listen({ port: 0, host: '127.0.0.1' }) };
await scanners.start();
const browser = await launchChromium();
try {
  const vendor = await setUpVendor(engine, { name: 'Bench Café', currency: 'USD', country: 'US', store: { name: 'Bench Store', address1: '1 Bench St', city: 'Bench' } });
  const cashierKey = encodeURIComponent(vendor.apiKey);

  // Customers as a store has them: registered, with a loyalty card issued by the vendor and linked.
  const seedStart = performance.now();
  const customers: Customer[] = [];
  const seedOne = async (i: number): Promise<Customer> => {
    const email = `scan${i}@bench.example`;
    const card = `BENCH${String(i).padStart(4, '0')}`;
    const lastName = `Scanner${String(i).padStart(2, '0')}`;
    await post(`${node.url}/user/register`, { first_name: 'Bench', last_name: lastName, email_address: email, password: 'bench password', terms: true, vendor: vendor.vendorId });
    const login = await post(`${node.url}/user/authenticate`, { email_address: email, password: 'bench password', vendor: vendor.vendorId });
    await post(`${node.url}/cards`, { number: card }, vendor.accessToken);
    await post(`${node.url}/user/card/add?session_key=${encodeURIComponent(login.session_identifier)}`, { number: card });
    return { name: `Bench ${lastName}`, card };
  };
  const total = WARM_UP + SCANS;
  for (let i = 0; i < total; i += 4) {
    customers.push(...(await Promise.all(Array.from({ length: Math.min(4, total - i) }, (_, k) => seedOne(i + k)))));
  }
  const seedMs = Math.round(performance.now() - seedStart);

  const outcomes: Array<ScanOutcome & { at: number }> = [];
  scanners.on('check-in', (outcome: ScanOutcome) => outcomes.push({ ...outcome, at: Date.now() }));

  // The cashier screen, signed in with the store's cashier key at the browser login step.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(node.url);
  await page.getByLabel('Store key').fill(vendor.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('queue-empty').waitFor({ timeout: 15_000 });
  await page.getByText('Live', { exact: true }).waitFor({ timeout: 15_000 });

  const totals: number[] = [];
  const nodeSide: number[] = [];
  for (let i = 0; i < customers.length; i++) {
    const customer = customers[i]!;
    // Arm the observer first: it resolves with Date.now() in the frame that shows the name.
    // A string, not a function: tsx's helpers (__name) do not exist in the page.
    await page.evaluate(ARM_OBSERVER.replace('NAME', JSON.stringify(customer.name)));

    outcomes.length = 0;
    const t0 = Date.now();
    if (!scanner.scan(customer.card)) throw new Error('the scripted scanner is not running');
    const shownAt = (await page.evaluate('window.__panelShown')) as number;
    const outcome = outcomes[0];
    if (!outcome?.ok) throw new Error(`scan ${i}: ${JSON.stringify(outcome)}`);
    if (i >= WARM_UP) {
      totals.push(shownAt - t0);
      nodeSide.push(outcome.at - t0);
    }

    // Close the session over HTTP; wait until the screen knows (queue empty, panel free).
    const queue = (await (await fetch(`${node.url}/onscreen/queue?api_key=${cashierKey}`)).json()) as Array<{ pos_session: { hash: string } }>;
    for (const entry of queue) {
      const reply = await fetch(`${node.url}/onscreen?api_key=${cashierKey}`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pos_session_hash: entry.pos_session.hash }) });
      if (!reply.ok) throw new Error(`close: ${reply.status} ${await reply.text()}`);
    }
    await page.getByTestId('queue-empty').waitFor({ timeout: 10_000 });
    await page.getByTestId('session-ended').waitFor({ timeout: 10_000 });
  }

  const result = {
    scans: totals.length,
    warm_up_scans: WARM_UP,
    goal_ms: GOAL_MS,
    scan_to_panel: summary(totals),
    scan_to_check_in_on_node: summary(nodeSide),
    meets_goal: summary(totals).p95_ms < GOAL_MS,
    settings: { viewport: '1280x800', browser: (await browser.version()) || 'chromium', renderer_build_ms: buildMs, seed_ms: seedMs, customers: customers.length },
    wall_ms: Math.round(performance.now() - started),
  };
  await context.close();
  console.log(JSON.stringify(result, null, 2));
} finally {
  await browser.close();
  await scanners.stop();
  await app.close();
  await engine.close();
  dir.remove();
}
