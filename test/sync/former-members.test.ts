import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { issueCode } from '../../src/core/customers/one-time-codes';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { readChangesForNode } from '../../src/core/sync/central/read-changes';
import { readSnapshotPageJson } from '../../src/core/sync/central/read-snapshot';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, closedAfterEach, pairStore, startCentralOn, type StoreHandle } from './support/chain';

// A customer who left a program (deleted their account there) but stays with another program on
// the same central (docs/sync.md, "Customers who left a program"): the first program's stores keep
// their row for the sales that point at it, without their name, email or phone, and hear nothing of
// later changes to who they are; joining again brings them back whole.

const keep = closedAfterEach();

const EMAIL = 'zenobia.q@former.test';

describe.each(BACKENDS)('customers who left a program, at its stores ($name)', (backend) => {
  async function chain() {
    const clock = new ManualClock();
    const central = await startCentralOn(backend, clock, keep);
    const other = await setUpVendor(central.engine, { name: 'Other', currency: 'USD', country: 'US', store: { name: 'O', address1: '9 Elm', city: 'Ogdenville' } });
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    const joined = await registerInStore(central.engine, scope, { email: EMAIL, firstName: 'Zenobia', lastName: 'Quillfeather', phone: { number: '4155550142', code: '1' } });
    await registerInStore(central.engine, await authenticateApiKey(central.engine, other.apiKey), { email: EMAIL });
    await registerInStore(central.engine, scope, { email: 'bystander@former.test', firstName: 'Bystander' });
    const a: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    keep(a);
    return { clock, central, a, other, userId: Number(joined.session.user_id) };
  }

  const person = (store: StoreHandle, id: number) =>
    store.engine.db.selectFrom('users').select(['email', 'email_key', 'first_name', 'last_name', 'phone', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
  const wiped = { email: null, email_key: null, first_name: '', last_name: '', phone: null, status: 'active' };

  it('the program’s stores keep the row without the person, then hear nothing of them until they join again', async () => {
    const { clock, central, a, userId } = await chain();
    expect(await person(a, userId)).toMatchObject({ email: EMAIL, first_name: 'Zenobia', phone: '+14155550142' });
    // A sale at the store: its order keeps a reply (for the same order resent) that names them.
    await placeOrder(a.engine, await a.scope(), { identification: EMAIL, receiptNumber: 'F-1', subtotal: 12 });
    clock.advance(1000);
    await a.client.syncOnce();
    const replies = async (store: { engine: CentralHandle['engine'] }) => JSON.stringify(await store.engine.db.selectFrom('orders').select(['reply', 'void_reply']).where('user_id', '=', userId).execute()).toLowerCase();
    expect(await replies(central)).toContain('zenobia');

    const code = await issueCode(central.engine.db, central.engine, { userId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code });
    // Still a customer of the other program: central keeps who they are.
    expect((await central.engine.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow()).email).toBe(EMAIL);
    clock.advance(1000);
    await a.client.syncOnce();
    expect(await person(a, userId)).toEqual(wiped);
    expect(await a.engine.db.selectFrom('orders').select('id').where('user_id', '=', userId).execute()).toHaveLength(1); // the sale stays
    for (const store of [central, a]) for (const part of ['zenobia', 'quillfeather']) expect(await replies(store)).not.toContain(part);
    const membership = await a.engine.db.selectFrom('user_vendors').select('removed_at').where('user_id', '=', userId).executeTakeFirstOrThrow();
    expect(membership.removed_at).not.toBeNull();
    expect((await a.engine.db.selectFrom('users').select('email').where('email', '=', 'bystander@former.test').executeTakeFirst())?.email).toBe('bystander@former.test');

    // A change of who they are (made through the other program) reaches central's log, not this store.
    await central.engine.db.updateTable('users').set({ phone: '+14155550199', first_name: 'Zena', updated_at: clock.now() }).where('id', '=', userId).execute();
    clock.advance(1000);
    await a.client.syncOnce();
    expect(await person(a, userId)).toEqual(wiped);

    // A store that joins later, by snapshot or by the log from its start, reads nothing of them either.
    const b = await pairStore(central, clock, await addStore(central, 'B'), central.transportFor);
    keep(b);
    expect(await person(b, userId)).toEqual(wiped);
    const node = { id: 0, vendorId: central.vendor.vendorId, storeId: central.vendor.storeId };
    const fromStart = JSON.stringify((await readChangesForNode(central.engine.db, node, 0, 10_000)).changes);
    for (const part of ['zenobia', 'zena', 'quillfeather', '5550142', '5550199']) expect(fromStart.toLowerCase()).not.toContain(part);
    expect(fromStart).toContain('bystander@former.test');
    for (const format of ['objects', 'columns'] as const) {
      const page = await readSnapshotPageJson(central.engine.db, central.engine.dialect, node, { table: 'users', after: 0, limit: 10_000 }, format);
      expect(page.toLowerCase()).not.toContain('zena');
      expect(page.toLowerCase()).not.toContain('5550199');
      expect(page).toContain('bystander@former.test');
    }

    // Checking in again at the program's counter joins them again: the stores get them back whole.
    await registerInStore(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), { email: EMAIL });
    clock.advance(1000);
    await a.client.syncOnce();
    expect(await person(a, userId)).toMatchObject({ email: EMAIL, first_name: 'Zena', phone: '+14155550199' });
  });

  it('the copies merged into the account (a store’s own registration of them) are wiped at the program’s stores too', async () => {
    const { clock, central, a, other } = await chain();
    // Joins both programs at central; store A, not knowing them yet, registers them too: its row
    // reaches central as a copy merged into the account, with the name the store was given.
    const email = 'yolanda.v@former.test';
    const joined = await registerInStore(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), { email, firstName: 'Yolanda', lastName: 'Vexbright' });
    const userId = Number(joined.session.user_id);
    await registerInStore(central.engine, await authenticateApiKey(central.engine, other.apiKey), { email });
    await registerInStore(a.engine, await a.scope(), { email, firstName: 'Yolanda', lastName: 'Vexbrite' });
    clock.advance(1000);
    await a.client.syncOnce();
    await a.client.syncOnce();
    const copies = await central.engine.db.selectFrom('users').select('id').where('merged_into', '=', userId).execute();
    expect(copies).toHaveLength(1); // the precondition: the store's registration was merged into the account
    const atA = async () => JSON.stringify(await a.engine.db.selectFrom('users').selectAll().execute()).toLowerCase();
    expect(await atA()).toContain('vexbrite');

    const code = await issueCode(central.engine.db, central.engine, { userId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code });
    clock.advance(1000);
    await a.client.syncOnce();
    expect(await person(a, userId)).toEqual(wiped);
    const seen = await atA();
    for (const part of ['yolanda', 'vexbright', 'vexbrite']) expect.soft(seen, `store A: ${part}`).not.toContain(part);

    // Nor does a store paired later, nor a pull from the log's start, nor the snapshot.
    const b = await pairStore(central, clock, await addStore(central, 'B'), central.transportFor);
    keep(b);
    expect.soft(JSON.stringify(await b.engine.db.selectFrom('users').selectAll().execute()).toLowerCase(), 'store B').not.toContain('yolanda');
    const node = { id: 0, vendorId: central.vendor.vendorId, storeId: central.vendor.storeId };
    expect.soft(JSON.stringify((await readChangesForNode(central.engine.db, node, 0, 10_000)).changes).toLowerCase(), 'pull from 0').not.toContain('yolanda');
    for (const format of ['objects', 'columns'] as const) {
      const page = await readSnapshotPageJson(central.engine.db, central.engine.dialect, node, { table: 'users', after: 0, limit: 10_000 }, format);
      expect.soft(page.toLowerCase(), `snapshot (${format})`).not.toContain('yolanda');
    }
    // Central keeps who they are: they are still a customer of the other program.
    expect((await central.engine.db.selectFrom('users').select('first_name').where('id', '=', userId).executeTakeFirstOrThrow()).first_name).toBe('Yolanda');
  });

  it('joining again at the store’s own counter (which no longer knows the email) ends in the one account, whole', async () => {
    const { clock, central, a, userId } = await chain();
    const code = await issueCode(central.engine.db, central.engine, { userId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code });
    clock.advance(1000);
    await a.client.syncOnce();
    expect(await person(a, userId)).toEqual(wiped);

    await registerInStore(a.engine, await a.scope(), { email: EMAIL });
    clock.advance(1000);
    await a.client.syncOnce();
    await a.client.syncOnce();
    const accounts = await central.engine.db.selectFrom('users').select(['id', 'merged_into']).where('email_key', '=', EMAIL).execute();
    expect(accounts).toEqual([{ id: userId, merged_into: null }]);
    const memberships = await central.engine.db.selectFrom('user_vendors').select('id').where('user_id', '=', userId).where('vendor_id', '=', central.vendor.vendorId).where('removed_at', 'is', null).execute();
    expect(memberships).toHaveLength(1);
    expect(await person(a, userId)).toMatchObject({ email: EMAIL, first_name: 'Zenobia', phone: '+14155550142' });
  });
});
