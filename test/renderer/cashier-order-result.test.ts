import { describe, expect, it } from 'vitest';
import type { OrderReply } from '../../src/renderer/src/api/orders-api';
import { orderResultLines } from '../../src/renderer/src/cashier/order-result-lines';
import { useCashierStrings } from '../../src/renderer/src/cashier/strings';

// The order result's lines on the cashier panel, in English and Spanish: points earned by currency
// with the earning rules that gave them named, rewards redeemed, quick pay used, the auto reload.

const points = { id: 7, name: 'Points', code: null };
const stars = { id: 8, name: 'Stars', code: null };
const usd = { id: 9, name: 'US dollar', code: 'USD' };
const { en, es } = useCashierStrings.all;

function order(overrides: Partial<OrderReply> = {}): OrderReply {
  return {
    object: 'order',
    id: 1,
    receipt_number: 'R-1',
    status: 'Complete',
    date: 0,
    user: { user_id: '5', first_name: 'Ana', last_name: 'López' },
    points_earned: 0,
    points_spent: 0,
    quick_pay_used: 0,
    earned: [],
    redeemed: [],
    balances: { loyalty: [], quick_pay: { currency: usd, amount: 4 } },
    transaction_id: 3,
    auto_reload_queued: false,
    ...overrides,
  };
}

describe('order result lines', () => {
  it('names the earning rules: one total per currency, each rule with its part when more than one gave', () => {
    const two = order({
      earned: [
        { rule: '1 point per dollar', currency: points, points: 12_000 },
        { rule: 'Big spender bonus', currency: points, points: 6_000 },
        { rule: 'Stars per visit', currency: stars, points: 1 },
      ],
    });
    expect(orderResultLines(two, null, en, 'en', 'USD')).toEqual(['Points earned: 18,000 (1 point per dollar: 12,000, Big spender bonus: 6,000)', 'Stars earned: 1 (Stars per visit)']);
    // Spanish of a USD program writes numbers as the US does (es-US, format.ts numberLocale): 18,000, 6,000.
    expect(orderResultLines(two, null, es, 'es', 'USD')).toEqual(['Points ganados: 18,000 (1 point per dollar: 12,000, Big spender bonus: 6,000)', 'Stars ganados: 1 (Stars per visit)']);
    // A rule without a name (an older node) is counted, not named.
    expect(orderResultLines(order({ earned: [{ rule: '', currency: points, points: 12 }] }), null, en, 'en', 'USD')).toEqual(['Points earned: 12']);
  });

  it("says the auto reload is on its way, then that it arrived or was declined (the history record's word)", () => {
    const spent = order({ quick_pay_used: 9, auto_reload_queued: true });
    expect(orderResultLines(spent, { status: 'waiting', receipt: 'R-1' }, en, 'en', 'USD')).toEqual(['Paid $9.00 with quick pay', en.autoReloadQueued]);
    expect(orderResultLines(spent, { status: 'arrived', receipt: 'R-1', amount: 25, balance: 29 }, en, 'en', 'USD')[1]).toBe('Auto reload of $25.00 arrived: quick pay is now $29.00.');
    expect(orderResultLines(spent, { status: 'declined', receipt: 'R-1', amount: 25, balance: 4 }, en, 'en', 'USD')[1]).toBe('The auto reload of $25.00 was declined: nothing was loaded.');
    expect(orderResultLines(spent, { status: 'arrived', receipt: 'R-1', amount: 25, balance: 29 }, es, 'es', 'USD')[1]).toBe('Llegó la recarga automática de $25.00: el pago rápido es ahora $29.00.');
  });
});
