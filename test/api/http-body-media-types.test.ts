import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/errors';
import { FORM, legacyErrorCheck, ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { expectResourceError } from '../support/resource-api';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A body is read when it is JSON or form fields: under application/json (or any +json),
// application/x-www-form-urlencoded, text/plain (what fetch sends for a string) or no content type
// (compat-notes: JSON text under a form type is common). Any other type (XML, multipart,
// octet-stream) is 415 unsupported_media_type naming the accepted types: it was read as form text
// and answered as if its fields were missing. An empty body reads as {} whatever its type.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const expectLegacyError = legacyErrorCheck({ noStackTrace: true });
const inStore = inStoreApi(() => node);
const enc = encodeURIComponent;
let vendorCount = 0;

async function customerAtStore() {
  const v = await node.addVendor(`Media types ${++vendorCount}`);
  const c = await signUpAt(node, v.vendorId);
  return { v, c };
}

/** A request with exactly these headers (fetch always adds a content type to a string body). */
function rawRequest(url: string, method: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ordersOf = async (userId: number) => (await node.engine.db.selectFrom('transactions').select('id').where('user_id', '=', userId).execute()).length;

describe('a body of a type the node does not read is 415 unsupported_media_type', () => {
  it('POST /order as XML: 415 naming JSON and form fields, and no order', async () => {
    const { v, c } = await customerAtStore();
    const xml = `<?xml version="1.0"?><order><card_number>${c.email}</card_number><receipt_number>X-1</receipt_number><subtotal>10</subtotal></order>`;
    const reply = await http(`${node.url}/order?api_key=${enc(v.apiKey)}`, { method: 'POST', body: xml, headers: { 'content-type': 'application/xml' } });
    expectLegacyError(reply, 415, 'unsupported_media_type');
    expect(reply.body.error.errors[0].message).toBe(ERROR_CODES.unsupported_media_type.message);
    expect(reply.body.error.errors[0].message).toMatch(/application\/json.*application\/x-www-form-urlencoded/);
    expect(await ordersOf(c.userId)).toBe(0);
  });

  it('multipart, octet-stream and text/xml bodies too, on the resource style in its envelope', async () => {
    const { v, c } = await customerAtStore();
    const checkIn = (type: string, body: string) => http(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, { method: 'POST', body, headers: { 'content-type': type } });
    const multipart = `--b\r\nContent-Disposition: form-data; name="card_number"\r\n\r\n${c.email}\r\n--b--\r\n`;
    expectLegacyError(await checkIn('multipart/form-data; boundary=b', multipart), 415, 'unsupported_media_type');
    expectLegacyError(await checkIn('application/octet-stream', JSON.stringify({ card_number: c.email })), 415, 'unsupported_media_type');
    expectLegacyError(await checkIn('text/xml', `<card_number>${c.email}</card_number>`), 415, 'unsupported_media_type');
    const currency = await http(`${node.url}/currencies`, { method: 'POST', token: v.accessToken, body: '<currency><name>Stars</name></currency>', headers: { 'content-type': 'application/xml' } });
    expectResourceError(currency, 415, 'unsupported_media_type');
    expect(await node.engine.db.selectFrom('pos_sessions').select('id').where('user_id', '=', c.userId).execute()).toEqual([]);
  });

  it('a compressed body (any Content-Encoding but identity) is 415 and nothing is done; identity is read', async () => {
    const { v, c } = await customerAtStore();
    const body = JSON.stringify({ card_number: c.email });
    const checkIn = (encoding: string) => rawRequest(`${node.url}/onscreen?api_key=${enc(v.apiKey)}`, 'POST', { 'content-type': 'application/json', 'content-encoding': encoding }, body);
    for (const encoding of ['zz', 'gzip', 'br']) {
      const reply = await checkIn(encoding);
      expect(reply.status, encoding).toBe(415);
      expect(reply.body.error.errors[0]).toMatchObject({ reason: 'unsupported_media_type', message: expect.stringContaining('Content-Encoding') });
    }
    expect(await node.engine.db.selectFrom('pos_sessions').select('id').where('user_id', '=', c.userId).execute()).toEqual([]);
    expect((await checkIn('identity')).status).toBe(201);
  });

  it('a GET carrying an XML body is 415; one carrying JSON is read', async () => {
    const { v, c } = await customerAtStore();
    const { pos_session: session } = await inStore.checkInOk(v.apiKey, c.email);
    const url = `${node.url}/onscreen?api_key=${enc(v.apiKey)}`;
    expect((await rawRequest(url, 'GET', { 'content-type': 'application/xml' }, `<pos_session_hash>${session.hash}</pos_session_hash>`)).status).toBe(415);
    expect((await rawRequest(url, 'GET', { 'content-type': 'application/json' }, JSON.stringify({ pos_session_hash: session.hash }))).status).toBe(200);
  });
});

describe('what real clients send is still read', () => {
  it('JSON with a charset or a +json type, form fields, JSON text under a form type or text/plain, and no content type at all', async () => {
    const { v, c } = await customerAtStore();
    const url = `${node.url}/onscreen?api_key=${enc(v.apiKey)}`;
    const json = JSON.stringify({ card_number: c.email });
    for (const [type, body] of [
      ['application/json; charset=utf-8', json],
      ['application/vnd.api+json', json],
      [FORM['content-type']!, `card_number=${enc(c.email)}`],
      [FORM['content-type']!, json],
      ['text/plain;charset=UTF-8', json],
      ['Application/JSON', json],
    ] as const) {
      const reply = await http(url, { method: 'POST', body, headers: { 'content-type': type } });
      expect(reply.status, `${type}: ${JSON.stringify(reply.body)}`).toBe(201);
    }
    expect((await rawRequest(url, 'POST', {}, json)).status).toBe(201);
  });

  it('an empty body of any type reads as {}: DELETE /onscreen names the missing field, not the type', async () => {
    const { v, c } = await customerAtStore();
    const { pos_session: session } = await inStore.checkInOk(v.apiKey, c.email);
    const url = `${node.url}/onscreen?api_key=${enc(v.apiKey)}`;
    expectLegacyError(await http(url, { method: 'DELETE', body: '', headers: { 'content-type': 'application/xml' } }), 400, 'validation_failed', 'pos_session_hash');
    // DELETE with a JSON body closes, as before.
    expect((await inStore.close(v.apiKey, { pos_session_hash: session.hash })).status).toBe(200);
  });
});
