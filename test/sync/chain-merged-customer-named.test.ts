import { describe, expect, it } from 'vitest';
import { withCustomersNamed } from '../../src/core/chain-health/exception-customers';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { listSyncExceptions } from '../../src/core/sync/central/sync-exceptions';
import { ManualClock } from '../support/clock';
import { addStore, closedAfterEach, pairStoreBehindSwitch, startCentral } from './support/chain';

// Thirteenth round, a store's day offline played: store A registered Carlos Ruiz by phone while
// offline; store B had registered Carla Ruiz with that phone meanwhile. Central merged Carlos into
// Carla as docs/sync.md says, but the chain page read "user 4294967317: registered offline with the
// email or phone of customer Carla Ruiz; merged into them": who had been registered (the merged
// copy's membership moved to Carla) and which contact met were not said, so staff could not tell
// one person registered twice from two people sharing a phone.

const keep = closedAfterEach();

describe('a customer merged at central', () => {
  it('is named as the counter registered them, with the contact that met', async () => {
    const clock = new ManualClock();
    const central = keep(await startCentral(clock));
    const storeB = await addStore(central, 'B');
    const pair = async (store: { storeId: number; apiKey: string }) => keep(await pairStoreBehindSwitch(central, clock, store));
    const a = await pair({ storeId: central.vendor.storeId, apiKey: central.vendor.apiKey });
    const b = await pair(storeB);
    a.link.down = true;
    await a.client.syncOnce().catch(() => undefined);

    const phone = { number: '4155550199', code: '1' };
    const carla = await registerInStore(b.engine, await b.scope(), { phone, firstName: 'Carla', lastName: 'Ruiz' });
    await b.client.syncOnce();
    const carlos = await registerInStore(a.engine, await a.scope(), { phone, firstName: 'Carlos', lastName: 'Ruiz' });
    a.link.down = false;
    await a.client.syncOnce();

    const [merged] = await withCustomersNamed(central.engine, central.vendor.vendorId, await listSyncExceptions(central.engine, central.vendor.vendorId));
    expect(merged).toMatchObject({
      kind: 'customer_merged',
      subject: `user ${carlos.session.user_id}`,
      message: `registered offline with the phone number of customer ${carla.session.user_id}; merged into them (one customer now, with the points and visits of both)`,
    });
    expect(merged!.customers).toEqual([
      { id: carlos.session.user_id, name: 'Carlos Ruiz' },
      { id: carla.session.user_id, name: 'Carla Ruiz' },
    ]);
  });
});
