import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestNode, type TestNode } from '../support/test-node';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';

// Found by a fuzzing run: validation's coercion changed what a client sent instead of refusing it.
// A JSON number past 2^53 for a text field arrived with digits lost (a receipt stored as another
// number, then voided by a third), and 0, false or "" for an object that may be null erased it.
describe('values validation would have changed', () => {
  let node: TestNode;
  let vendor: VendorCredentials;
  beforeAll(async () => {
    node = await startTestNode();
    vendor = await node.addVendor();
  });
  afterAll(() => node.close());

  const customer = async (email: string) => {
    const made = await http(`${node.url}/onscreen/register?api_key=${vendor.apiKey}`, { method: 'POST', body: { email } });
    expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
    return email;
  };

  it('refuses a receipt number sent as a number too long to keep its digits, and voids nothing by one', async () => {
    const email = await customer('receipt@example.com');
    const order = (receipt: unknown) => http(`${node.url}/order?api_key=${vendor.apiKey}`, { method: 'POST', body: `{"card_number":"${email}","receipt_number":${String(receipt)},"subtotal":5}` });
    const long = await order('90071992547409931');
    expect(long.status).toBe(400);
    expect(long.body.error.errors[0]).toMatchObject({ reason: 'validation_failed', message: expect.stringContaining('receipt_number must be sent as text') });
    for (const odd of ['1e21', '1e400']) expect((await order(odd)).status, odd).toBe(400);
    expect(await node.engine.db.selectFrom('orders').select('receipt_number').execute()).toEqual([]);

    // A whole number in range is still taken as its text (POS systems send receipt numbers so).
    const short = await order('12345');
    expect(short.status, JSON.stringify(short.body)).toBe(200);
    expect(await node.engine.db.selectFrom('orders').select('receipt_number').execute()).toEqual([{ receipt_number: '12345' }]);
    const voidLong = await http(`${node.url}/order?api_key=${vendor.apiKey}`, { method: 'DELETE', body: '{"receipt_number":90071992547409939}' });
    expect(voidLong.status).toBe(400);
  });

  it('refuses true or false for a text field', async () => {
    const reply = await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: '{"number":true}' });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'validation_failed', field: 'number' });
  });

  it('refuses a card number sent as a number past 2^53, and takes one in range', async () => {
    const long = await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: '{"number":6035550123456789012}' });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: 'validation_failed', field: 'number' });
    const inRange = await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: '{"number":603555012345}' });
    expect(inRange.status, JSON.stringify(inRange.body)).toBe(201);
    expect(inRange.body.number).toBe('603555012345');
  });

  it("refuses 0, false and \"\" for an object that may be null, and keeps what was there", async () => {
    const card = await http(`${node.url}/cards`, { method: 'POST', token: vendor.accessToken, body: { number: 'OBJ1', data: { tier: 'gold' } } });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
    for (const empty of ['0', 'false', '""']) {
      const reply = await http(`${node.url}/cards/${card.body.id}`, { method: 'PUT', token: vendor.accessToken, body: `{"data":${empty}}` });
      expect(reply.status, empty).toBe(400);
      expect(reply.body, empty).toMatchObject({ code: 'validation_failed', field: 'data', message: 'data must be an object or null.' });
    }
    expect((await http(`${node.url}/cards/${card.body.id}`, { token: vendor.accessToken })).body.data).toEqual({ tier: 'gold' });
    // null still clears it, as the interface says.
    const cleared = await http(`${node.url}/cards/${card.body.id}`, { method: 'PUT', token: vendor.accessToken, body: '{"data":null}' });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);

    const store = await http(`${node.url}/stores/${vendor.storeId}`, { method: 'PUT', token: vendor.accessToken, body: '{"hours":false}' });
    expect(store.status).toBe(400);
    expect(store.body).toMatchObject({ code: 'validation_failed', field: 'hours' });
  });
});
