import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transact } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { type AddedStore, inStoreApi } from '../support/in-store';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import { startTestNode, type TestNode } from '../support/test-node';

// The back office's customer ledger says where each entry happened (chain-operator report, twelfth
// round): an order's entries carry the store's name and the receipt number, its void's reversals
// the receipt they reverse; entries of no order (an adjustment, a promotion, whose reference is no
// number) carry none. Over real HTTP on a store node (SQLite) and a central node (PostgreSQL).

const NODES: Array<{ name: string; start(): Promise<ServedNode> }> = [
  { name: 'SQLite', start: () => startTestNode({ rateLimits: ROOMY_RATE_LIMITS }) },
  { name: 'PostgreSQL', start: () => startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS }) },
];

describe.each(NODES)('where a ledger entry happened, on $name', ({ start }) => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;
  const store = inStoreApi(asNode);
  let vendor: VendorCredentials;
  let uptown: AddedStore;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await start();
    vendor = await node.addVendor('Café Lugar');
    uptown = await store.addStore(vendor, 'Uptown Kiosk');
    owner = await ownerOf(asNode(), vendor.vendorId);
  }, 60_000);
  afterAll(() => node?.close());

  it('names the store and the receipt of an order’s entries, the receipt a void reverses, and nothing for entries of no order', async () => {
    const customer = await signUpAt(asNode(), vendor.vendorId);
    await store.orderOk(vendor.apiKey, { card_number: customer.email, receipt_number: 'MAIN-7', subtotal: 12 });
    node.clock.advance(60_000);
    await store.orderOk(uptown.apiKey, { card_number: customer.email, receipt_number: 'UP-31', subtotal: 20 });
    node.clock.advance(60_000);
    await store.voidOk(uptown.apiKey, 'UP-31');
    node.clock.advance(60_000);
    // A promotion's entry references its public id (not a number): PostgreSQL must not read it as an order's.
    await transact(node.engine, async (trx) => {
      const account = await openAccount(trx, node.engine, { vendorId: vendor.vendorId, currencyId: vendor.loyaltyCurrencyId, holderType: 'user', holderId: customer.userId });
      await postEntry(trx, node.engine, account, { amount: 5, kind: 'promotion', referenceType: 'promotion', referenceId: 'promo_spring' });
    });

    const reply = await staffCall(asNode(), owner.token, 'GET', `/backoffice/customers/${customer.userId}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const ledger = reply.body.ledger as Array<Record<string, unknown>>;
    const where = ledger.map((e) => [e['kind'], e['amount'], e['store_name'], e['receipt_number']]);
    expect(where).toEqual([
      ['promotion', 5, null, null],
      ['earn_reversal', -20, 'Uptown Kiosk', 'UP-31'],
      ['earn', 20, 'Uptown Kiosk', 'UP-31'],
      ['earn', 12, expect.stringMatching(/^Main/), 'MAIN-7'],
    ]);
    const [promotion, reversal, earned, first] = ledger;
    expect(promotion).toMatchObject({ store: null, reverses: null, reference_type: 'promotion', reference_id: 'promo_spring' });
    expect(reversal).toMatchObject({ store: uptown.storeId, reverses: earned!['id'] });
    expect(earned).toMatchObject({ store: uptown.storeId, reverses: null, reference_type: 'order' });
    expect(first).toMatchObject({ store: vendor.storeId, reverses: null });
  });
});
