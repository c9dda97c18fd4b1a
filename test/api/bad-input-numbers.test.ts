import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Customer, expectLegacyError, FORM, ROOMY_RATE_LIMITS, signUpAt, withSessionKey } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// PUT /user/reload/settings: user_billingprofile is an integer, or null ("" or "null" in a form).
// Those two strings were why the strict-number check let every string through; "Numbers are strict"
// (docs/decisions.md) holds for this field too: only the literals, or plain decimal digits.

let node: TestNode;
let customer: Customer;

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  const { vendorId } = await node.addVendor('Numbers Coffee');
  customer = await signUpAt(node, vendorId);
});

afterAll(async () => {
  await node?.close();
});

const put = (body: unknown, headers?: Record<string, string>) =>
  http(`${node.url}${withSessionKey('/user/reload/settings', customer.key)}`, { method: 'PUT', body, ...(headers ? { headers } : {}) });

describe('user_billingprofile is a strict number', () => {
  it.each(['Infinity', '0x10', ' 5 ', '1e400', '9007199254740993', '5.', '+5', 'nul', 'NULL'])('%j: 400 validation_failed naming it', async (value) => {
    expectLegacyError(await put({ user_billingprofile: value }), 400, 'validation_failed', 'user_billingprofile');
  });

  it('the same in a form body', async () => {
    expectLegacyError(await put('user_billingprofile=Infinity', FORM), 400, 'validation_failed', 'user_billingprofile');
  });

  it('null, "" and "null" still turn auto reload off', async () => {
    for (const body of [{ user_billingprofile: null }, { user_billingprofile: '' }, { user_billingprofile: 'null' }, 'user_billingprofile=', 'user_billingprofile=null']) {
      const reply = await put(body, typeof body === 'string' ? FORM : undefined);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.user_billingprofile).toBeNull();
    }
  });
});
