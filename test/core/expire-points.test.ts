import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transact } from '../../src/core/engine';
import { expirePoints } from '../../src/core/expiry/expire-points';
import { findBalanceMismatches, openAccount, postEntry } from '../../src/core/ledger/ledger';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { startTestNode, type TestNode } from '../support/test-node';

const DAY = 24 * 3600_000;

/** Accounts of new holders in `vendor`'s points, entries posted to them, and what they hold. */
function ledgerOf(node: TestNode, vendor: VendorCredentials) {
  return {
    // A real member each (the job writes the expiry into their history).
    account: async () => {
      const { userId } = await signUpAt(node, vendor.vendorId);
      return transact(node.engine, (trx) => openAccount(trx, node.engine, { vendorId: vendor.vendorId, currencyId: vendor.loyaltyCurrencyId, holderType: 'user', holderId: userId }));
    },
    post: (accountId: number, amount: number, kind: string, extra: { expiresAt?: number; reversesId?: number } = {}) =>
      transact(node.engine, (trx) => postEntry(trx, node.engine, accountId, { amount, kind, ...extra })),
    balance: async (accountId: number) => Number((await node.engine.db.selectFrom('ledger_accounts').select('balance').where('id', '=', accountId).executeTakeFirstOrThrow()).balance),
    expiries: (accountId: number) => node.engine.db.selectFrom('ledger_entries').select('amount').where('account_id', '=', accountId).where('kind', '=', 'expiry').execute(),
  };
}

describe('points expiry job', () => {
  let node: TestNode;
  let ledger: ReturnType<typeof ledgerOf>;

  beforeAll(async () => {
    node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
    ledger = ledgerOf(node, await node.addVendor());
  });
  afterAll(() => node.close());
  afterEach(async () => expect(await findBalanceMismatches(node.engine.db)).toEqual([]));

  const account = () => ledger.account();
  const post: ReturnType<typeof ledgerOf>['post'] = (...args) => ledger.post(...args);
  const balance = (accountId: number) => ledger.balance(accountId);
  const expiries = (accountId: number) => ledger.expiries(accountId);

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

  it('gives back what expired of a lot voided afterwards; only points earned and spent stay below zero', async () => {
    const a = await account();
    const now = node.clock.now();
    const lot = await post(a, 100, 'earn', { expiresAt: now + DAY });
    node.clock.advance(2 * DAY);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0);
    await post(a, -100, 'earn_reversal', { reversesId: lot.id });
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0); // once

    const b = await account();
    const spentLot = await post(b, 100, 'earn', { expiresAt: node.clock.now() + DAY });
    await post(b, -30, 'redeem');
    node.clock.advance(2 * DAY);
    await expirePoints(node.engine);
    expect(await balance(b)).toBe(0); // 70 expired
    await post(b, -100, 'earn_reversal', { reversesId: spentLot.id });
    await expirePoints(node.engine);
    expect(await balance(b)).toBe(-30); // the 30 spent of a voided sale: the merchant's refund stands
  });

  it('gives nothing back when a voided lot had been spent, not expired (another lot expired before it)', async () => {
    // The bookkeeper's case: an old lot expires, a newer one is earned and spent, then that sale is
    // voided after its date. What expired was the old lot's; the voided lot's points were spent, so
    // the customer owes them: nothing comes back.
    const a = await account();
    await post(a, 100, 'earn', { expiresAt: node.clock.now() + 30 * DAY });
    node.clock.advance(31 * DAY);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0);
    const newer = await post(a, 100, 'earn', { expiresAt: node.clock.now() + 30 * DAY });
    await post(a, -100, 'redeem');
    node.clock.advance(31 * DAY);
    await expirePoints(node.engine);
    await post(a, -100, 'earn_reversal', { reversesId: newer.id });
    await expirePoints(node.engine);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(-100);
    expect(await node.engine.db.selectFrom('ledger_entries').select('id').where('account_id', '=', a).where('kind', '=', 'expiry_return').execute()).toEqual([]);
  });

  it('gives back only the part of a voided lot that expired, not the part spent', async () => {
    const a = await account();
    const lot = await post(a, 100, 'earn', { expiresAt: node.clock.now() + DAY });
    await post(a, 50, 'earn', { expiresAt: node.clock.now() + 60 * DAY });
    await post(a, -40, 'redeem'); // from the first lot, soonest to expire
    node.clock.advance(2 * DAY);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(50); // 60 expired
    await post(a, -100, 'earn_reversal', { reversesId: lot.id });
    await expirePoints(node.engine);
    // 60 come back; the 40 spent of the voided lot are taken from the other lot (as if the redeem had used it).
    expect(await balance(a)).toBe(10);
    node.clock.advance(60 * DAY);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0);
  });

  it('gives nothing back when points are spent from a newer lot after an older one expired', async () => {
    const a = await account();
    await post(a, 100, 'earn', { expiresAt: node.clock.now() + DAY });
    node.clock.advance(2 * DAY);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0);
    await post(a, 300, 'earn', { expiresAt: node.clock.now() + 30 * DAY });
    await post(a, -50, 'redeem');
    await expirePoints(node.engine);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(250);
  });

  it('a void repeated at two nodes (a reversal undone as void_repeated) neither expires nor returns anything more', async () => {
    const a = await account();
    const now = node.clock.now();
    await post(a, 50, 'earn', { expiresAt: now + DAY });
    node.clock.advance(2 * DAY);
    await expirePoints(node.engine);
    const lot = await post(a, 100, 'earn', { expiresAt: node.clock.now() + DAY });
    await post(a, -100, 'earn_reversal', { reversesId: lot.id });
    const repeat = await post(a, -100, 'earn_reversal', { reversesId: lot.id });
    await post(a, 100, 'void_repeated', { reversesId: repeat.id });
    node.clock.advance(2 * DAY);
    await expirePoints(node.engine);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0);
    expect(await expiries(a)).toEqual([{ amount: -50 }]);
  });

  it('lets requests in after each account, and a stop leaves the rest to the next run', async () => {
    const due = [await account(), await account(), await account()];
    for (const a of due) await post(a, 10, 'earn', { expiresAt: node.clock.now() + DAY });
    node.clock.advance(2 * DAY);
    let calls = 0;
    const stopped = await expirePoints(node.engine, async () => {
      calls += 1;
      await new Promise((resolve) => setImmediate(resolve));
      return false;
    });
    expect([stopped.accounts, calls]).toEqual([1, 1]);
    const rest = await expirePoints(node.engine, async () => true);
    expect(rest.accounts).toBe(2);
    for (const a of due) expect(await balance(a)).toBe(0);
  });

  it('expires points a promotion awarded like points earned', async () => {
    const a = await account();
    await post(a, 25, 'promotion', { expiresAt: node.clock.now() + DAY });
    node.clock.advance(2 * DAY);
    await expirePoints(node.engine);
    expect(await balance(a)).toBe(0);
    expect(await expiries(a)).toEqual([{ amount: -25 }]);
  });

  it('leaves points without an expiry date and points not yet due alone', async () => {
    const a = await account();
    await post(a, 40, 'earn');
    await post(a, 60, 'earn', { expiresAt: node.clock.now() + 5 * DAY });
    node.clock.advance(DAY);
    const result = await expirePoints(node.engine);
    expect(await balance(a)).toBe(100);
    expect(await expiries(a)).toEqual([]);
    expect(result).toMatchObject({ accounts: 0, points: 0 });
  });
});

describe('points expiry job, run after run', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
  });
  afterAll(() => node.close());

  it('examines only accounts with a lot dated since the last run or an entry since; refunds and late lots still expire', async () => {
    const engine = node.engine;
    const { account, post, balance } = ledgerOf(node, await node.addVendor());
    const start = node.clock.now();
    const a = await account();
    const b = await account();
    const quiet = [await account(), await account(), await account()];
    await post(a, 100, 'earn', { expiresAt: start + 10 * DAY });
    const redeem = await post(a, -30, 'redeem');
    for (const q of quiet) await post(q, 10, 'earn', { expiresAt: start + 5 * DAY });
    node.clock.advance(11 * DAY);
    // The first run examines every account with a lot past its date.
    expect(await expirePoints(engine)).toEqual({ accounts: 4, points: 70 + 30, examined: 4 });
    expect(await balance(a)).toBe(0);

    // An hour later nothing was dated or changed since (the accounts the run itself wrote to, within the margin, are read once more).
    node.clock.advance(3_600_000);
    expect(await expirePoints(engine)).toMatchObject({ accounts: 0, examined: 4 });
    node.clock.advance(3_600_000);
    expect(await expirePoints(engine)).toEqual({ accounts: 0, points: 0, examined: 0 });

    // The redemption refunded after its lot expired: the points come back and expire at the next run.
    await post(a, 30, 'redeem_reversal', { reversesId: redeem.id });
    // A lot that arrives already past its date (an offline store's, pulled late).
    await post(b, 25, 'earn', { expiresAt: start + 2 * DAY });
    node.clock.advance(3_600_000);
    expect(await expirePoints(engine)).toEqual({ accounts: 2, points: 30 + 25, examined: 2 });
    expect(await balance(a)).toBe(0);
    expect(await balance(b)).toBe(0);

    // A lot reaching its date between runs: its account alone.
    await post(quiet[0]!, 7, 'earn', { expiresAt: node.clock.now() + 2 * 3_600_000 });
    node.clock.advance(3 * 3_600_000);
    expect(await expirePoints(engine)).toEqual({ accounts: 1, points: 7, examined: 3 }); // its account, and a and b written by the last run
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });
});
