import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequester } from '../../src/renderer/src/api/client';
import { createHistoryApi } from '../../src/renderer/src/api/history-api';
import { createOrdersApi } from '../../src/renderer/src/api/orders-api';
import { createTerminalApi } from '../../src/renderer/src/api/terminal-api';
import { createCashier } from '../../src/renderer/src/cashier/cashier-controller';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { startTestNode, type TestNode } from '../support/test-node';

// A cashier screen that heard nothing while the session it shows ended (its event stream was away:
// the node restarting, the network): the order it then places is refused with session_not_found.
// The panel ends as the missed events would have ended it — by the sale its history now shows (the
// balances after it), or as closed elsewhere — not with the refusal and actions on a session gone.
let node: TestNode;
const { credit, checkInSessionOk, orderOk, closeOk } = inStoreApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

/** A cashier whose event stream delivers nothing (missed events), showing a fresh customer's session. */
async function deafCounter() {
  const v = await node.addVendor();
  const api = createTerminalApi(createRequester({ baseUrl: node.url, credential: null }), v.apiKey);
  const events = { subscribe: () => () => undefined, onResync: () => () => undefined };
  const cashier = createCashier({ api, orders: createOrdersApi(api.request, api.apiKey), history: createHistoryApi(api.request, api.apiKey), events });
  const c = await signUpAt(node, v.vendorId, { first_name: 'Ana', last_name: 'Gone' });
  await credit(v, v.loyaltyCurrencyId, c.userId, 100);
  const session = await checkInSessionOk(v.apiKey, c.email);
  await cashier.customer.getState().open(session.hash, session.id);
  await cashier.customer.getState().reloadHistory();
  expect(cashier.customer.getState().phase).toBe('ready');
  return { v, cashier, session };
}

const points = (cashier: Awaited<ReturnType<typeof deafCounter>>['cashier']) => cashier.customer.getState().customer!.loyalty_balance.data.find((b) => b.currency.name === 'Points')?.amount;

describe('an order refused because the session ended unheard', () => {
  it('a sale rung up meanwhile: the panel ends by it, with the points it earned', async () => {
    const { v, cashier, session } = await deafCounter();
    expect(points(cashier)).toBe(100);
    await orderOk(v.apiKey, { pos_session_hash: session.hash, receipt_number: 'POS-GONE-1', subtotal: 12 });

    expect(await cashier.customer.getState().placeOrder({ receipt_number: 'SCREEN-GONE-1', subtotal: 5 })).toBeNull();
    const panel = cashier.customer.getState();
    expect({ ended: panel.ended, orderError: panel.orderError, busy: panel.busy }).toEqual({ ended: 'order', orderError: null, busy: null });
    expect(points(cashier)).toBe(112);
  });

  it('closed at another counter meanwhile: the panel says closed elsewhere', async () => {
    const { v, cashier, session } = await deafCounter();
    await closeOk(v.apiKey, session.hash);

    expect(await cashier.customer.getState().placeOrder({ receipt_number: 'SCREEN-GONE-2', subtotal: 5 })).toBeNull();
    const panel = cashier.customer.getState();
    expect({ ended: panel.ended, orderError: panel.orderError }).toEqual({ ended: 'closed', orderError: null });
    expect(points(cashier)).toBe(100);
  });
});
