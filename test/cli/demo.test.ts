import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, launch, ROOT, type Running, stopWith, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `npm start` on a machine without the Electron binary or a display (this one, and CI) falls back
// to the headless demo node; the demo data is created on the first run and reused afterwards.

const START = join(ROOT, 'scripts', 'start.js');
// Never open a real window from a test: no display on Linux; elsewhere ask for headless outright.
delete process.env.DISPLAY;
delete process.env.WAYLAND_DISPLAY;
const HEADLESS = process.platform === 'linux' ? [] : ['--headless'];
const dir = makeTempDir('punchcard-demo-');

afterEach(killLeftovers);
afterAll(async () => {
  await killLeftovers();
  dir.remove();
});

async function startDemo(): Promise<{ running: Running; url: string; token: string; cashierKey: string; kioskKey: string }> {
  const running = launch([...HEADLESS, '--data', dir.path, '--port', '0'], START);
  const banner = await waitFor('the demo banner', () => {
    const url = /demo store node: (http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())?.[1];
    const token = /admin token\s+(pcat_\S+)/.exec(running.stdout())?.[1];
    const cashierKey = /cashier key\s+(pcak_\S+)/.exec(running.stdout())?.[1];
    const kioskKey = /kiosk key\s+(pcak_\S+)/.exec(running.stdout())?.[1];
    return url && token && cashierKey && kioskKey ? { url, token, cashierKey, kioskKey } : undefined;
  }, running, 60_000); // the first start writes weeks of demo history before the banner
  return { running, ...banner };
}

describe('npm start without a desktop', () => {
  it('says why, starts the demo node, and creates the demo data on the first run only', async () => {
    const first = await startDemo();
    expect(first.running.stdout()).toMatch(/the desktop window can't open: .*(Electron binary|no display|headless)/);
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
    expect(second.running.stdout()).not.toMatch(/api_key\s+pcak_/);
    expect(second.token).not.toBe(first.token);
    // Screen keys are fresh at every start: the new pair signs screens in, the old pair is revoked.
    expect((await http(`${second.url}/app/terminal?api_key=${second.cashierKey}`)).body).toMatchObject({ role: 'cashier', store: { name: expect.any(String) } });
    expect((await http(`${second.url}/app/terminal?api_key=${second.kioskKey}`)).body.role).toBe('kiosk');
    expect((await http(`${second.url}/app/terminal?api_key=${first.cashierKey}`)).status).toBe(401);
    const again = await http(`${second.url}/cards?limit=100`, { token: second.token });
    expect(again.body.items).toHaveLength(cards.body.items.length);
    const currencies = await http(`${second.url}/currencies?sort=name&order=ASC`, { token: second.token });
    expect(currencies.body.items.map((c: { name: string }) => c.name)).toEqual(['Points', 'Quick Pay USD']);
    expect((await stopWith(second.running, 'SIGTERM')).code).toBe(0);
  });
});
