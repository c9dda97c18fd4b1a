import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine } from '../../src/core/engine';
import { installChangeCapture } from '../../src/core/sync/capture/install-capture';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { logHead } from '../../src/core/sync/central/read-snapshot';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { ManualClock } from '../support/clock';
import { http } from '../support/test-node';
import { freshDatabase } from './support/chain';

// Unknown query parameters on central's /sync/* routes are ignored, on purpose and alike on every
// route (docs/sync.md "Query parameters"): a store of a newer version may ask with a parameter this
// central does not know, and must still be answered — `format=columns` reached older centrals
// this way. `GET /sync/stream?after=…` is one of them: the stream has no cursor, it opens with
// central's log head and the store pulls after its own. Known parameters are still checked.

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function pairedCentral(): Promise<{ url: string; credential: string; head: () => Promise<number> }> {
  const engine = await startEngine({ database: await freshDatabase(), nodeKey: randomBytes(32), clock: new ManualClock(), role: 'central' });
  open.push(() => engine.close());
  await installChangeCapture(engine.db, engine.dialect, 'central');
  const vendor = await setUpVendor(engine, { name: 'Chain', currency: 'USD', country: 'US', store: { name: 'A', address1: '1 Main', city: 'Springfield' } });
  const app = await buildApp({ engine, role: 'central', version: 'test' });
  open.push(async () => void (await app.close()));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const { code } = await issuePairingCode(engine, vendor.vendorId, vendor.storeId);
  const paired = await http(`${url}/sync/pair`, { method: 'POST', body: { code } });
  expect(paired.status).toBe(201);
  return { url, credential: paired.body.credential as string, head: () => logHead(engine.db) };
}

/** The stream's text until it holds a whole `changes` event (or `ms` pass). */
async function firstPoke(url: string, credential: string, ms = 5_000): Promise<{ status: number; text: string }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  const reply = await fetch(url, { headers: { authorization: `Bearer ${credential}` }, signal: abort.signal });
  let text = '';
  try {
    const reader = reply.body!.getReader();
    while (!/event: changes\ndata: .*\n\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } catch {
    // aborted: the text so far
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { status: reply.status, text };
}

describe("central's /sync/* query parameters", () => {
  it('GET /sync/stream?after=…: the parameter is ignored, the stream opens with the log head', async () => {
    const central = await pairedCentral();
    for (const query of ['?after=x', '?after=999999999', '?anything=1']) {
      const poke = await firstPoke(`${central.url}/sync/stream${query}`, central.credential);
      expect(poke.status, query).toBe(200);
      expect(poke.text, query).toContain(`event: changes\ndata: {"head":${await central.head()}}\n\n`);
    }
  });

  it('pull and snapshot ignore what they do not know, and still refuse a malformed known parameter', async () => {
    const central = await pairedCentral();
    const pull = await http(`${central.url}/sync/pull?after=0&since=5&compact=1`, { token: central.credential });
    expect(pull.status, JSON.stringify(pull.body)).toBe(200);
    expect(pull.body.cursor).toBe(await central.head());
    const snapshot = await http(`${central.url}/sync/snapshot?table=stores&format=columns&newer_option=yes`, { token: central.credential });
    expect(snapshot.status, JSON.stringify(snapshot.body)).toBe(200);
    const bad = await http(`${central.url}/sync/pull?after=x`, { token: central.credential });
    expect([bad.status, bad.body.code, bad.body.field]).toEqual([400, 'validation_failed', 'after']);
  });
});
