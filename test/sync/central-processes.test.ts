import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { nodesOfThisFile, run } from '../support/processes';
import { freePort } from '../support/free-port';
import { createServerDatabase } from '../support/postgres';
import { http } from '../support/test-node';

// Central beyond one process: two `punchcard central` processes on one database (the machine's
// PostgreSQL at PG_URL; one SQLite file when unset) serve the same program. Nothing that must be
// shared lives in one process's memory: the program cache, login lockouts and rate limits,
// pairing codes, sync state.

let dropDatabase: (() => Promise<void>) | null = null;

afterAll(async () => {
  await dropDatabase?.();
});
// Registered after the afterAll above (after-hooks run last-registered first): the nodes are gone before their database is dropped.
const { tempDir, start } = nodesOfThisFile('punchcard-central-');

async function sharedDatabase(): Promise<Record<string, string>> {
  const serverUrl = process.env.PG_URL;
  if (!serverUrl) return {};
  const scratch = await createServerDatabase(serverUrl, 'punchcard_two');
  dropDatabase = scratch.drop;
  return { PUNCHCARD_DATABASE_URL: scratch.url };
}

async function startCentral(dir: string, env: Record<string, string>): Promise<string> {
  const port = await freePort();
  return (await start(['central', '--data', dir, '--port', String(port)], 'central', env)).url;
}

const json = { 'content-type': 'application/json' };

describe('two central processes on one database', () => {
  it('serve one program: a change at one is in force at the other, lockouts and codes are shared', async () => {
    const env = await sharedDatabase();
    const dir = tempDir();
    const init = await run(['init', '--data', dir, '--vendor', 'Chain Coffee', '--json'], env, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const program = JSON.parse(init.stdout.trim()) as Record<string, any>;
    const bearer = { authorization: `Bearer ${program.access_token}`, ...json };
    const [a, b] = await Promise.all([startCentral(dir, env), startCentral(dir, env)]);

    // The program cache: B answers an order with the earning rule A just changed.
    const order = (url: string, receipt: string) =>
      http(`${url}/order?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { card_number: 'walk.in@example.com', receipt_number: receipt, subtotal: 10 } });
    await http(`${b}/onscreen/register?api_key=${program.api_key}`, { method: 'POST', headers: json, body: { email: 'walk.in@example.com' } });
    const first = await order(b, 'R-1');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const rules = await http(`${a}/earning-rules`, { headers: bearer });
    const rule = rules.body.items[0];
    const changed = await http(`${a}/earning-rules/${rule.id}`, { method: 'PUT', headers: bearer, body: { points: rule.points * 3 } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const second = await order(b, 'R-2');
    expect(second.body.points_earned, JSON.stringify(second.body)).toBe(3 * first.body.points_earned);
    expect(first.body.points_earned).toBeGreaterThan(0);

    // Login lockout: wrong passwords alternate between the two processes and still add up.
    const email = `ana.${randomBytes(3).toString('hex')}@example.com`;
    const registered = await http(`${a}/user/register`, { method: 'POST', headers: json, body: { first_name: 'Ana', last_name: 'López', email_address: email, password: 'correct horse 1', terms: true, vendor: program.vendor_id } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const login = (url: string, password: string) => http(`${url}/user/authenticate`, { method: 'POST', headers: json, body: { email_address: email, password, vendor: program.vendor_id } });
    for (let attempt = 0; attempt < 5; attempt += 1) await login(attempt % 2 === 0 ? a : b, 'wrong password');
    const locked = await login(a, 'correct horse 1');
    expect(JSON.stringify(locked.body)).toContain('account_locked');
    expect(JSON.stringify((await login(b, 'correct horse 1')).body)).toContain('account_locked');

    // A pairing code issued by one process is spent at the other, once.
    const code = await http(`${a}/sync/pairing-codes`, { method: 'POST', headers: bearer, body: { store: program.store_id } });
    expect(code.status).toBe(201);
    const paired = await http(`${b}/sync/pair`, { method: 'POST', headers: json, body: { code: code.body.code } });
    expect(paired.status, JSON.stringify(paired.body)).toBe(201);
    expect((await http(`${a}/sync/pair`, { method: 'POST', headers: json, body: { code: code.body.code } })).body.code).toBe('pairing_code_invalid');
    // The node's credential works at either process.
    const pull = (url: string) => http(`${url}/sync/pull?after=0&limit=10`, { headers: { authorization: `Bearer ${paired.body.credential}` } });
    expect((await pull(a)).status).toBe(200);
    expect((await pull(b)).status).toBe(200);
  }, 240_000);
});
