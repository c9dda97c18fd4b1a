import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { joinByReferral } from '../../src/core/customers/join-by-referral';
import { issueCode } from '../../src/core/customers/one-time-codes';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { updateProgramSettings } from '../../src/core/rules/settings/update-program-settings';
import { readChangesForNode } from '../../src/core/sync/central/read-changes';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, closedAfterEach, pairStore, startCentralOn, type StoreHandle } from './support/chain';

// A member's `referral` history record says "<first name> joined". When the friend is erased, or
// leaves that program, the record says "A friend joined" (the points stay): at central, in its
// change log, at the program's stores, and at a store paired afterwards.

const keep = closedAfterEach();

describe.each(BACKENDS)('a referred friend’s name in the referrer’s history ($name)', (backend) => {
  async function chain() {
    const clock = new ManualClock();
    const central = await startCentralOn(backend, clock, keep);
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    await updateProgramSettings(central.engine, scope, { referralPoints: 25 });
    const referrer = await registerInStore(central.engine, scope, { email: 'rhea@referral-erase.test', firstName: 'Rhea' });
    const referrerId = Number(referrer.session.user_id);
    const { referral_code: code } = await central.engine.db.selectFrom('user_vendors').select('referral_code').where('user_id', '=', referrerId).executeTakeFirstOrThrow();
    const a: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    keep(a);
    const friend = await joinByReferral(central.engine, { code, firstName: 'Noorwyn', lastName: 'Haddad', email: 'noorwyn@referral-erase.test', password: 'friendly password', language: 1 });
    expect(friend.credited).toBe(25);
    clock.advance(1000);
    await a.client.syncOnce();
    return { clock, central, a, referrerId, friendId: friend.userId };
  }

  const referralNames = async (store: { engine: { db: StoreHandle['engine']['db'] } }, referrerId: number) =>
    (await store.engine.db.selectFrom('transactions').select('rewards').where('user_id', '=', referrerId).where('kind', '=', 'referral').execute()).flatMap(
      (row) => (JSON.parse(row.rewards) as Array<{ name: string; amount: number }>).map((reward) => [reward.name, reward.amount]),
    );

  async function expectNameGone(central: CentralHandle, stores: StoreHandle[], referrerId: number) {
    expect(await referralNames(central, referrerId)).toEqual([['A friend joined', 25]]);
    for (const store of stores) expect(await referralNames(store, referrerId)).toEqual([['A friend joined', 25]]);
    const log = (await central.engine.db.selectFrom('sync_changes').select('data').where('tbl', '=', 'transactions').execute()).map((r) => r.data).join('\n');
    expect(log.toLowerCase()).not.toContain('noorwyn');
    const node = { id: 0, vendorId: central.vendor.vendorId, storeId: central.vendor.storeId };
    expect(JSON.stringify((await readChangesForNode(central.engine.db, node, 0, 10_000)).changes).toLowerCase()).not.toContain('noorwyn');
  }

  it('the friend’s erasure takes their name out of the referral record, at the stores too', async () => {
    const { clock, central, a, referrerId, friendId } = await chain();
    expect(await referralNames(a, referrerId)).toEqual([['Noorwyn joined', 25]]); // the precondition: the store holds the record

    const code = await issueCode(central.engine.db, central.engine, { userId: friendId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code });
    clock.advance(1000);
    await a.client.syncOnce();
    const b = await pairStore(central, clock, await addStore(central, 'B'), central.transportFor);
    keep(b);
    await expectNameGone(central, [a, b], referrerId);
  });

  it('the friend leaving the program (still a customer of another) takes it out too', async () => {
    const { clock, central, a, referrerId, friendId } = await chain();
    const other = await setUpVendor(central.engine, { name: 'Other', currency: 'USD', country: 'US', store: { name: 'O', address1: '9 Elm', city: 'Ogdenville' } });
    await registerInStore(central.engine, await authenticateApiKey(central.engine, other.apiKey), { email: 'noorwyn@referral-erase.test' });

    const code = await issueCode(central.engine.db, central.engine, { userId: friendId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code });
    expect((await central.engine.db.selectFrom('users').select('first_name').where('id', '=', friendId).executeTakeFirstOrThrow()).first_name).toBe('Noorwyn');
    clock.advance(1000);
    await a.client.syncOnce();
    const b = await pairStore(central, clock, await addStore(central, 'B'), central.transportFor);
    keep(b);
    await expectNameGone(central, [a, b], referrerId);
  });
});
