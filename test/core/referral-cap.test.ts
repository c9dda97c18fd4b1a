import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinByReferral, REFERRAL_CREDITS_PER_WINDOW, REFERRAL_WINDOW_DAYS } from '../../src/core/customers/join-by-referral';
import { holderBalance } from '../../src/core/ledger/ledger';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Referral points farmed with made-up friends (each sign-up costs only an email): a member is
// credited for at most REFERRAL_CREDITS_PER_WINDOW friends in REFERRAL_WINDOW_DAYS; the friends
// past it join all the same.

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});
afterAll(() => node?.close());

describe('referral credits', () => {
  it('stop at the cap in the window, the friends still join, and start again once it has passed', async () => {
    const v = await node.addVendor('Referral Cap');
    expect((await http(`${node.url}/program/settings`, { method: 'PUT', token: v.accessToken, body: { referral_points: 50 } })).status).toBe(200);
    const referrer = await signUpAt(node, v.vendorId, { first_name: 'Rita' });
    const { referral_code: code } = await node.engine.db.selectFrom('user_vendors').select('referral_code').where('user_id', '=', referrer.userId).where('vendor_id', '=', v.vendorId).executeTakeFirstOrThrow();
    const join = (i: number) => joinByReferral(node.engine, { code: code!, firstName: `Friend${i}`, lastName: 'X', email: `friend${i}@cap.test`, password: 'friendly password', language: 1 });
    const credited: number[] = [];
    for (let i = 0; i < REFERRAL_CREDITS_PER_WINDOW + 2; i += 1) credited.push((await join(i)).credited);
    expect(credited).toEqual([...Array<number>(REFERRAL_CREDITS_PER_WINDOW).fill(50), 0, 0]);
    const points = () => holderBalance(node.engine.db, { holderType: 'user', holderId: referrer.userId, currencyId: v.loyaltyCurrencyId });
    expect(await points()).toBe(50 * REFERRAL_CREDITS_PER_WINDOW);
    const members = await node.engine.db.selectFrom('user_vendors').select('id').where('vendor_id', '=', v.vendorId).execute();
    expect(members).toHaveLength(REFERRAL_CREDITS_PER_WINDOW + 3);

    node.clock.advance(REFERRAL_WINDOW_DAYS * 86_400_000 + 1);
    expect((await join(99)).credited).toBe(50);
  });
});
