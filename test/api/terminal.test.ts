import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The screens' login check: a key tells who it acts for and in which role (docs/decisions.md, terminal).
describe('GET /app/terminal', () => {
  let node: TestNode;
  let vendor: VendorCredentials;

  beforeAll(async () => {
    node = await startTestNode();
    vendor = await node.addVendor();
  });
  afterAll(() => node.close());

  it('describes a cashier key: role, vendor, store, point of sale, money, language and country', async () => {
    const reply = await http(`${node.url}/app/terminal?api_key=${vendor.apiKey}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ object: 'terminal', role: 'cashier', vendor: { id: vendor.vendorId }, store: { id: vendor.storeId }, quick_pay_currency: 'USD', language: 'en', country: 'US' });
    expect(reply.body.point_of_sale).toMatchObject({ id: expect.any(Number), name: expect.any(String) });
  });

  it('describes a kiosk key as a kiosk without a point of sale', async () => {
    const reply = await http(`${node.url}/app/terminal?api_key=${vendor.kioskApiKey}`);
    expect(reply.status).toBe(200);
    expect(reply.body.role).toBe('kiosk');
    expect(reply.body.point_of_sale).toBeNull();
  });

  it('refuses a missing or unknown key with the legacy envelope', async () => {
    const missing = await http(`${node.url}/app/terminal`);
    expect(missing.status).toBe(401);
    expect(missing.body.error.errors[0].reason).toBe('missing_credentials');
    const unknown = await http(`${node.url}/app/terminal?api_key=nope`);
    expect(unknown.status).toBe(401);
  });
});
