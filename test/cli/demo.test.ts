import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { freshClone } from '../support/fresh-clone';
import { killLeftovers, launch, type Running, stopWith, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `npm start` on a fresh clone of a machine without the Electron binary or a display (this one, and
// CI): it builds the screens it lacks, falls back to the headless demo node and says why; the demo
// data is created on the first run and reused afterwards.

// Never open a real window from a test: no display on Linux; elsewhere ask for headless outright.
delete process.env.DISPLAY;
delete process.env.WAYLAND_DISPLAY;
const HEADLESS = process.platform === 'linux' ? [] : ['--headless'];
const FIRST_START_MS = 300_000; // the first start builds main, preload and renderer
const dir = makeTempDir('punchcard-demo-');
const clone = makeTempDir('punchcard-clone-');
let START = '';

beforeAll(() => {
  freshClone(clone.path);
  START = join(clone.path, 'scripts', 'start.js');
});
afterEach(killLeftovers);
afterAll(async () => {
  await killLeftovers();
  dir.remove();
  clone.remove();
});

async function startDemo(
  options: { data?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ running: Running; url: string; token: string; cashierKey: string; kioskKey: string; ownerLink: string }> {
  const running = launch([...HEADLESS, '--data', options.data ?? dir.path, '--port', '0'], START, options.env);
  // A start that never printed its banner is stopped politely: start.js then stops the node it started.
  const banner = await waitFor(
    'the demo banner',
    () => {
      const url = /demo store node: (http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())?.[1];
      const token = /admin token\s+(pcat_\S+)/.exec(running.stdout())?.[1];
      const cashierKey = /cashier key\s+(pcak_\S+)/.exec(running.stdout())?.[1];
      const kioskKey = /kiosk key\s+(pcak_\S+)/.exec(running.stdout())?.[1];
      const ownerLink = /back office\s+(http\S+)/.exec(running.stdout())?.[1];
      return url && token && cashierKey && kioskKey && ownerLink ? { url, token, cashierKey, kioskKey, ownerLink } : undefined;
    },
    running,
    options.timeoutMs ?? 60_000, // tsx compiles the node's sources at every start: slow on a busy machine
  ).catch(async (error: unknown) => {
    await stopWith(running, 'SIGTERM');
    throw error;
  });
  return { running, ...banner };
}

describe('npm start on a fresh clone without a desktop', () => {
  it('builds the screens once, says why, starts the demo node, and creates the demo data on the first run only', async () => {
    const first = await startDemo({ timeoutMs: FIRST_START_MS });
    expect(first.running.stdout()).toMatch(/the desktop window can't open: .*(Electron binary|no display|headless)/);
    // It names the folder given, not the default one.
    expect(first.running.stdout()).toContain(`(node bin/punchcard.js demo --data ${dir.path} --port 0)`);
    expect(first.running.stdout()).toContain('building the screens with `electron-vite build` (out/renderer is missing)');
    // `/` serves the screens: Chromium shows the sign-in step, and the cashier key opens the counter.
    const html = await fetch(`${first.url}/`);
    expect(html.status).toBe(200);
    expect(await html.text()).toMatch(/<script type="module" crossorigin src="\.\/assets\/index-[\w-]+\.js">/);
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.goto(first.url);
      await tab.getByLabel('Store key').fill(first.cashierKey);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.getByRole('banner').getByRole('button', { name: 'Settings' }).waitFor();
    } finally {
      await browser.close();
    }
    expect(first.running.stdout()).toMatch(/api_key\s+pcak_/);
    expect(first.running.stdout()).toContain('shown only on this first run');

    // The banner lists what to try; the first of them checks a demo customer in.
    expect(first.running.stdout()).toMatch(/try at the counter or the kiosk:\n\s+card DEMO0001 /);
    const cards = await http(`${first.url}/cards?sort=number&order=ASC&limit=100`, { token: first.token });
    expect(cards.status).toBe(200);
    expect(cards.body.items.slice(0, 3).map((c: { number: string }) => c.number)).toEqual(['DEMO0001', 'DEMO0002', 'DEMO0003']);
    const queue = await http(`${first.url}/onscreen/queue?api_key=${first.cashierKey}`);
    expect(queue.body.length).toBeGreaterThanOrEqual(2);
    const health = await http(`${first.url}/health`);
    expect(health.body).toMatchObject({ status: 'ok', role: 'store', database: 'sqlite' });
    expect((await stopWith(first.running, 'SIGINT')).code).toBe(0);

    const second = await startDemo();
    expect(second.running.stdout()).toContain('Demo data reused');
    expect(second.running.stdout()).not.toContain('building the screens');
    expect(second.running.stdout()).not.toMatch(/api_key\s+pcak_/);
    expect(second.token).not.toBe(first.token);
    // Screen keys are fresh at every start: the new pair signs screens in, the old pair is revoked.
    expect((await http(`${second.url}/app/terminal?api_key=${second.cashierKey}`)).body).toMatchObject({ role: 'cashier', store: { name: expect.any(String) } });
    expect((await http(`${second.url}/app/terminal?api_key=${second.kioskKey}`)).body.role).toBe('kiosk');
    expect((await http(`${second.url}/app/terminal?api_key=${first.cashierKey}`)).status).toBe(401);
    // The back office too: this start's link signs the demo's owner in (once); the last start's no longer does.
    const linkToken = (link: string) => /#\/sign-in-link\?token=(pcsl_\S+)$/.exec(link)?.[1];
    expect(second.ownerLink.startsWith(`${second.url}/admin#/sign-in-link?token=`), second.ownerLink).toBe(true);
    expect((await http(`${second.url}/backoffice/sign-in/link`, { method: 'POST', body: { token: linkToken(first.ownerLink) } })).status).not.toBe(200);
    const owner = await http(`${second.url}/backoffice/sign-in/link`, { method: 'POST', body: { token: linkToken(second.ownerLink) } });
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect((await http(`${second.url}/backoffice/me`, { token: owner.body.token })).body).toMatchObject({ email: 'owner@example.com', role: 'owner' });
    const again = await http(`${second.url}/cards?limit=100`, { token: second.token });
    expect(again.body.items).toHaveLength(cards.body.items.length);
    const currencies = await http(`${second.url}/currencies?sort=name&order=ASC`, { token: second.token });
    expect(currencies.body.items.map((c: { name: string }) => c.name)).toEqual(['Points', 'Quick Pay USD']);
    expect((await stopWith(second.running, 'SIGTERM')).code).toBe(0);
  }, 2 * FIRST_START_MS);

  it('with a display but no way to download Electron, tries once, says why, and starts the headless node', async () => {
    const data = makeTempDir('punchcard-demo-display-');
    try {
      // An unreachable mirror stands in for a machine that cannot reach Electron's downloads.
      const start = await startDemo({
        data: data.path,
        env: { DISPLAY: ':99', ELECTRON_MIRROR: 'http://127.0.0.1:9/', electron_config_cache: data.path },
        timeoutMs: FIRST_START_MS, // when this test runs first, it builds the screens
      });
      const out = start.running.stdout();
      expect(out).toContain('fetching the Electron binary (not downloaded at install)');
      expect(out).toMatch(/the desktop window can't open: the Electron binary could not be fetched: the download failed \(.*ECONNREFUSED.*\)\. Starting the headless store node/);
      expect((await http(`${start.url}/health`)).body.status).toBe('ok');
      expect((await stopWith(start.running, 'SIGTERM')).code).toBe(0);
    } finally {
      data.remove();
    }
  }, 2 * FIRST_START_MS);
});
