import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transact } from '../../src/core/engine';
import { expirePoints } from '../../src/core/expiry/expire-points';
import { findBalanceMismatches, openAccount, postEntry } from '../../src/core/ledger/ledger';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { startTestNode, type TestNode } from '../support/test-node';

const DAY = 24 * 3600_000;

describe('points expiry job', () => {
  let node: TestNode;
  let vendor: VendorCredentials;
  let holder = 1000;

  beforeAll(async () => {
    node = await startTestNode();
    vendor = await node.addVendor();
  });
  afterAll(() => node.close());
  afterEach(async () => expect(await findBalanceMismatches(node.engine.db)).toEqual([]));

  async function account() {
    holder += 1;
    return transact(node.engine, (trx) => openAccount(trx, node.engine, { vendorId: vendor.vendorId, currencyId: vendor.loyaltyCurrencyId, holderType: 'user', holderId: holder }));
  }
  const post = (accountId: number, amount: number, kind: string, extra: { expiresAt?: number; reversesId?: number } = {}) =>
    transact(node.engine, (trx) => postEntry(trx, node.engine, accountId, { amount, kind, ...extra }));
  const balance = async (accountId: number) =>
    Number((await node.engine.db.selectFrom('ledger_accounts').select('balance').where('id', '=', accountId).executeTakeFirstOrThrow()).balance);
  const expiries = (accountId: number) => node.engine.db.selectFrom('ledger_entries').select('amount').where('account_id', '=', accountId).where('kind', '=', 'expiry').execute();

  it('expires what is left of lots past their date, spending having used the soonest first', async () => {
    const a = await account();
    const now = node.clock.now();
    await post(a, 100, 'earn', { expiresAt: now + 10 * DAY });
    await post(a, 50, 'earn', { expiresAt: now + 40 * DAY });
    await post(a, -30, 'redeem');
    node.clock.advance(11 * DAY);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(50); // 100 - 30 spent = 70 of the first lot expire
    expect(await expiries(a)).toEqual([{ amount: -70 }]);

    await expirePoints(node.engine);
    expect(await expiries(a)).toHaveLength(1); // a second run finds nothing new

    node.clock.advance(30 * DAY);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0);
  });

  it('never expires more than the balance, and not points of a voided lot', async () => {
    const a = await account();
    const now = node.clock.now();
    const lot = await post(a, 80, 'earn', { expiresAt: now + DAY });
    await post(a, -80, 'earn_reversal', { reversesId: lot.id });
    await post(a, 20, 'earn', { expiresAt: now + DAY });
    node.clock.advance(2 * DAY);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0);
    expect(await expiries(a)).toEqual([{ amount: -20 }]);
  });

  it('leaves points without an expiry date and points not yet due alone', async () => {
    const a = await account();
    await post(a, 40, 'earn');
    await post(a, 60, 'earn', { expiresAt: node.clock.now() + 5 * DAY });
    node.clock.advance(DAY);
    const result = await expirePoints(node.engine);
    expect(await balance(a)).toBe(100);
    expect(await expiries(a)).toEqual([]);
    expect(result).toEqual({ accounts: 0, points: 0 });
  });
});
