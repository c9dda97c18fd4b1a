import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { freshEmail, loginAt, PASSWORD, registerOkAt } from '../support/customers';
import { http, type HttpReply, startTestNode, type TestNode } from '../support/test-node';

// A per-account (per-value) limit counts exactly the value the route acts on. For GET the query
// string wins over a body field: the limiter read the raw value instead (a decoy body field was
// counted against the decoy). A one-item array ({"email_address": ["victim@x"]}, ?email[]=victim@x)
// was unwrapped by validation and escaped the count; it is now refused before the route acts
// (400 validation_failed: http/strict-numbers.ts, test http-single-values), so it neither acts nor counts.

const PER_ACCOUNT = { perClient: 1000, perAccount: 2, windowSeconds: 60 };

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
});

async function start(): Promise<{ node: TestNode; vendorId: number; accessToken: string }> {
  const node = await startTestNode({ rateLimits: { login: PER_ACCOUNT, lookup: PER_ACCOUNT, register: PER_ACCOUNT, passwordReset: PER_ACCOUNT, codeEntry: PER_ACCOUNT } });
  nodes.push(node);
  const { vendorId, accessToken } = await node.addVendor();
  return { node, vendorId, accessToken };
}

/** A GET with a JSON body (fetch sends none): status and reason of the reply. */
function getWithBody(url: string, body: unknown): Promise<{ status: number; reason: string | undefined }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpRequest(url, { headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } }, (res) => {
      let reply = '';
      res.on('data', (chunk) => (reply += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: JSON.parse(reply).error?.errors?.[0]?.reason }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

const statusOf = (reply: HttpReply) => reply.status;

describe('per-value limits count the value the route uses', () => {
  it('POST /user/authenticate: the one-item array form logs no one in and leaves the limit to the plain one', async () => {
    const { node, vendorId } = await start();
    const { email } = await registerOkAt(node, vendorId);
    const asArray = () => http(`${node.url}/user/authenticate`, { method: 'POST', body: { email_address: [email], password: PASSWORD, vendor: vendorId } });
    for (let i = 0; i < 3; i++) expect(statusOf(await asArray())).toBe(400);
    expect(statusOf(await loginAt(node, email, PASSWORD, vendorId))).toBe(200);
    expect(statusOf(await loginAt(node, email, PASSWORD, vendorId))).toBe(200);
    expect(statusOf(await loginAt(node, email, PASSWORD, vendorId))).toBe(429);
  });

  it('POST /user/register: the array form registers no one', async () => {
    const { node, vendorId } = await start();
    const email = freshEmail();
    const register = (value: unknown) =>
      http(`${node.url}/user/register`, { method: 'POST', body: { first_name: 'Ana', last_name: 'López', email_address: value, password: PASSWORD, terms: true, vendor: vendorId } });
    expect(statusOf(await register([email]))).toBe(400);
    expect(statusOf(await register([email]))).toBe(400);
    expect(statusOf(await register(email))).toBe(200);
  });

  it('GET /user/email/exists: ?email[]= answers nothing and is not counted', async () => {
    const { node, vendorId } = await start();
    const email = freshEmail();
    const bracketed = () => http(`${node.url}/user/email/exists?email[]=${encodeURIComponent(email)}&vendor=${vendorId}`);
    for (let i = 0; i < 3; i++) expect(statusOf(await bracketed())).toBe(400);
    expect(statusOf(await http(`${node.url}/user/email/exists?email=${encodeURIComponent(email)}&vendor=${vendorId}`))).toBe(200);
  });

  it('GET /user/email/exists: a decoy body field counts against the query value (which the route looks up), not the decoy', async () => {
    const { node, vendorId } = await start();
    const victim = freshEmail('victim');
    const decoy = freshEmail('decoy');
    const withDecoy = () => getWithBody(`${node.url}/user/email/exists?email=${encodeURIComponent(victim)}&vendor=${vendorId}`, { email: decoy });
    expect((await withDecoy()).status).toBe(200);
    expect((await withDecoy()).status).toBe(200);
    expect(await withDecoy()).toEqual({ status: 429, reason: 'rate_limited' });
    // The decoy was never looked up, so it was never counted.
    expect(statusOf(await http(`${node.url}/user/email/exists?email=${encodeURIComponent(decoy)}&vendor=${vendorId}`))).toBe(200);
  });

  it('GET /user/mobile/exists: a number in a GET body is counted as the string validation makes of it', async () => {
    const { node, vendorId } = await start();
    const lookUp = () => getWithBody(`${node.url}/user/mobile/exists?vendor=${vendorId}`, { mobile: 593991888001 });
    expect((await lookUp()).status).toBe(200);
    expect((await lookUp()).status).toBe(200);
    expect((await lookUp()).status).toBe(429);
    expect(statusOf(await http(`${node.url}/user/mobile/exists?mobile=593991888001&vendor=${vendorId}`))).toBe(429);
  });

  it('GET /card/balance: pin guesses with ?number[]= are refused before any pin is compared', async () => {
    const { node, vendorId, accessToken } = await start();
    expect((await http(`${node.url}/cards`, { method: 'POST', token: accessToken, body: { number: 'GIFT777', pin: '4321' } })).status).toBe(201);
    const guess = (number: string) => http(`${node.url}/card/balance?${number}&pin=0000&vendor=${vendorId}`);
    for (let i = 0; i < 3; i++) expect(statusOf(await guess('number[]=GIFT777'))).toBe(400);
    expect(statusOf(await guess('number=GIFT777'))).toBe(403);
    expect(statusOf(await guess('number=GIFT777'))).toBe(403);
    expect(statusOf(await guess('number=GIFT777'))).toBe(429);
  });
});
