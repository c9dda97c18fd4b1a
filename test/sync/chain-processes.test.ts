import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createServer as createHttpServer } from 'node:http';
import { join } from 'node:path';
import { type Database, openDatabaseUrl } from '../../src/core/storage/database';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, nodesOfThisFile, run, stopWith } from '../support/processes';
import { freePort } from '../support/free-port';
import { createServerDatabase } from '../support/postgres';
import { http } from '../support/test-node';

// A chain with real processes: central on the machine's PostgreSQL (PG_URL; an SQLite file when
// unset), two store nodes on SQLite files, talking HTTP. Central goes away and comes back.

let dropDatabase: (() => Promise<void>) | null = null;

afterAll(async () => {
  await dropDatabase?.();
});
// Registered after the afterAll above (after-hooks run last-registered first): the nodes are gone before their database is dropped.
const { tempDir, start } = nodesOfThisFile('punchcard-chain-');

async function centralDatabase(): Promise<Record<string, string>> {
  const serverUrl = process.env.PG_URL;
  if (!serverUrl) return {};
  const scratch = await createServerDatabase(serverUrl, 'punchcard_chain');
  dropDatabase = scratch.drop;
  return { PUNCHCARD_DATABASE_URL: scratch.url };
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const json = { 'content-type': 'application/json' };

/** A real HTTP receiver of webhook deliveries: each delivered event, as JSON. */
async function webhookReceiver(): Promise<{ url: string; events: Array<Record<string, any>>; close(): void }> {
  const events: Array<Record<string, any>> = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      events.push({ ...(JSON.parse(body) as Record<string, any>), signed: typeof req.headers['punchcard-signature'] === 'string' });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, events, close: () => server.close() };
}

describe('a chain of real processes', () => {
  it('pairs two stores, sells through an outage of central within the caps, and converges', async () => {
    const env = await centralDatabase();
    const centralDir = tempDir();
    const init = await run(['init', '--data', centralDir, '--vendor', 'Chain Coffee', '--json'], env, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const program = JSON.parse(init.stdout.trim()) as Record<string, any>;
    const bearer = { authorization: `Bearer ${program.access_token}`, ...json };
    const secondKey = await run(['key', '--data', centralDir, '--json'], env, 120_000);
    expect(secondKey.code, secondKey.stderr).toBe(0);

    const port = await freePort();
    const centralArgs = ['central', '--data', centralDir, '--port', String(port), '--webhooks-allow-private'];
    let central = await start(centralArgs, 'central', env);
    const health = await http(`${central.url}/health`);
    expect(health.body.role).toBe('central');

    // The program: a reward, and offline caps of 20 points per order.
    const currencies = await http(`${central.url}/currencies`, { headers: bearer });
    const points = currencies.body.items.find((c: any) => c.code === null);
    const reward = await http(`${central.url}/rewards`, { method: 'POST', headers: bearer, body: { name: 'Coffee', cost: 10, currency: points.id } });
    expect(reward.status, JSON.stringify(reward.body)).toBe(201);
    const bigReward = await http(`${central.url}/rewards`, { method: 'POST', headers: bearer, body: { name: 'Lunch', cost: 25, currency: points.id } });
    // An integration listens for orders: central delivers those of every store, offline ones too.
    const receiver = await webhookReceiver();
    const hook = await http(`${central.url}/webhooks`, { method: 'POST', headers: bearer, body: { url: receiver.url, events: ['order.placed'] } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const policy = await http(`${central.url}/sync/offline-policy`, { method: 'PUT', headers: bearer, body: { points_per_order: 20 } });
    expect(policy.body.points_per_order).toBe(20);

    // Both stores pair (two nodes of the program's store), with codes from the CLI and the API.
    const codeA = await run(['pair-code', '--data', centralDir, '--store', String(program.store_id), '--json'], env, 120_000);
    expect(codeA.code, codeA.stderr).toBe(0);
    const { code: pairA } = JSON.parse(codeA.stdout) as { code: string };
    const codeB = await http(`${central.url}/sync/pairing-codes`, { method: 'POST', headers: bearer, body: { store: program.store_id } });
    expect(codeB.status, JSON.stringify(codeB.body)).toBe(201);
    const dirA = tempDir();
    const dirB = tempDir();
    const a = await start(['store', '--data', dirA, '--port', '0', '--central', central.url, '--pair', pairA, '--label', 'Till by the door'], 'store');
    const b = await start(['store', '--data', dirB, '--port', '0', '--central', central.url, '--pair', codeB.body.code], 'store');
    // Each says which store it paired for, by name.
    expect(a.process.stderr()).toMatch(new RegExp(`paired with ${central.url} as node \\d+ of store ${program.store_id} \\(Main Store\\)`));
    // Central lists A by the name it was given, B by its machine's name.
    const nodes = await http(`${central.url}/sync/nodes`, { headers: bearer });
    expect((nodes.body.items as Array<{ label: string }>).map((n) => n.label)).toEqual(['Till by the door', hostname()]);
    // A used code does not pair a third node.
    const reused = await http(`${central.url}/sync/pair`, { method: 'POST', headers: json, body: { code: pairA } });
    expect(reused.status).toBe(400);
    expect(reused.body.code).toBe('pairing_code_invalid');

    // A customer registers by app at central; the cashier at A checks them in (once synced) and sells.
    const email = `ana.${randomBytes(3).toString('hex')}@example.com`;
    const registered = await http(`${central.url}/user/register`, {
      method: 'POST',
      headers: json,
      body: { first_name: 'Ana', last_name: 'López', email_address: email, password: 'correct horse 1', terms: true, vendor: program.vendor_id },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const checkIn = (url: string) => http(`${url}/onscreen?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { card_number: email } });
    await eventually('the customer at store A', async () => ([200, 201].includes((await checkIn(a.url)).status) ? true : undefined)).catch(async (error) => {
      throw new Error(`${(error as Error).message}: ${JSON.stringify((await checkIn(a.url)).body)} ${JSON.stringify((await http(`${a.url}/sync/status`)).body)} ${a.process.stderr().slice(-2000)} ${a.process.stdout().slice(-3000)}`);
    });
    const order = (url: string, receipt: string, extra: Record<string, unknown>) =>
      http(`${url}/order?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { card_number: email, receipt_number: receipt, subtotal: 40, ...extra } });
    const earned = await order(a.url, 'A-1', {});
    expect(earned.status, JSON.stringify(earned.body)).toBe(200);

    // B sees A's sale once synced.
    const statusOf = async (url: string) => (await http(`${url}/sync/status`)).body;
    await eventually('A pushed', async () => ((await statusOf(a.url)).pending === 0 ? true : undefined));

    const pointsOf = async (database: Database) => {
      try {
        const row = await database.db
          .selectFrom('ledger_accounts as a')
          .innerJoin('users as u', 'u.id', 'a.holder_id')
          .innerJoin('currencies as c', 'c.id', 'a.currency_id')
          .select(['a.balance'])
          .where('u.email_key', '=', email)
          .where('a.holder_type', '=', 'user')
          .where('c.code', 'is', null)
          .executeTakeFirst();
        return Number(row?.balance ?? 0);
      } finally {
        await database.close();
      }
    };
    await eventually("A's points at B", async () => ((await pointsOf(openDatabaseUrl(join(dirB, 'punchcard.db')))) === 40 ? true : undefined));

    // Central stops: both stores notice, and keep selling within the caps.
    await stopWith(central.process, 'SIGTERM');
    // A clean stop: the stores' requests under way were answered before the database closed.
    expect(jsonLines(central.process.stdout()).filter((line) => Number(line.level) >= 50)).toEqual([]);
    await eventually('A offline', async () => ((await statusOf(a.url)).link === 'down' ? true : undefined));
    await eventually('B offline', async () => ((await statusOf(b.url)).link === 'down' ? true : undefined));
    const spentAtB = await order(b.url, 'B-1', { subtotal: 5, redemptions: [reward.body.id] });
    expect(spentAtB.status, JSON.stringify(spentAtB.body)).toBe(200);
    const overCap = await order(b.url, 'B-2', { subtotal: 5, redemptions: [bigReward.body.id] });
    expect(overCap.status).toBe(422);
    expect(JSON.stringify(overCap.body)).toContain('offline_limit');
    const offlineEarn = await order(a.url, 'A-2', { subtotal: 12 });
    expect(offlineEarn.status, JSON.stringify(offlineEarn.body)).toBe(200);
    const statusA = await statusOf(a.url);
    expect(statusA.pending).toBeGreaterThan(0);
    expect(statusA.oldest_pending_at).not.toBeNull();
    // What went wrong, said plainly, and the moment the store went offline is in its log. The last
    // error is the refused connection, or — when the kill caught a request (a poke stream, a pull)
    // on its socket — that socket closing (undici's UND_ERR_SOCKET, or a reset).
    expect(statusA.last_error).toMatch(/^central did not answer at http:\/\/127\.0\.0\.1:\d+ \((ECONNREFUSED|UND_ERR_SOCKET|ECONNRESET)\)/);
    await eventually("A's log of the outage", async () => (a.process.stdout().includes('central unreachable: the store sells offline') ? true : undefined));
    // `punchcard sync status` says so too, with the endpoint's fields, as JSON and as text.
    const syncDown = await run(['sync', 'status', '--data', dirA, '--json'], {}, 120_000);
    expect(syncDown.code, syncDown.stderr).toBe(0);
    expect(JSON.parse(syncDown.stdout)).toMatchObject({ link: 'down', last_error: expect.stringMatching(/^central did not answer at http:\/\/127\.0\.0\.1:\d+ /) });
    const syncDownText = await run(['sync', 'status', '--data', dirA], {}, 120_000);
    expect(syncDownText.stdout).toMatch(/^link\s+down$/m);
    expect(syncDownText.stdout).toMatch(/^last_error\s+central did not answer at /m);
    // A central-owned call while central is away: a clear 503, nothing done.
    const forwarded = await http(`${b.url}/user/register`, { method: 'POST', headers: json, body: { first_name: 'Bo', email_address: 'bo@example.com', password: 'correct horse 1', terms: true, vendor: program.vendor_id } });
    expect(forwarded.status).toBe(503);
    expect(JSON.stringify(forwarded.body)).toContain('central_unreachable');

    // Central returns on the same address: everything converges.
    central = await start(centralArgs, 'central', env);
    for (const store of [a, b]) {
      await eventually('a store drained', async () => {
        const s = await statusOf(store.url);
        return s.link === 'up' && s.pending === 0 && s.cursor_lag === 0 ? true : undefined;
      }, 60_000);
    }
    // 40 earned at A; at B offline 10 spent (B saw A's points) and 5 earned; 12 earned at A offline.
    const expected = 40 - 10 + 5 + 12;
    const centralDb = () => openDatabaseUrl(env.PUNCHCARD_DATABASE_URL ?? join(centralDir, 'punchcard.db'));
    let lastSeen: number[] = [];
    await eventually(`balance ${expected} everywhere`, async () => {
      const seen = [await pointsOf(centralDb()), await pointsOf(openDatabaseUrl(join(dirA, 'punchcard.db'))), await pointsOf(openDatabaseUrl(join(dirB, 'punchcard.db')))];
      lastSeen = seen;
      return seen.every((p) => p === expected) ? true : undefined;
    }, 30_000).catch((error) => {
      throw new Error(`${(error as Error).message}: central, A, B hold ${lastSeen.join(', ')}`);
    });
    // Forwarded while central is up: the app account call reaches central and its answer comes back.
    const forwardedUp = await http(`${b.url}/user/email/exists?email=${encodeURIComponent(email)}&vendor=${program.vendor_id}`);
    expect(forwardedUp.status).toBe(200);
    // Every sale reached the integration once, from central, signed; the offline ones after central returned.
    const receipts = await eventually('the order webhooks', async () => {
      const seen = receiver.events.filter((e) => e.type === 'order.placed').map((e) => e.data.receipt_number as string).sort();
      return seen.length >= 3 ? seen : undefined;
    });
    expect(receipts).toEqual(['A-1', 'A-2', 'B-1']);
    expect(receiver.events.every((e) => e.signed)).toBe(true);
    receiver.close();
    expect(a.process.stdout()).toContain('central reachable again');
    const sync = await run(['sync', 'status', '--data', dirA, '--json'], {}, 120_000);
    expect(JSON.parse(sync.stdout)).toMatchObject({ paired: true, store: program.store_id, store_name: 'Main Store', link: 'up', last_error: null });
    // The folder's cursor, lag and first sync read as the endpoint's (a folder times no ETA).
    const route = await statusOf(a.url);
    expect(JSON.parse(sync.stdout)).toMatchObject({ cursor: route.cursor, cursor_lag: route.cursor_lag, first_sync: { ...route.first_sync, eta_seconds: null } });
    expect(route.first_sync).toMatchObject({ done: true, ready: true, progress: 100 });
    // Central's own folder is not a store's: said so, not "not paired".
    const atCentral = await run(['sync', 'status', '--data', centralDir], env, 120_000);
    expect([atCentral.code, atCentral.stdout]).toEqual([1, '']);
    expect(atCentral.stderr).toContain("is a central node's folder");
    // Started again, A has no first sync to show, and says how many rows its first sync took.
    const rows = (await statusOf(a.url)).first_sync.rows;
    expect(rows).toBeGreaterThan(0);
    await stopWith(a.process, 'SIGTERM');
    // With no node running on the folder, nothing talks to central.
    const syncStopped = await run(['sync', 'status', '--data', dirA, '--json'], {}, 120_000);
    expect(JSON.parse(syncStopped.stdout)).toMatchObject({ link: 'down', last_error: 'no store node is running on this folder' });
    const again = await start(['store', '--data', dirA, '--port', '0'], 'store');
    expect((await statusOf(again.url)).first_sync).toMatchObject({ done: true, rows });
    expect(again.process.stderr()).not.toContain('first sync');
  }, 240_000);
});
