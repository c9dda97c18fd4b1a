import { describe, expect, it } from 'vitest';
import { resolveChainException } from '../../src/core/chain-health/chain-health';
import { transact } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { createSpendingRule } from '../../src/core/rules/spending/create-spending-rule';
import { addOwner } from '../../src/core/staff/add-owner';
import type { StaffPrincipal } from '../../src/core/staff/staff-sessions';
import { ManualClock } from '../support/clock';
import { addStore, centralDatabases, closedAfterEach, pairStoreBehindSwitch, startCentral } from './support/chain';

// Fifteenth round, a chain operator played: staff resolved an offline overdraft by hand while the
// points were still below zero (they agreed it with the customer), and the next sale that earned
// the customer 5 points opened it again ("Points spent … left a balance of -16 Points", though
// nothing was spent). A resolved overdraft now stays resolved unless the balance goes further below
// what it was when staff resolved it, or it was settled and went below zero again.

const keep = closedAfterEach();

describe.each(centralDatabases(keep))('an overdraft resolved by hand ($name)', ({ database: open }) => {
  /** Central and three paired stores A, B, C; Eve joined at A with 10 points, which all three have seen. */
  const chainWithEve = async () => {
    const clock = new ManualClock();
    const central = keep(await startCentral(clock, await open()));
    const { vendorId, loyaltyCurrencyId } = central.vendor;
    const [a, b, c] = [
      keep(await pairStoreBehindSwitch(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey })),
      keep(await pairStoreBehindSwitch(central, clock, await addStore(central, 'B'))),
      keep(await pairStoreBehindSwitch(central, clock, await addStore(central, 'C'))),
    ];
    const points = await central.engine.db.selectFrom('currencies').select('public_id').where('id', '=', loyaltyCurrencyId).executeTakeFirstOrThrow();
    const tea = await createSpendingRule(central.engine, { vendorId }, { name: 'Tea', cost: 8, currency: points.public_id });
    const joined = await registerInStore(a.engine, await a.scope(), { email: 'eve@example.com', firstName: 'Eve', lastName: 'Debtor' });
    const userId = Number(joined.session.user_id);
    await placeOrder(a.engine, await a.scope(), { identification: 'eve@example.com', receiptNumber: 'A-1', subtotal: 10 });
    const sync = async (...stores: Array<typeof a>) => {
      for (let round = 0; round < 2; round += 1) for (const store of stores) await store.client.syncOnce();
    };
    await sync(a, b, c);
    const subject = `user ${userId} currency ${loyaltyCurrencyId}`;
    const overdrafts = async () =>
      (await central.engine.db.selectFrom('sync_exceptions').select(['id', 'resolved_at', 'message']).where('subject', '=', subject).orderBy('id').execute()).map((e) => ({
        id: Number(e.id),
        open: e.resolved_at === null,
        balance: Number(/left a balance of (-?\d+) Points/.exec(e.message)?.[1]),
      }));
    const { staff } = await addOwner(central.engine, { vendorId, email: 'owner@example.com', name: 'Owner', password: 'correct horse battery' });
    const owner: StaffPrincipal = { sessionId: 0, staffId: staff.id, vendorId, email: staff.email, name: staff.name, role: 'owner', storeId: null };
    const resolveOpen = async () => {
      const open = (await overdrafts()).filter((e) => e.open);
      expect(open).toHaveLength(1);
      await resolveChainException(central.engine, owner, open[0]!.id, 'Agreed with the customer');
    };
    const sell = async (store: typeof a, receipt: string, order: { subtotal: number; redemptions?: string[] }) =>
      placeOrder(store.engine, await store.scope(), { identification: 'eve@example.com', receiptNumber: receipt, ...order });

    return { central, a, b, c, overdrafts, resolveOpen, sell, sync, tea, vendorId, loyaltyCurrencyId, userId };
  };

  it('stays resolved while the balance is no lower, and opens again below it or after a settlement', async () => {
    const { central, a, b, c, overdrafts, resolveOpen, sell, sync, tea, vendorId, loyaltyCurrencyId, userId } = await chainWithEve();
    // All three saw 10 points; offline, each gives Eve a tea (8 points).
    for (const store of [a, b, c]) {
      store.link.down = true;
      await store.client.syncOnce().catch(() => undefined);
    }
    for (const [store, receipt] of [[a, 'A-2'], [b, 'B-2'], [c, 'C-2']] as const) await sell(store, receipt, { subtotal: 0, redemptions: [tea.publicId] });
    a.link.down = false;
    b.link.down = false;
    await sync(a, b);
    expect(await overdrafts()).toEqual([{ id: expect.any(Number), open: true, balance: -6 }]);

    // Staff resolve it by hand at -6; a sale earning 1 point, then one earning nothing, reach the account.
    await resolveOpen();
    await sell(a, 'A-3', { subtotal: 1 });
    await sync(a, b);
    await sell(b, 'B-3', { subtotal: 0 });
    await sync(a, b);
    expect(await overdrafts()).toEqual([{ id: expect.any(Number), open: false, balance: -6 }]);

    // C's offline tea lands: -5 - 8 = -13, below the -6 staff accepted: they hear of it.
    c.link.down = false;
    await sync(c);
    expect((await overdrafts()).map(({ open, balance }) => ({ open, balance }))).toEqual([
      { open: false, balance: -6 },
      { open: true, balance: -13 },
    ]);

    // Resolved by hand again at -13; then the debt is settled at central (+13) and the flag lifts.
    await resolveOpen();
    const adjust = (amount: number) =>
      transact(central.engine, async (trx) => {
        const account = await openAccount(trx, central.engine, { vendorId, currencyId: loyaltyCurrencyId, holderType: 'user', holderId: userId });
        await postEntry(trx, central.engine, account, { amount, kind: 'adjustment' });
      });
    await adjust(13);
    await adjust(10);
    await sync(a, b, c);
    // A, offline with the 10 it saw, gives a tea while central takes the 10 back: -8, above -13 but a new debt.
    a.link.down = true;
    await sell(a, 'A-4', { subtotal: 0, redemptions: [tea.publicId] });
    await adjust(-10);
    a.link.down = false;
    await sync(a);
    expect((await overdrafts()).map(({ open, balance }) => ({ open, balance }))).toEqual([
      { open: false, balance: -6 },
      { open: false, balance: -13 },
      { open: true, balance: -8 },
    ]);
  });

  it('accepts only the debt its message showed: a spend that landed while it was open is news after the resolve', async () => {
    const { a, b, c, overdrafts, resolveOpen, sell, sync, tea } = await chainWithEve();
    for (const store of [a, b, c]) {
      store.link.down = true;
      await store.client.syncOnce().catch(() => undefined);
    }
    for (const [store, receipt] of [[a, 'A-2'], [b, 'B-2'], [c, 'C-2']] as const) await sell(store, receipt, { subtotal: 0, redemptions: [tea.publicId] });
    a.link.down = false;
    b.link.down = false;
    await sync(a, b);
    // C's tea lands while the exception says -6: the balance is -14, the open exception unchanged.
    c.link.down = false;
    await sync(c);
    expect(await overdrafts()).toEqual([{ id: expect.any(Number), open: true, balance: -6 }]);

    // Staff resolve what they were shown (-6). A sale earning 1 point leaves -13: below -6, news.
    await resolveOpen();
    await sell(a, 'A-3', { subtotal: 1 });
    await sync(a);
    expect((await overdrafts()).map(({ open, balance }) => ({ open, balance }))).toEqual([
      { open: false, balance: -6 },
      { open: true, balance: -13 },
    ]);
  });
});
