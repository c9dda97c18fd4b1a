import { afterEach, describe, expect, it } from 'vitest';
import { importMembers } from '../../src/core/import/import-members';
import { readMemberFile } from '../../src/core/import/member-file';
import { findBalanceMismatches, holderBalance } from '../../src/core/ledger/ledger';
import { identifyCustomer } from '../../src/core/onscreen/identify-customer';
import { ManualClock } from '../support/clock';
import { type CentralHandle, pairStore, startCentral, type StoreHandle } from './support/chain';

// Members imported at central (punchcard import customers on central's folder) are captured like
// any customer central creates: a paired store's next pull brings the customer, the card link and
// the opening balances, and the counter finds them by card. At the paired store itself the import
// is refused: customers are central's.

const FILE = 'first_name,last_name,email,phone,card,points,quick_pay\nAna,López,ana@example.com,(415) 555-0101,OLD0001,120,12.50\nBen,,,(415) 555-0102,,40,\n';

describe('members imported at central', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const handle of open.splice(0).reverse()) await handle.close();
  });

  it('reach a paired store with their card and balances; the store refuses an import of its own', async () => {
    const clock = new ManualClock();
    const central: CentralHandle = await startCentral(clock);
    open.push(central);
    const store: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    open.push(store);
    const records = readMemberFile(FILE).records;

    const report = await importMembers(central.engine, { vendorId: central.vendor.vendorId, fileName: 'members.csv', records, dryRun: false });
    expect(report).toMatchObject({ imported: 2, refused: 0 });
    clock.advance(1000);
    await store.client.syncOnce();

    const ana = await store.engine.db.selectFrom('users').select(['id', 'first_name', 'phone']).where('email_key', '=', 'ana@example.com').executeTakeFirstOrThrow();
    expect(ana).toMatchObject({ first_name: 'Ana', phone: '+14155550101' });
    const found = await identifyCustomer(store.engine.db, store.engine, { vendorId: central.vendor.vendorId, country: 'US', identification: 'OLD0001' });
    expect(found).toMatchObject({ user: { id: ana.id }, by: 'card', cardNumber: 'OLD0001' });
    const key = (currencyId: number) => ({ holderType: 'user' as const, holderId: ana.id, currencyId });
    expect(await holderBalance(store.engine.db, key(central.vendor.loyaltyCurrencyId))).toBe(120);
    expect(await holderBalance(store.engine.db, key(central.vendor.quickPayCurrencyId))).toBe(1250);
    for (const node of [central, store]) expect(await findBalanceMismatches(node.engine.db)).toEqual([]);

    await expect(importMembers(store.engine, { vendorId: central.vendor.vendorId, fileName: 'members.csv', records, dryRun: false })).rejects.toMatchObject({ code: 'customers_managed_by_central' });
  });
});
