import { describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/renderer/src/api/history-api';
import type { CustomerAtCounter, QueueEntry } from '../../src/renderer/src/api/terminal-api';
import { applyHistoryRecord, autoReload, nextExpiring, rewardChoices, rewardOptions, withOrderBalances, withTierMove } from '../../src/renderer/src/cashier/balances';
import { currencyDigits } from '../../src/renderer/src/format';
import { buildOrder, emptyDraft, itemsTotal, largeAmounts, maxQuickPay, newReceiptNumber, readAmount } from '../../src/renderer/src/cashier/order-draft';
import { createQueueStore, guessMethod } from '../../src/renderer/src/cashier/queue-store';
import { createShortcutGate, resolveShortcut } from '../../src/renderer/src/cashier/shortcuts';

// The cashier screen's pure parts: the order form's checks, the panel's readings of the retrieve
// reply, the queue's folding of reloads, and the shortcuts with their scanner-burst gate.

const expiring = (data: Array<{ date: number; amount: number }> = []) => ({ data, page_size: 25, count: data.length, page: 1 });
const points = { id: 7, name: 'Points', code: null };

function customer(overrides: Partial<CustomerAtCounter> = {}): CustomerAtCounter {
  return {
    pos_session: { pos_session_id: '1', object: 'pos_session', hash: 'h', status: { id: 1, name: 'Active' }, card: null, card_third_party: null, token: null },
    user: {
      object: 'user',
      id: '5',
      first_name: 'Ana',
      last_name: 'López',
      email_address: 'ana@example.com',
      phone_number: '',
      birthdate: null,
      language: 'en',
      contact_consent: 0,
      member_since: 0,
      is_verified: false,
      flagged: false,
      tier: null,
    },
    favourite_items: [],
    reload: { amount: 0, threshold: 0, billing_profile: null },
    favorite: null,
    last_visit: null,
    loyalty_balance: { data: [{ amount: 150, currency: points, expiring: expiring([{ date: 2000, amount: 40 }, { date: 1000, amount: 30 }]) }] },
    quick_pay_balance: { amount: 25, currency: { id: 8, name: 'Quick Pay USD', code: 'USD' }, expiring: expiring() },
    rules: { earning: { object: 'earning_rules', data: [] }, spending: { object: 'spending_rules', data: [] }, tier: { object: 'tier_rules', current: null, next: null, currency: null } },
    ...overrides,
  };
}

describe('order draft', () => {
  const context = { quickPayBalance: 20, digits: 2 };

  it('builds the body: subtotal, items, quick pay, rewards and the receipt kept from the draft', () => {
    const result = buildOrder({ subtotal: '12,50', items: [{ name: ' Latte ', quantity: '2', price: '6.25' }, { name: '', quantity: 1, price: '' }], quickPay: '5', rewards: ['rwd_a'], receiptNumber: 'R-1' }, context);
    expect(result).toEqual({
      ok: true,
      subtotal: 12.5,
      body: { receipt_number: 'R-1', subtotal: 12.5, items: [{ name: 'Latte', quantity: 2, price: 6.25 }], quick_pay: 5, redemptions: ['rwd_a'] },
    });
  });

  it('takes the items total when the subtotal is empty; needs one or the other', () => {
    expect(buildOrder({ ...emptyDraft('R'), items: [{ name: 'Tea', quantity: '', price: '3.10' }, { name: 'Bun', quantity: 2, price: 1.2 }] }, context)).toMatchObject({ ok: true, subtotal: 5.5 });
    expect(buildOrder(emptyDraft('R'), context)).toEqual({ ok: false, problems: { subtotal: 'subtotalMissing' } });
    expect(itemsTotal([{ name: 'Tea', quantity: 3, price: 0.1 }])).toBe(0.3);
  });

  it('reads amounts as cashiers type them, and refuses a thousands separator it would have to guess', () => {
    const read = { '12': 12, '12.5': 12.5, '12,50': 12.5, '0,500': 0.5, '1,000.50': 1000.5, '1.000,50': 1000.5, '1,000,000': 1_000_000, '1 000': 1000, '12,3456': 12.3456, ' 7 ': 7 };
    for (const [typed, value] of Object.entries(read)) expect(readAmount(typed), typed).toBe(value);
    for (const typed of ['1,000', '1.000', '12,345']) expect(readAmount(typed), typed).toBe('ambiguous');
    for (const typed of ['', '1e6', '1,00,000', '4.', '1,,000', 'abc', '$5', '0x10']) expect(readAmount(typed), typed).toBeNull();
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '1,000' }, context)).toEqual({ ok: false, problems: { subtotal: 'ambiguousAmount' } });
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '1,000.00', quickPay: '1.000' }, { quickPayBalance: 2000, digits: 2 })).toEqual({ ok: false, problems: { quickPay: 'ambiguousAmount' } });
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '1,000.00' }, context)).toMatchObject({ ok: true, subtotal: 1000 });
  });

  it('refuses bad amounts before the node does', () => {
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '-1' }, context)).toMatchObject({ ok: false, problems: { subtotal: 'subtotalInvalid' } });
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '1.2345' }, context)).toMatchObject({ ok: false, problems: { subtotal: 'tooManyDecimals' } });
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '1e6' }, context)).toMatchObject({ ok: false, problems: { subtotal: 'subtotalInvalid' } });
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '30', quickPay: '21' }, context)).toMatchObject({ ok: false, problems: { quickPay: 'quickPayOverBalance' } });
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '4', quickPay: '5' }, context)).toMatchObject({ ok: false, problems: { quickPay: 'quickPayOverSubtotal' } });
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '4', items: [{ name: 'Tea', quantity: 0, price: 1 }] }, context)).toMatchObject({ ok: false, problems: { items: 'itemInvalid' } });
    // A priced line without a name is incomplete, never left out of the sale.
    expect(buildOrder({ ...emptyDraft('R'), items: [{ name: 'Latte', quantity: 1, price: '4.50' }, { name: ' ', quantity: 2, price: '3' }] }, context)).toMatchObject({ ok: false, problems: { items: 'itemInvalid' } });
    expect(buildOrder({ ...emptyDraft('R'), subtotal: '1000', quickPay: '0.5' }, { quickPayBalance: 10, digits: 0 })).toMatchObject({ ok: false, problems: { quickPay: 'tooManyDecimals' } });
  });

  it('finds the unusually large amounts the cashier must confirm: above 10,000.00 (1,000,000 minor units)', () => {
    const body = (draft: Partial<Parameters<typeof buildOrder>[0]>, quickPayBalance = 50_000, digits = 2) => {
      const result = buildOrder({ ...emptyDraft('R'), ...draft }, { quickPayBalance, digits });
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      return result.body;
    };
    expect(largeAmounts(body({ subtotal: '1000000' }), 2)).toEqual([{ field: 'subtotal', amount: 1_000_000 }]);
    expect(largeAmounts(body({ subtotal: '10000' }), 2)).toEqual([]);
    expect(largeAmounts(body({ subtotal: '10000.01' }), 2)).toEqual([{ field: 'subtotal', amount: 10_000.01 }]);
    // Quick pay too; the items' total when it is not the subtotal typed.
    expect(largeAmounts(body({ subtotal: '20000', quickPay: '15000' }), 2)).toEqual([
      { field: 'subtotal', amount: 20_000 },
      { field: 'quickPay', amount: 15_000 },
    ]);
    expect(largeAmounts(body({ items: [{ name: 'Ring', quantity: 2, price: '6000' }] }), 2)).toEqual([{ field: 'subtotal', amount: 12_000 }]);
    // The subtotal box left empty: the subtotal is the items' total, and is named so.
    expect(largeAmounts(body({ items: [{ name: 'Ring', quantity: 2, price: '6000' }] }), 2, { subtotalTyped: false })).toEqual([{ field: 'items', amount: 12_000 }]);
    expect(largeAmounts(body({ subtotal: '12000', items: [{ name: 'Ring', quantity: 2, price: '6000' }] }), 2, { subtotalTyped: true })).toEqual([{ field: 'subtotal', amount: 12_000 }]);
    expect(largeAmounts(body({ subtotal: '20000' }), 2, { subtotalTyped: true })).toEqual([{ field: 'subtotal', amount: 20_000 }]);
    expect(largeAmounts(body({ subtotal: '12', items: [{ name: 'Ring', quantity: 2, price: '6000' }] }), 2)).toEqual([{ field: 'items', amount: 12_000 }]);
    // The same minor units in a currency without decimals: ¥15,000 is an ordinary sale.
    expect(largeAmounts(body({ subtotal: '15000' }, 0, 0), 0)).toEqual([]);
    expect(largeAmounts(body({ subtotal: '1000001' }, 0, 0), 0)).toEqual([{ field: 'subtotal', amount: 1_000_001 }]);
  });

  it('quick pay at most the balance and the subtotal; currency decimals; receipt numbers', () => {
    expect(maxQuickPay(20, 12.5)).toBe(12.5);
    expect(maxQuickPay(20, null)).toBe(20);
    expect(currencyDigits('JPY')).toBe(0);
    expect(currencyDigits(null)).toBe(2);
    expect(newReceiptNumber(new Date(2026, 10, 21, 9, 5, 7), () => 0)).toBe('261121-090507-000000');
    expect(newReceiptNumber()).toMatch(/^\d{6}-\d{6}-[0-9A-Z]{6}$/);
  });
});

describe('panel readings', () => {
  it('what expires next: the soonest date, never more than the balance', () => {
    expect(nextExpiring(expiring([{ date: 2000, amount: 40 }, { date: 1000, amount: 30 }]), 150)).toEqual({ date: 1000, amount: 30 });
    expect(nextExpiring(expiring([{ date: 1000, amount: 30 }]), 10)).toEqual({ date: 1000, amount: 10 });
    expect(nextExpiring(expiring(), 10)).toBeNull();
  });

  it('auto reload is on only with an amount, a threshold and a billing profile', () => {
    expect(autoReload({ amount: 20, threshold: 5, billing_profile: { id: 1 } })).toEqual({ on: true, amount: 20, threshold: 5 });
    expect(autoReload({ amount: 20, threshold: 5, billing_profile: null })).toEqual({ on: false });
    expect(autoReload({ amount: 0, threshold: 5, billing_profile: { id: 1 } })).toEqual({ on: false });
  });

  it('rewards from rules.spending, judged against the balance of their currency', () => {
    const c = customer({
      rules: {
        earning: { object: 'earning_rules', data: [] },
        spending: {
          object: 'spending_rules',
          data: [
            { object: 'reward', id: 'rwd_a', name: 'Free coffee', cost: 100, currency: points },
            { id: 'rwd_b', name: 'Mug', cost: 500, currency: { id: 7, name: 'Points' } },
            { id: 'rwd_c', name: 'Paused', cost: 1, currency: points, available: false },
            { name: 'no id', cost: 1 },
          ],
        },
        tier: { object: 'tier_rules', current: null, next: null, currency: null },
      },
    });
    expect(rewardOptions(c).map((r) => [r.id, r.affordable])).toEqual([
      ['rwd_a', true],
      ['rwd_b', false],
      ['rwd_c', false],
    ]);
  });

  it('a reward cannot be ticked beyond what is left of its currency after the rewards already ticked', () => {
    const stars = { id: 9, name: 'Stars', code: null };
    const reward = (id: string, cost: number, currency = points) => ({ id, name: id, cost, currency });
    const c = customer({
      loyalty_balance: {
        data: [
          { amount: 450, currency: points, expiring: expiring() },
          { amount: 30, currency: stars, expiring: expiring() },
        ],
      },
      rules: {
        earning: { object: 'earning_rules', data: [] },
        spending: {
          object: 'spending_rules',
          data: [reward('coffee', 100), reward('box', 250), reward('bag', 400), reward('mug', 500), reward('pin', 20, stars), { ...reward('gone', 10), available: false }],
        },
        tier: { object: 'tier_rules', current: null, next: null, currency: null },
      },
    });
    const rewards = rewardOptions(c);
    const blocked = (ticked: string[]) => Object.fromEntries(rewardChoices(rewards, ticked).map((r) => [r.reward.id, [r.blocked, r.left]]));
    // Nothing ticked: each is judged alone (the mug costs more than the 450 points; "gone" the node withholds).
    expect(blocked([])).toEqual({ coffee: [null, 450], box: [null, 450], bag: [null, 450], mug: ['notEnough', 450], pin: [null, 30], gone: ['unavailable', 450] });
    // The bag ticked leaves 50 points: the coffee and the box cannot join it; the pin is in stars.
    expect(blocked(['bag'])).toEqual({ coffee: ['notEnoughLeft', 50], box: ['notEnoughLeft', 50], bag: [null, 50], mug: ['notEnough', 50], pin: [null, 30], gone: ['unavailable', 50] });
    // Coffee and box together leave 100: the bag no longer fits, the ticked ones stay tickable.
    expect(blocked(['coffee', 'box'])).toMatchObject({ coffee: [null, 100], box: [null, 100], bag: ['notEnoughLeft', 100] });
    expect(blocked(['pin'])).toMatchObject({ pin: [null, 10], coffee: [null, 450] });
  });

  it("an order's balances replace the shown ones; a POS order's history record moves them", () => {
    const after = withOrderBalances(customer(), { balances: { loyalty: [{ currency: points, amount: 162 }], quick_pay: { currency: { id: 8, name: 'Quick Pay USD', code: 'USD' }, amount: 20 } }, earned: [{ rule: 'r', currency: points, points: 12 }] });
    expect(after.loyalty_balance.data[0]?.amount).toBe(162);
    // Nothing spent: 70 of 150 expiring stay as they were (the 12 earned expire after them).
    expect(after.loyalty_balance.data[0]?.expiring.data).toEqual([{ date: 2000, amount: 40 }, { date: 1000, amount: 30 }]);
    expect(after.quick_pay_balance.amount).toBe(20);
    const record = {
      object: 'order',
      quickpay: { object: 'quickpay', used: 5, loaded: 0, balance: 20 },
      rewards: [
        { object: 'reward', kind: 'earned', name: 'r', amount: 12, currency: 'Points' },
        { object: 'reward', kind: 'redeemed', name: 'Free coffee', amount: 100, currency: 'Points' },
      ],
    } as unknown as HistoryRecord;
    const moved = applyHistoryRecord(customer(), record);
    expect(moved.loyalty_balance.data[0]?.amount).toBe(62);
    expect(moved.quick_pay_balance.amount).toBe(20);
  });

  it('spending uses the soonest-expiring points first, as the node counts them (after an order, and after a POS sale)', () => {
    const shown = (c: CustomerAtCounter) => [c.loyalty_balance.data[0]?.expiring.data, c.loyalty_balance.data[0]?.expiring.count];
    const quickPay = { currency: { id: 8, name: 'Quick Pay USD', code: 'USD' }, amount: 25 };
    // 150 held, 70 of them expiring (30 at 1000, 40 at 2000), 80 that never expire. What expires is
    // capped by what is held, taken from the soonest: down to 80 nothing changes, at 50 the soonest lose 20.
    const spent = (amount: number, earned = 0) => withOrderBalances(customer(), { balances: { loyalty: [{ currency: points, amount }], quick_pay: quickPay }, earned: earned ? [{ rule: 'r', currency: points, points: earned }] : [] });
    expect(shown(spent(80))).toEqual([[{ date: 2000, amount: 40 }, { date: 1000, amount: 30 }], 2]);
    expect(shown(spent(50))).toEqual([[{ date: 1000, amount: 10 }, { date: 2000, amount: 40 }], 2]);
    expect(shown(spent(60))).toEqual([[{ date: 1000, amount: 20 }, { date: 2000, amount: 40 }], 2]);
    expect(shown(spent(40))).toEqual([[{ date: 2000, amount: 40 }], 1]);
    expect(shown(spent(0))).toEqual([[], 0]);
    // Spent 100 and earned 10 (new points expire last): 60 held, 10 of them new: 50 of the shown stay.
    expect(shown(spent(60, 10))).toEqual([[{ date: 1000, amount: 10 }, { date: 2000, amount: 40 }], 2]);
    expect(nextExpiring(spent(60, 10).loyalty_balance.data[0]!.expiring, 60)).toEqual({ date: 1000, amount: 10 });
    // The same from a POS sale's history record (redeemed 100, earned 10).
    const sale = { object: 'order', quickpay: { object: 'quickpay', used: 0, loaded: 0, balance: 25 }, rewards: [{ object: 'reward', kind: 'earned', name: 'r', amount: 10, currency: 'Points' }, { object: 'reward', kind: 'redeemed', name: 'Box', amount: 100, currency: 'Points' }] } as unknown as HistoryRecord;
    expect(shown(applyHistoryRecord(customer(), sale))).toEqual([[{ date: 1000, amount: 10 }, { date: 2000, amount: 40 }], 2]);
  });

  it('a void that brings a balance back to what the retrieve read shows what was read to expire then; any other void keeps what was shown', () => {
    // Read: 150, 70 of them expiring. The panel's sale redeemed 100 and earned 10 (new, expiring at 3000): 60 left.
    const read = customer().loyalty_balance.data;
    const afterSale = withOrderBalances(customer(), { balances: { loyalty: [{ currency: points, amount: 60, expiring: expiring([{ date: 1000, amount: 10 }, { date: 3000, amount: 10 }]) }], quick_pay: { currency: { id: 8, name: 'Quick Pay USD', code: 'USD' }, amount: 25 } }, earned: [{ rule: 'r', currency: points, points: 10 }] });
    const voidOf = (redeemed: number) =>
      ({ object: 'void', quickpay: { object: 'quickpay', used: 0, loaded: 0, balance: 25 }, rewards: [{ object: 'reward', kind: 'earned_reversed', name: 'r', amount: -10, currency: 'Points' }, { object: 'reward', kind: 'redeemed_reversed', name: 'Box', amount: redeemed, currency: 'Points' }] }) as unknown as HistoryRecord;
    const voided = applyHistoryRecord(afterSale, voidOf(100), read);
    expect(voided.loyalty_balance.data[0]?.amount).toBe(150);
    // The 30 at 1000 the redemption took are back: what the node says after the void (it said "10 at 1000, 10 at 3000").
    expect(voided.loyalty_balance.data[0]?.expiring).toEqual(read[0]!.expiring);
    // A void that does not bring the balance back to the read one (another sale's): what was shown stays.
    expect(applyHistoryRecord(afterSale, voidOf(50), read).loyalty_balance.data[0]?.expiring).toEqual(afterSale.loyalty_balance.data[0]?.expiring);
    expect(applyHistoryRecord(afterSale, voidOf(100)).loyalty_balance.data[0]?.expiring).toEqual(afterSale.loyalty_balance.data[0]?.expiring);
  });

  it('a tier change in the history moves the tier shown: described as a reply stated it, else by its name alone', () => {
    const tier = (id: number, name: string, threshold: number) => ({ object: 'tier' as const, id, name, summary: `${name} summary`, description: '', threshold });
    const [member, silver, gold, platinum] = [tier(1, 'Member', 0), tier(2, 'Silver', 60), tier(3, 'Gold', 200), tier(4, 'Platinum', 900)];
    const rules = (current: typeof member | null, next: typeof member | null) => ({ object: 'tier_rules' as const, current, next, currency: null });
    const moveTo = (to: string) => ({ object: 'tier_change', quickpay: { object: 'quickpay', used: 0, loaded: 0, balance: 25 }, rewards: [{ object: 'reward', kind: 'tier', name: `Gold → ${to}`, from: 'Gold', to, amount: 0 }] }) as unknown as HistoryRecord;
    // After an order that promoted Silver → Gold; before it, the retrieve said Silver, next Gold.
    const promoted = customer({ user: { ...customer().user, tier: gold }, rules: { ...customer().rules, tier: rules(gold, platinum) } });
    const shown = (c: CustomerAtCounter) => [c.user.tier, c.rules.tier.current, c.rules.tier.next];
    expect(shown(withTierMove(promoted, moveTo('Silver'), [rules(silver, gold)]))).toEqual([silver, silver, gold]);
    // A tier no reply stated as held: as described where one was (Silver, as next), else its name alone; the next one up is not known.
    expect(shown(withTierMove(promoted, moveTo('Silver'), [rules(member, silver)]))).toEqual([silver, silver, null]);
    expect(shown(withTierMove(promoted, moveTo('Bronze'), [rules(member, silver)]))).toEqual([{ object: 'tier', id: 0, name: 'Bronze', summary: '', description: '', threshold: 0 }, expect.objectContaining({ name: 'Bronze' }), null]);
    // Any other record, or a move to the tier shown, changes nothing.
    expect(withTierMove(promoted, moveTo('Gold'), [])).toBe(promoted);
    expect(withTierMove(promoted, { ...moveTo('Silver'), object: 'void' }, [rules(silver, gold)])).toBe(promoted);
  });
});

describe('queue store', () => {
  const entry = (id: number): QueueEntry => ({
    pos_session: {
      id,
      object: 'pos_session',
      hash: `h${id}`,
      date_created: 0,
      date_updated: 0,
      status: { id: 1, name: 'Active' },
      vendor: { vendor_id: 1, name: 'S' },
      user: { user_id: String(id), first_name: 'A', last_name: String(id), email_address: '' },
      table_number: null,
      redemptions: [],
      payments: [],
    },
  });

  it('folds reloads asked during a load into one more load; keeps the cursor on a row that exists', async () => {
    const replies = [[entry(1), entry(2), entry(3)], [entry(1), entry(3)]];
    let calls = 0;
    let release!: () => void;
    const store = createQueueStore({
      queue: async () => {
        const reply = replies[Math.min(calls++, replies.length - 1)]!;
        if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
        return reply;
      },
    });
    const first = store.getState().reload();
    void store.getState().reload();
    const third = store.getState().reload();
    release();
    await Promise.all([first, third]);
    expect(calls).toBe(2);
    expect(store.getState().entries.map((e) => e.id)).toEqual([1, 3]);
    expect(store.getState().phase).toBe('ready');

    store.getState().setCursor('h3');
    store.getState().drop('h3');
    expect(store.getState().cursor).toBe('h1');
  });

  it('a failed load keeps the last entries and the message', async () => {
    let fail = false;
    const store = createQueueStore({
      queue: async () => {
        if (fail) throw new Error('The node answered HTTP 500.');
        return [entry(1)];
      },
    });
    await store.getState().reload();
    fail = true;
    await store.getState().reload();
    expect(store.getState()).toMatchObject({ phase: 'error', error: 'The node answered HTTP 500.' });
    expect(store.getState().entries).toHaveLength(1);
  });

  it('guesses how a typed identification was given', () => {
    expect(guessMethod('ana@example.com')).toBe('email');
    expect(guessMethod('PC8H2K')).toBe('app');
    expect(guessMethod('+1 415 555 0134')).toBe('phone');
    expect(guessMethod('DEMO0001')).toBe('typed');
    expect(guessMethod('(415) 555-0110')).toBe('phone');
    expect(guessMethod('415-555-0110')).toBe('phone');
    // Digits alone may be a card: the panel tells when a card matched.
    expect(guessMethod('4155550113')).toBe('typed');
    expect(guessMethod('12-34')).toBe('typed');
  });
});

describe('shortcuts', () => {
  const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, ...mods });
  const body = { editable: false, activatable: false, dialogOpen: false };

  it('maps keys to actions where they apply', () => {
    expect(resolveShortcut(key('j'), body)).toEqual({ action: 'next', guarded: true });
    expect(resolveShortcut(key('ArrowUp'), body)).toEqual({ action: 'previous', guarded: false });
    expect(resolveShortcut(key('F2'), { ...body, editable: true })).toEqual({ action: 'focusCheckIn', guarded: false });
    expect(resolveShortcut(key('o'), { ...body, editable: true })).toBeNull();
    expect(resolveShortcut(key('Escape'), { ...body, editable: true })).toEqual({ action: 'leaveField', guarded: false });
    expect(resolveShortcut(key('Enter'), { ...body, activatable: true })).toBeNull();
    expect(resolveShortcut(key('x'), { ...body, dialogOpen: true })).toBeNull();
    expect(resolveShortcut(key('o', { ctrlKey: true }), body)).toBeNull();
    expect(resolveShortcut(key('?'), body)).toEqual({ action: 'help', guarded: true });
  });

  it('Enter on the customer panel (its name, an order just placed) is not the queue\'s: it opens no one; O still orders there', () => {
    expect(resolveShortcut(key('Enter'), body)).toEqual({ action: 'open', guarded: true });
    expect(resolveShortcut(key('Enter'), { ...body, inPanel: true })).toBeNull();
    expect(resolveShortcut(key('o'), { ...body, inPanel: true })).toEqual({ action: 'order', guarded: true });
  });

  it('a lone key fires after a quiet moment; a scanner burst fires nothing', () => {
    let now = 0;
    const timers: Array<{ at: number; run: () => void; cancelled: boolean }> = [];
    const gate = createShortcutGate(50, {
      now: () => now,
      schedule: (run, ms) => {
        const timer = { at: now + ms, run, cancelled: false };
        timers.push(timer);
        return timer;
      },
      cancel: (handle) => ((handle as { cancelled: boolean }).cancelled = true),
    });
    const fired: string[] = [];
    const advance = (ms: number) => {
      now += ms;
      for (const t of timers) {
        if (t.cancelled || t.at > now) continue;
        t.cancelled = true;
        t.run();
      }
    };
    const press = (k: string) => gate.key(resolveShortcut(key(k), body), (a) => fired.push(a));

    press('o');
    advance(60);
    expect(fired).toEqual(['order']);

    // "JOKX" + Enter typed by a wedge scanner 8 ms apart
    advance(500);
    for (const k of ['j', 'o', 'k', 'x', 'Enter']) {
      press(k);
      advance(8);
    }
    advance(200);
    expect(fired).toEqual(['order']);

    press('ArrowDown');
    expect(fired).toEqual(['order', 'next']);

    // The screen goes away while a lone key waits for quiet: it never fires.
    advance(500);
    press('x');
    gate.cancel();
    advance(200);
    expect(fired).toEqual(['order', 'next']);
  });
});
