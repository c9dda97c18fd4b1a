import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerApi, PASSWORD, ROOMY_RATE_LIMITS } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Apps build a call as base URL + path. A base configured as `https://host/` gives `//user/profile`;
// some HTTP wrappers add a trailing slash (`/user/profile/`). Both are the path the app means.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

const { vendor, signUp } = customerApi(() => node, { vendorName: 'Taquería' });
const { orderOk } = inStoreApi(() => node);
const enc = encodeURIComponent;

describe('a path with a trailing slash or doubled slashes is the same path', () => {
  it('reads the profile, logs in and answers 405 as without them', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    for (const path of ['/user/profile/', '//user/profile', '/user//profile', '/user/profile.json/']) {
      const reply = await http(`${node.url}${path}?session_key=${enc(c.key)}`);
      expect(reply.status, `${path}: ${JSON.stringify(reply.body)}`).toBe(200);
      expect(reply.body.object).toBe('user_vendor');
    }
    const login = await http(`${node.url}/user/authenticate/`, { method: 'POST', body: { email_address: c.email, password: PASSWORD, vendor: v.vendorId } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.object).toBe('user_session');

    const wrongMethod = await http(`${node.url}/user/profile/?session_key=${enc(c.key)}`, { method: 'PATCH' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.errors[0].reason).toBe('method_not_allowed');
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD, PUT, OPTIONS');
  });

  it('a history asked for as `//user/transaction/list/` pages with links on the node that work verbatim', async () => {
    const v = await vendor();
    const c = await signUp(v.vendorId);
    for (const receipt of ['s-1', 's-2', 's-3']) await orderOk(v.apiKey, { card_number: c.email, receipt_number: receipt, subtotal: 4 });

    const first = await http(`${node.url}//user/transaction/list/?session_key=${enc(c.key)}&limit=2`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toHaveLength(2);
    const next = new URL(first.body.next_page_url as string);
    expect(next.origin).toBe(new URL(node.url).origin);
    expect(next.pathname).toBe('/user/transaction/list');

    const second = await http(first.body.next_page_url as string);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.page).toBe(2);
    expect(second.body.data).toHaveLength(1);
  });

  it('leaves the root and unknown paths alone', async () => {
    const unknown = await http(`${node.url}/user/nothing-here/`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.errors[0].reason).toBe('route_not_found');
    // The docs page's own slash (Swagger UI's assets resolve against it) still serves the page.
    const docs = await fetch(`${node.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });
});
