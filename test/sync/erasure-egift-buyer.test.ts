import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { issueCode } from '../../src/core/customers/one-time-codes';
import { openParams } from '../../src/core/messaging/sealed-params';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { claimEgift } from '../../src/core/payments/egifts/claim-egift';
import { sendEgift } from '../../src/core/payments/egifts/send-egift';
import { readChangesForNode } from '../../src/core/sync/central/read-changes';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { type CentralHandle, closedAfterEach, pairStore, startCentralOn, type StoreHandle } from './support/chain';

// The recipient's eGift history record names another customer: its receipt says
// `from: <buyer name>` (claim-egift.ts). When the buyer is erased, or leaves that program, the
// record keeps the amount without the name: at central, in its change log and at the stores.

const keep = closedAfterEach();

describe.each(BACKENDS)('an eGift buyer’s name in the recipient’s history ($name)', (backend) => {
  async function chain() {
    const clock = new ManualClock();
    const central = await startCentralOn(backend, clock, keep);
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    const buyer = await registerInStore(central.engine, scope, { email: 'quentavia@r2-gift.test', firstName: 'Quentavia' });
    const recipient = await registerInStore(central.engine, scope, { email: 'rita@r2-gift.test', firstName: 'Rita' });
    const recipientId = Number(recipient.session.user_id);
    const a: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    keep(a);
    await sendEgift(central.engine, {
      vendorId: central.vendor.vendorId,
      amount: 10,
      buyer: { name: 'Quentavia Buyer', email: 'quentavia@r2-gift.test' },
      recipient: { name: 'Rita', email: 'rita@r2-gift.test' },
      billing: { number: '4242424242424242', expiry: { month: '12', year: '2030' }, cvv: '123' },
      session: null,
    });
    const message = await central.engine.db.selectFrom('messages_outbox').select('params').where('recipient', '=', 'rita@r2-gift.test').orderBy('id', 'desc').executeTakeFirstOrThrow();
    await claimEgift(central.engine, { sessionId: 0, userId: recipientId, vendorId: central.vendor.vendorId }, (openParams(central.engine, message.params) as { code: string }).code);
    clock.advance(1000);
    await a.client.syncOnce();
    expect(await history(a, recipientId)).toContain('quentavia'); // the precondition: the record names the buyer
    return { clock, central, a, buyerId: Number(buyer.session.user_id), recipientId };
  }

  const history = async (store: { engine: CentralHandle['engine'] }, recipientId: number) =>
    JSON.stringify(await store.engine.db.selectFrom('transactions').select('receipts').where('user_id', '=', recipientId).where('kind', '=', 'egift').execute()).toLowerCase();

  async function deleteAndExpectNameGone({ clock, central, a, buyerId, recipientId }: Awaited<ReturnType<typeof chain>>) {
    const code = await issueCode(central.engine.db, central.engine, { userId: buyerId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code });
    clock.advance(1000);
    await a.client.syncOnce();
    expect.soft(await history(central, recipientId), 'central').not.toContain('quentavia');
    expect.soft(await history(a, recipientId), 'store A').not.toContain('quentavia');
    const node = { id: 0, vendorId: central.vendor.vendorId, storeId: central.vendor.storeId };
    expect.soft(JSON.stringify((await readChangesForNode(central.engine.db, node, 0, 10_000)).changes).toLowerCase(), 'pull from 0').not.toContain('quentavia');
  }

  it('the buyer’s erasure takes their name out, at central, in its log and at the stores', async () => {
    await deleteAndExpectNameGone(await chain());
  });

  it('the buyer leaving the program (still a customer of another) takes it out too', async () => {
    const setup = await chain();
    const { central, buyerId } = setup;
    const other = await setUpVendor(central.engine, { name: 'Other', currency: 'USD', country: 'US', store: { name: 'O', address1: '9 Elm', city: 'Ogdenville' } });
    await registerInStore(central.engine, await authenticateApiKey(central.engine, other.apiKey), { email: 'quentavia@r2-gift.test' });
    await sendEgift(central.engine, {
      vendorId: other.vendorId,
      amount: 5,
      buyer: { name: 'Quentavia Buyer', email: 'quentavia@r2-gift.test' },
      recipient: { name: 'Otto', email: 'otto@r2-gift.test' },
      billing: { number: '4242424242424242', expiry: { month: '12', year: '2030' }, cvv: '123' },
      session: null,
    });
    await deleteAndExpectNameGone(setup);
    expect((await central.engine.db.selectFrom('users').select('status').where('id', '=', buyerId).executeTakeFirstOrThrow()).status).not.toBe('deleted');
    // The left program's eGifts keep their amounts without the buyer; the other program's keep who bought them.
    const gifts = await central.engine.db.selectFrom('egifts').select(['vendor_id', 'amount', 'buyer_name', 'buyer_email', 'recipient_name']).orderBy('id').execute();
    expect(gifts.map((gift) => ({ ...gift, vendor_id: Number(gift.vendor_id), amount: Number(gift.amount) }))).toEqual([
      { vendor_id: central.vendor.vendorId, amount: 1000, buyer_name: '', buyer_email: '', recipient_name: 'Rita' },
      { vendor_id: other.vendorId, amount: 500, buyer_name: 'Quentavia Buyer', buyer_email: 'quentavia@r2-gift.test', recipient_name: 'Otto' },
    ]);
  });

  it('a recipient leaving the program is no longer named on the gifts they claimed there', async () => {
    const { central, recipientId } = await chain();
    const other = await setUpVendor(central.engine, { name: 'Other', currency: 'USD', country: 'US', store: { name: 'O', address1: '9 Elm', city: 'Ogdenville' } });
    await registerInStore(central.engine, await authenticateApiKey(central.engine, other.apiKey), { email: 'rita@r2-gift.test' });
    const code = await issueCode(central.engine.db, central.engine, { userId: recipientId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    // The claimed gift is money they hold there: given up in so many words.
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code, forfeitBalances: true });
    const gift = await central.engine.db.selectFrom('egifts').select(['amount', 'buyer_name', 'recipient_name', 'recipient_email', 'claimed_by_user_id']).executeTakeFirstOrThrow();
    expect({ ...gift, amount: Number(gift.amount), claimed_by_user_id: Number(gift.claimed_by_user_id) }).toEqual({ amount: 1000, buyer_name: 'Quentavia Buyer', recipient_name: '', recipient_email: '', claimed_by_user_id: recipientId });
  });
});
