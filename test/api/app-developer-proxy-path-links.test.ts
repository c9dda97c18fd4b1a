import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { buildApp } from '../../src/server/app';
import { ManualClock } from '../support/clock';
import { makeTempDir } from '../support/temp-dir';

// The node behind a reverse proxy that serves it under a path: the app calls
// https://shop.example/pc/cards, the proxy strips /pc and forwards its host (X-Forwarded-Host).
// `--public-url https://shop.example/pc` says where the node is; links the caller follows must
// carry /pc, or they are the proxy's 404. Real HTTP; the proxy's headers are sent as it sends them.

const PUBLIC_URL = 'https://shop.example/pc';
const PROXY = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example', 'x-forwarded-for': '203.0.113.5' };

let url: string;
let engine: Engine;
let vendor: VendorCredentials;
let close: () => Promise<void>;

beforeAll(async () => {
  const dir = makeTempDir();
  engine = await startEngine({ database: openSqlite(`${dir.path}/punchcard.db`), nodeKey: randomBytes(32), clock: new ManualClock(), role: 'store' });
  const app = await buildApp({ engine, role: 'store', version: 'test', trustProxy: { addresses: ['127.0.0.1'] }, publicUrl: PUBLIC_URL });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
  close = async () => {
    await app.close();
    await engine.close();
    dir.remove();
  };
  vendor = await setUpVendor(engine, { name: 'Proxy Café', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main', city: 'Springfield' } });
  for (const number of ['PX1', 'PX2', 'PX3']) {
    const made = await fetch(`${url}/cards`, { method: 'POST', headers: { authorization: `Bearer ${vendor.accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ number }) });
    expect(made.status).toBe(201);
  }
});

afterAll(async () => {
  await close?.();
});

async function getJson(path: string, headers: Record<string, string>): Promise<any> {
  const reply = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${vendor.accessToken}`, ...headers } });
  expect(reply.status, path).toBe(200);
  return reply.json();
}

describe('links the caller follows, behind a proxy that serves the node under a path', () => {
  it('next/prev keep the public path when the caller came through the public address', async () => {
    const first = await getJson('/cards?limit=1&query=n:PX', PROXY);
    expect(first.next).toBe('https://shop.example/pc/cards?limit=1&query=n%3APX&page=2');
    const second = await getJson('/cards?limit=1&query=n:PX&page=2', PROXY);
    expect(second.prev).toBe('https://shop.example/pc/cards?limit=1&query=n%3APX&page=1');
  });

  it('a flag image is under the public path too', async () => {
    const countries = await getJson(`/countries?vendor=${vendor.vendorId}`, PROXY);
    expect(countries[0].flag_url).toMatch(/^https:\/\/shop\.example\/pc\/flags\/[A-Z]{2}\.svg$/);
  });

  it('a caller that reached the node at another address gets links on that address, without the path', async () => {
    const direct = await getJson('/cards?limit=1&query=n:PX', {});
    expect(direct.next).toBe(`${url}/cards?limit=1&query=n%3APX&page=2`);
    const otherHost = await getJson('/cards?limit=1&query=n:PX', { ...PROXY, 'x-forwarded-host': 'shop.example.net' });
    expect(otherHost.next).toBe('https://shop.example.net/cards?limit=1&query=n%3APX&page=2');
  });
});
