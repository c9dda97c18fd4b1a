import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { issueCode } from '../../src/core/customers/one-time-codes';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, closedAfterEach, pairStore, startCentralOn, type StoreHandle } from './support/chain';

// Leaving a program wipes the copies merged into the account at its stores (pulls send them
// wiped with the membership). Joining again brings the account back whole (docs/sync.md), and its
// copies with it: found in review, the store that saw the leave kept them wiped while a store
// paired afterwards got them with the name.

const keep = closedAfterEach();

describe.each(BACKENDS)('merged copies after leaving and joining again ($name)', (backend) => {
  it('the store that saw the leave holds the copies as central and a later store do', async () => {
    const clock = new ManualClock();
    const central = await startCentralOn(backend, clock, keep);
    const other = await setUpVendor(central.engine, { name: 'Other', currency: 'USD', country: 'US', store: { name: 'O', address1: '9 Elm', city: 'Ogdenville' } });
    const a: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    keep(a);
    const email = 'yolanda.v@r2-rejoin.test';
    const joined = await registerInStore(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), { email, firstName: 'Yolanda', lastName: 'Vexbright' });
    const userId = Number(joined.session.user_id);
    await registerInStore(central.engine, await authenticateApiKey(central.engine, other.apiKey), { email });
    await registerInStore(a.engine, await a.scope(), { email, firstName: 'Yolanda', lastName: 'Vexbrite' });
    clock.advance(1000);
    await a.client.syncOnce();
    await a.client.syncOnce();
    const [copy] = await central.engine.db.selectFrom('users').select('id').where('merged_into', '=', userId).execute();
    expect(copy).toBeDefined();
    const copyAt = (store: { engine: CentralHandle['engine'] }) =>
      store.engine.db.selectFrom('users').select(['first_name', 'last_name', 'merged_into']).where('id', '=', copy!.id).executeTakeFirstOrThrow();

    const code = await issueCode(central.engine.db, central.engine, { userId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code });
    clock.advance(1000);
    await a.client.syncOnce();
    expect((await copyAt(a)).last_name).toBe(''); // the precondition: wiped at A on leaving

    await registerInStore(central.engine, await authenticateApiKey(central.engine, central.vendor.apiKey), { email });
    clock.advance(1000);
    await a.client.syncOnce();
    const b = await pairStore(central, clock, await addStore(central, 'B'), central.transportFor);
    keep(b);
    const atCentral = await copyAt(central);
    expect(await copyAt(b)).toEqual(atCentral);
    expect(await copyAt(a)).toEqual(atCentral);
  });
});
