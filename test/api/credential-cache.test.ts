import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey, authenticateBearer } from '../../src/core/credentials/authenticate';
import { hashSecret } from '../../src/core/credentials/secrets';
import { startEngine } from '../../src/core/engine';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { testVendor } from '../support/backends';
import { openTestPostgres } from '../support/postgres';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Issue 13: a node keeps the api keys and bearer tokens it has seen in memory, checked on every call
// against the vendor's version row, which every write to a key or token moves (migrations 0021 and
// 0027); a currency read by id comes from the program data kept the same way. Writes are made here
// the way the node does not see them coming: on another connection to the same file, as a pulled
// sync change, the CLI or another process would. Each one is in force on the very next call.

let node: TestNode;
let outside: BetterSqlite3.Database;

beforeAll(async () => {
  node = await startTestNode();
  outside = new BetterSqlite3(`${node.dataDir}/punchcard.db`);
  outside.pragma('busy_timeout = 5000');
});

afterAll(async () => {
  outside?.close();
  await node?.close();
});

const queue = (key: string) => http(`${node.url}/onscreen/queue?api_key=${encodeURIComponent(key)}`);
const closeSession = (key: string) => http(`${node.url}/onscreen?api_key=${encodeURIComponent(key)}`, { method: 'DELETE', body: { pos_session_hash: '0'.repeat(32) } });
const reasonOf = (reply: { status: number; body: any }) => [reply.status, reply.body?.error?.errors?.[0]?.reason ?? null];
const setKey = (key: string, set: string, ...values: unknown[]) => outside.prepare(`update api_keys set ${set} where key_hash = ?`).run(...values, hashSecret(key));
const currencies = (token: string, id = '') => http(`${node.url}/currencies${id ? `/${id}` : ''}`, { token });
const codeOf = (reply: { status: number; body: any }) => [reply.status, reply.body?.code ?? null];
const setToken = (token: string, set: string, ...values: unknown[]) => outside.prepare(`update access_tokens set ${set} where token_hash = ?`).run(...values, hashSecret(token));

describe('api keys kept in memory', () => {
  it('a key revoked behind the node is refused on the next call, and works again when reinstated', async () => {
    const v = await node.addVendor('Key cache 1');
    expect((await queue(v.apiKey)).status).toBe(200);
    expect((await queue(v.apiKey)).status).toBe(200);
    setKey(v.apiKey, 'revoked_at = ?', node.clock.now());
    expect(reasonOf(await queue(v.apiKey))).toEqual([401, 'invalid_api_key']);
    setKey(v.apiKey, 'revoked_at = null');
    expect((await queue(v.apiKey)).status).toBe(200);
  });

  it("a key's role changed behind the node applies on the next call", async () => {
    const v = await node.addVendor('Key cache 2');
    // A cashier may close a session (404: there is none); a kiosk may not.
    expect(reasonOf(await closeSession(v.apiKey))).toEqual([404, 'session_not_found']);
    setKey(v.apiKey, "role = 'kiosk'");
    expect(reasonOf(await closeSession(v.apiKey))).toEqual([403, 'forbidden']);
  });

  it('a key deleted behind the node is refused; another vendor keeps its keys', async () => {
    const v = await node.addVendor('Key cache 3');
    const w = await node.addVendor('Key cache 4');
    expect((await queue(v.apiKey)).status).toBe(200);
    expect((await queue(w.apiKey)).status).toBe(200);
    outside.prepare('delete from api_keys where key_hash = ?').run(hashSecret(v.apiKey));
    expect(reasonOf(await queue(v.apiKey))).toEqual([401, 'invalid_api_key']);
    expect((await queue(w.apiKey)).status).toBe(200);
  });

  it('"last used" is still written once a minute per key, without moving the vendor\'s version', async () => {
    const v = await node.addVendor('Key cache 5');
    const lastUsed = () => (outside.prepare('select last_used_at from api_keys where key_hash = ?').get(hashSecret(v.apiKey)) as { last_used_at: number | null }).last_used_at;
    const version = () => outside.prepare('select version from vendor_versions where vendor_id = ?').get(v.vendorId);
    await queue(v.apiKey);
    const first = node.clock.now();
    const versionAfterFirstUse = version();
    expect(lastUsed()).toBe(first);
    node.clock.advance(30_000);
    await queue(v.apiKey);
    expect(lastUsed()).toBe(first);
    node.clock.advance(30_000);
    await queue(v.apiKey);
    expect(lastUsed()).toBe(node.clock.now());
    expect(version()).toEqual(versionAfterFirstUse);
  });
});

describe('bearer tokens kept in memory', () => {
  it('a token revoked behind the node is refused on the next call, and works again when reinstated', async () => {
    const v = await node.addVendor('Token cache 1');
    expect((await currencies(v.accessToken)).status).toBe(200);
    expect((await currencies(v.accessToken)).status).toBe(200);
    setToken(v.accessToken, 'revoked_at = ?', node.clock.now());
    expect(codeOf(await currencies(v.accessToken))).toEqual([401, 'invalid_token']);
    setToken(v.accessToken, 'revoked_at = null');
    expect((await currencies(v.accessToken)).status).toBe(200);
  });

  it('a token deleted behind the node is refused; a lifetime set behind it is judged on each call', async () => {
    const v = await node.addVendor('Token cache 2');
    const w = await node.addVendor('Token cache 3');
    expect((await currencies(v.accessToken)).status).toBe(200);
    expect((await currencies(w.accessToken)).status).toBe(200);
    outside.prepare('delete from access_tokens where token_hash = ?').run(hashSecret(v.accessToken));
    expect(codeOf(await currencies(v.accessToken))).toEqual([401, 'invalid_token']);
    setToken(w.accessToken, 'expires_at = ?', node.clock.now() + 60_000);
    expect((await currencies(w.accessToken)).status).toBe(200);
    node.clock.advance(60_000);
    expect(codeOf(await currencies(w.accessToken))).toEqual([401, 'token_expired']);
  });

  it('a currency renamed or deleted behind the node is read as it is now by GET /currencies/:id', async () => {
    const v = await node.addVendor('Token cache 4');
    const [points] = (await currencies(v.accessToken)).body.items as Array<{ id: string; name: string }>;
    expect((await currencies(v.accessToken, points!.id)).body.name).toBe(points!.name);
    outside.prepare("update currencies set name = 'Stars' where public_id = ?").run(points!.id);
    expect((await currencies(v.accessToken, points!.id)).body.name).toBe('Stars');
    // Another vendor's currency is missing for this one, cached or not.
    const w = await node.addVendor('Token cache 5');
    expect(codeOf(await currencies(w.accessToken, points!.id))).toEqual([404, 'currency_not_found']);
    outside.prepare('update currencies set deleted_at = ? where public_id = ?').run(node.clock.now(), points!.id);
    expect(codeOf(await currencies(v.accessToken, points!.id))).toEqual([404, 'currency_not_found']);
  });
});

describe('api keys and bearer tokens kept in memory on PostgreSQL', () => {
  it('a revoked key or token is refused on the next call; "last used" does not move the version', { timeout: 60_000 }, async () => {
    const pg = await openTestPostgres();
    const engine = await startEngine({ database: pg.database, nodeKey: randomBytes(32), role: 'central' });
    try {
      const vendor = await setUpVendor(engine, testVendor('Central Keys'));
      const version = async () => (await engine.db.selectFrom('vendor_versions').select('version').where('vendor_id', '=', vendor.vendorId).executeTakeFirst())?.version;
      expect((await authenticateApiKey(engine, vendor.apiKey)).role).toBe('cashier');
      const before = await version();
      await engine.db.updateTable('api_keys').set({ last_used_at: 1 }).where('key_hash', '=', hashSecret(vendor.apiKey)).execute();
      expect(await version()).toEqual(before);
      expect((await authenticateApiKey(engine, vendor.apiKey)).role).toBe('cashier');
      await engine.db.updateTable('api_keys').set({ role: 'kiosk' }).where('key_hash', '=', hashSecret(vendor.apiKey)).execute();
      expect((await authenticateApiKey(engine, vendor.apiKey)).role).toBe('kiosk');
      await engine.db.updateTable('api_keys').set({ revoked_at: 1 }).where('key_hash', '=', hashSecret(vendor.apiKey)).execute();
      await expect(authenticateApiKey(engine, vendor.apiKey)).rejects.toMatchObject({ code: 'invalid_api_key' });

      // Bearer tokens the same way (migration 0027).
      expect(await authenticateBearer(engine, vendor.accessToken)).toEqual({ vendorId: vendor.vendorId, scope: 'admin' });
      await engine.db.updateTable('access_tokens').set({ revoked_at: 1 }).where('token_hash', '=', hashSecret(vendor.accessToken)).execute();
      await expect(authenticateBearer(engine, vendor.accessToken)).rejects.toMatchObject({ code: 'invalid_token' });
    } finally {
      await engine.close();
      await pg.drop();
    }
  });
});
