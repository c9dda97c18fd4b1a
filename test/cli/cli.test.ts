import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, killLeftovers, launch, run, type Running, stopWith, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';
import { NOT_PAIRED_STATUS } from '../../src/server/sync/store-sync';

// The `punchcard` command as users run it: real processes from the repository root, real data folders.

/** Starts `punchcard store` on a free port and returns its URL from the "listening" log line. */
async function startStore(dataDir: string): Promise<{ running: Running; url: string }> {
  const running = launch(['store', '--data', dataDir, '--port', '0']);
  const url = await waitFor(
    'the listening line',
    () => {
      for (const line of jsonLines(running.stdout())) {
        const match = /Punchcard store node listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(String(line.msg ?? ''));
        if (match && Number(match[2]) > 0) return match[1]!;
      }
      return undefined;
    },
    running,
  );
  return { running, url };
}

const INIT_KEYS = ['access_token', 'api_key', 'client_id', 'client_secret', 'kiosk_api_key', 'pos_id', 'store_id', 'vendor_id'];

function parseInit(stdout: string): Record<string, any> {
  const lines = stdout.split('\n').filter((line) => line.length > 0);
  expect(lines, stdout).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, any>;
}

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-cli-');
  dirs.push(dir);
  return dir.path;
}

afterEach(killLeftovers);

afterAll(async () => {
  await killLeftovers();
  for (const dir of dirs) dir.remove();
});

describe('punchcard --help', () => {
  it('lists the commands', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const command of ['init', 'store', 'stores', 'token', 'key', 'demo']) expect(stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
  });
});

describe('punchcard init', () => {
  it('prints one JSON line of ids and secrets, creates the database, and adds a vendor per run', async () => {
    const dir = tempDir();
    const first = await run(['init', '--data', dir, '--vendor', 'Acme Coffee', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const made = parseInit(first.stdout);
    expect(Object.keys(made).sort()).toEqual(INIT_KEYS);
    for (const key of ['vendor_id', 'store_id', 'pos_id']) {
      expect(typeof made[key], key).toBe('number');
      expect(Number.isSafeInteger(made[key]), key).toBe(true);
    }
    for (const key of ['api_key', 'kiosk_api_key', 'client_id', 'client_secret', 'access_token']) {
      expect(typeof made[key], key).toBe('string');
      expect(made[key].length, key).toBeGreaterThan(10);
    }
    expect(new Set([made.api_key, made.kiosk_api_key, made.client_secret, made.access_token]).size).toBe(4);
    expect(existsSync(join(dir, 'punchcard.db'))).toBe(true);

    const second = await run(['init', '--data', dir, '--vendor', 'Beta Bakery', '--json']);
    expect(second.code, second.stderr).toBe(0);
    const again = parseInit(second.stdout);
    expect(Object.keys(again).sort()).toEqual(INIT_KEYS);
    expect(again.vendor_id).not.toBe(made.vendor_id);
    expect(again.access_token).not.toBe(made.access_token);
  });

  it('refuses a currency that is not ISO 4217 with exit code 1 and one line, no stack trace', async () => {
    const dir = tempDir();
    const { code, stdout, stderr } = await run(['init', '--data', dir, '--vendor', 'Bad Money', '--currency', 'XYZ', '--json']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.split('\n').filter((line) => line.trim().length > 0);
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toContain('XYZ');
    expect(stderr).not.toMatch(/\bat\s+\S+\s+\(|\bat\s+file:|\.ts:\d+|node_modules/);
    // Refused before anything was made: no database, no node key to trip the next init.
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses an unknown country before making anything, and the next init in the folder works', async () => {
    const dir = tempDir();
    const bad = await run(['init', '--data', dir, '--vendor', 'Nowhere', '--country', 'XX', '--json']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"XX" is none');
    expect(readdirSync(dir)).toEqual([]);
    const good = await run(['init', '--data', dir, '--vendor', 'Somewhere', '--country', 'ec', '--currency', 'usd', '--json']);
    expect(good.code, good.stderr).toBe(0);
    expect(parseInit(good.stdout).vendor_id).toBeGreaterThan(0);
  });

  it('says in one line when the PostgreSQL database is missing or not answering, no stack trace', async () => {
    // A database that does not exist on a server that answers (the README's chain example without
    // its createdb), and an address where nothing listens.
    const server = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    const cases = [
      { url: server.replace(/\/[^/?]*(\?.*)?$/, '/punchcard_no_such_database'), says: 'does not exist: create it first' },
      { url: 'postgres://postgres@127.0.0.1:9/chain', says: 'no database answered' },
    ];
    for (const { url, says } of cases) {
      const { code, stderr } = await run(['init', '--data', tempDir(), '--vendor', 'Chain', '--json'], { PUNCHCARD_DATABASE_URL: url });
      expect(code).toBe(1);
      const lines = stderr.split('\n').filter((line) => line.trim().length > 0);
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toContain(says);
      expect(stderr).not.toMatch(/\bat\s+\S+\s+\(|\bat\s+file:|\.ts:\d+|node_modules/);
    }
  });
});

describe('punchcard sync status', () => {
  it('answers paired: false and link none for a folder with no paired store node, as GET /sync/status does, and makes no database there', async () => {
    const empty = tempDir();
    const initialised = tempDir();
    expect((await run(['init', '--data', initialised, '--vendor', 'Solo', '--json'])).code).toBe(0);
    for (const dir of [empty, initialised]) {
      const json = await run(['sync', 'status', '--data', dir, '--json']);
      expect(json.code, json.stderr).toBe(0);
      expect(json.stderr).toBe('');
      expect(JSON.parse(json.stdout.trim())).toEqual({ ...NOT_PAIRED_STATUS, first_sync: { ...NOT_PAIRED_STATUS.first_sync } });
      expect(NOT_PAIRED_STATUS).toMatchObject({ paired: false, central: null, link: 'none', pending: 0, last_error: null, clock_offset_seconds: null });
      const text = await run(['sync', 'status', '--data', dir]);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toMatch(/^paired\s+false$/m);
      expect(text.stdout).toMatch(/^link\s+none$/m);
    }
    expect(existsSync(join(empty, 'punchcard.db'))).toBe(false);
  });

  it('gives the endpoint’s fields (cursor_lag, first_sync in full) and refuses a folder that is not there', async () => {
    const json = await run(['sync', 'status', '--data', tempDir(), '--json']);
    expect(JSON.parse(json.stdout.trim())).toMatchObject({ cursor: 0, cursor_lag: 0, first_sync: { done: false, ready: false, progress: 0, rows: 0, eta_seconds: null } });
    const missing = join(tempDir(), 'misspelled');
    const refused = await run(['sync', 'status', '--data', missing]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim()).toBe(`punchcard: There is no data folder at ${missing}.`);
  });
});

describe('punchcard store and token', () => {
  let dir: string;
  let made: Record<string, any>;

  beforeAll(async () => {
    dir = tempDir();
    const init = await run(['init', '--data', dir, '--vendor', 'Euro Cafe', '--currency', 'EUR', '--json']);
    expect(init.code, init.stderr).toBe(0);
    made = parseInit(init.stdout);
  });

  it('serves the data folder, honours the init token and currency, and stops on SIGTERM with code 0', async () => {
    const { running, url } = await startStore(dir);

    const health = await http(`${url}/health`);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', role: 'store', database: 'sqlite' });
    expect(Number.isInteger(health.body.node_id)).toBe(true);

    const currencies = await http(`${url}/currencies`, { token: made.access_token });
    expect(currencies.status).toBe(200);
    const codes = currencies.body.items.map((c: { code: string | null }) => c.code).sort();
    expect(codes).toEqual(['EUR', null].sort());
    expect(currencies.body.items.find((c: { code: string | null }) => c.code === 'EUR').name).toMatch(/EUR/);

    const refused = await http(`${url}/currencies`, { token: 'pcat_not_a_token' });
    expect(refused.status).toBe(401);

    // `token` works on the same data folder while the store runs, and its token is honoured at once.
    const issued = await run(['token', '--data', dir, '--vendor', String(made.vendor_id), '--json']);
    expect(issued.code, issued.stderr).toBe(0);
    const { access_token: fresh } = JSON.parse(issued.stdout.trim()) as { access_token: string };
    expect(fresh).not.toBe(made.access_token);
    const withFresh = await http(`${url}/currencies`, { token: fresh });
    expect(withFresh.status).toBe(200);
    expect(withFresh.body.items.map((c: { id: string }) => c.id).sort()).toEqual(currencies.body.items.map((c: { id: string }) => c.id).sort());

    const { code, ms } = await stopWith(running, 'SIGTERM');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
    const messages = jsonLines(running.stdout()).map((line) => String(line.msg));
    expect(messages).toContain('stopped');
    expect(messages.some((m) => m.includes('SIGTERM'))).toBe(true);
    // The log carries no bearer token.
    expect(running.stdout()).not.toContain(made.access_token);
    expect(running.stdout()).not.toContain(fresh);
  });

  it('stops on SIGINT with code 0 and logs "stopped"', async () => {
    const { running, url } = await startStore(dir);
    expect((await http(`${url}/health`)).status).toBe(200);
    const { code, ms } = await stopWith(running, 'SIGINT');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
    expect(jsonLines(running.stdout()).map((line) => String(line.msg))).toContain('stopped');
    // The port is released.
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it('stops `punchcard central` on SIGTERM with code 0 and logs "stopped" (its checkpoint worker ended with it)', async () => {
    const running = launch(['central', '--data', tempDir(), '--port', '0']);
    const url = await waitFor('the listening line', () => jsonLines(running.stdout()).map((line) => /listening on (http:\/\/\S+)$/.exec(String(line.msg ?? ''))?.[1]).find(Boolean), running);
    expect((await http(`${url}/health`)).body.role).toBe('central');
    const { code, ms } = await stopWith(running, 'SIGTERM');
    expect(code, running.stderr()).toBe(0);
    expect(ms).toBeLessThan(5_000);
    expect(jsonLines(running.stdout()).map((line) => String(line.msg))).toContain('stopped');
  });

  it('prints a plain token that works against a running store', async () => {
    const issued = await run(['token', '--data', dir, '--vendor', String(made.vendor_id)]);
    expect(issued.code, issued.stderr).toBe(0);
    const lines = issued.stdout.split('\n').filter((line) => line.length > 0);
    expect(lines).toHaveLength(1);
    const token = lines[0]!.trim();
    const { running, url } = await startStore(dir);
    const reply = await http(`${url}/cards`, { token });
    expect(reply.status).toBe(200);
    expect(reply.body.items).toEqual([]);
    expect((await stopWith(running, 'SIGTERM')).code).toBe(0);
  });

  it('issues cashier and kiosk keys a running store accepts for screens, and refuses an unknown store', async () => {
    const cashier = await run(['key', '--data', dir, '--json']);
    expect(cashier.code, cashier.stderr).toBe(0);
    const issued = JSON.parse(cashier.stdout.trim()) as Record<string, unknown>;
    expect(issued).toMatchObject({ role: 'cashier', store_id: made.store_id, vendor_id: made.vendor_id, api_key: expect.stringMatching(/^pcak_/) });
    const kiosk = await run(['key', '--data', dir, '--role', 'kiosk']);
    expect(kiosk.code, kiosk.stderr).toBe(0);
    const kioskKey = kiosk.stdout.trim();
    const { running, url } = await startStore(dir);
    expect((await http(`${url}/app/terminal?api_key=${String(issued.api_key)}`)).body).toMatchObject({ role: 'cashier', store: { id: made.store_id } });
    expect((await http(`${url}/app/terminal?api_key=${kioskKey}`)).body).toMatchObject({ role: 'kiosk', point_of_sale: null });
    expect((await stopWith(running, 'SIGTERM')).code).toBe(0);

    const unknown = await run(['key', '--data', dir, '--store', String(made.store_id + 12345)]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe(`punchcard: There is no store ${made.store_id + 12345}.`);
    const badRole = await run(['key', '--data', dir, '--role', 'boss']);
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toMatch(/the role is one of cashier, kiosk, integration/);
  });

  it('exits 1 with one line for an unknown vendor', async () => {
    const { code, stdout, stderr } = await run(['token', '--data', dir, '--vendor', String(made.vendor_id + 12345)]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.split('\n').filter((line) => line.trim().length > 0);
    expect(lines, stderr).toHaveLength(1);
    expect(stderr).not.toMatch(/\bat\s+\S+\s+\(|\.ts:\d+/);
  });
});
