import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A scan captured at a counter or kiosk (keyboard-wedge line or card swipe) checks the customer in.
describe('POST /app/scans', () => {
  let node: TestNode;
  let vendor: VendorCredentials;

  beforeAll(async () => {
    node = await startTestNode();
    vendor = await node.addVendor();
    const email = 'scan.customer@example.com';
    await http(`${node.url}/user/register`, { method: 'POST', body: { first_name: 'Sam', last_name: 'Scan', email_address: email, password: 'secret123', terms: true, vendor: vendor.vendorId } });
    const login = await http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: email, password: 'secret123', vendor: vendor.vendorId } });
    const key = login.body.session_identifier as string;
    for (const number of ['CARD123', '12345674']) {
      expect((await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number } })).status).toBe(201);
      expect((await http(`${node.url}/user/card/add?session_key=${key}`, { method: 'POST', body: { number } })).status).toBe(200);
    }
  });
  afterAll(() => node.close());

  const scan = (line: string, apiKey = vendor.apiKey) => http(`${node.url}/app/scans?api_key=${apiKey}`, { method: 'POST', body: { line } });

  it('checks in the customer behind a barcode line, AIM symbology and all', async () => {
    const reply = await scan(']C0CARD123\r');
    expect(reply.status).toBe(201);
    // Shorter than 8 characters: masked completely (docs/decisions.md, scanner decoders).
    expect(reply.body.scan).toEqual({ kind: 'barcode', symbology: ']C0', masked: '*******' });
    expect(reply.body.pos_session).toMatchObject({ object: 'pos_session', status: { id: 1, name: 'Active' } });
    const retrieved = await http(`${node.url}/onscreen?api_key=${vendor.apiKey}&pos_session_hash=${reply.body.pos_session.hash}`);
    expect(retrieved.body.pos_session.card).toBe('CARD123');
    expect(retrieved.body.user.first_name).toBe('Sam');
  });

  it('checks in from a card swipe, using only the card number and showing it masked', async () => {
    const reply = await scan(';12345674?', vendor.kioskApiKey);
    expect(reply.status).toBe(201);
    expect(reply.body.scan).toEqual({ kind: 'card', symbology: null, masked: '****5674' });
    const queue = await http(`${node.url}/onscreen/queue?api_key=${vendor.apiKey}`);
    expect(queue.body.map((e: any) => e.pos_session.user.first_name)).toEqual(['Sam']);
  });

  it('refuses an unreadable swipe with 400 unreadable_scan, without echoing the track', async () => {
    // A loyalty number (a payment card's is refused as one: test/hardening/card-data-never-stored).
    const reply = await scan('%B6274010000000121^DOE/JANE^4912101?');
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0]).toMatchObject({ reason: 'unreadable_scan', field: 'line' });
    expect(JSON.stringify(reply.body)).not.toMatch(/6274010000000121|DOE|JANE/);
  });

  it('answers 404 customer_not_found for a readable scan nobody owns, and 401 without a key', async () => {
    const unknown = await scan('NOBODY42\r');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.errors[0].reason).toBe('customer_not_found');
    expect((await http(`${node.url}/app/scans`, { method: 'POST', body: { line: 'CARD123' } })).status).toBe(401);
  });
});
