import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { issueCode } from '../../src/core/customers/one-time-codes';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { readChangesForNode } from '../../src/core/sync/central/read-changes';
import { readSnapshotPageJson } from '../../src/core/sync/central/read-snapshot';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, pairStore, startCentral, type StoreHandle } from './support/chain';

// An erasure wipes the rows of the accounts merged into the person's too (the same email registered
// at a store that did not know it yet: central keeps the store's row, merged, with the name and
// address the store was given), at central, in its change log, and in what stores receive.

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

const EMAIL = 'zenobia.q@merged-erase.test';

describe.each(BACKENDS)('erasure of a customer with a merged account ($name)', (backend) => {
  it('leaves nothing of the person at central, in its log, or in what a new store receives', async () => {
    const clock = new ManualClock();
    const opened = await backend.open();
    open.push(opened);
    const central: CentralHandle = await startCentral(clock, opened.database);
    open.push(central);
    const a: StoreHandle = await pairStore(central, clock, { storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }, central.transportFor);
    open.push(a);

    // Registered at central; the store has not heard of them yet and registers them too.
    const scope = await authenticateApiKey(central.engine, central.vendor.apiKey);
    const joined = await registerInStore(central.engine, scope, { email: EMAIL, firstName: 'Zenobia', lastName: 'Quillfeather' });
    const userId = Number(joined.session.user_id);
    await registerInStore(a.engine, await a.scope(), { email: EMAIL, firstName: 'Zenobia', lastName: 'Quillfeather' });
    clock.advance(1000);
    await a.client.syncOnce();
    const merged = await central.engine.db.selectFrom('users').select(['id', 'email', 'first_name']).where('merged_into', '=', userId).execute();
    expect(merged).toHaveLength(1); // the precondition: the store's registration was merged into the account

    // The person erases their account (their only program).
    const code = await issueCode(central.engine.db, central.engine, { userId, vendorId: central.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(central.engine, { vendorId: central.vendor.vendorId, code });
    clock.advance(1000);

    // Central's own tables.
    const rows = await central.engine.db.selectFrom('users').select(['id', 'email', 'first_name', 'last_name', 'merged_into']).where((eb) => eb.or([eb('id', '=', userId), eb('merged_into', '=', userId)])).execute();
    expect.soft(JSON.stringify(rows).toLowerCase(), 'central users table').not.toContain('zenobia');

    // Central's change log.
    const log = (await central.engine.db.selectFrom('sync_changes').select('data').where('tbl', '=', 'users').execute()).map((r) => r.data).join('\n').toLowerCase();
    expect.soft(log, 'central change log').not.toContain('zenobia');

    // What a store reads from the log's start and from the snapshot.
    const node = { id: 0, vendorId: central.vendor.vendorId, storeId: central.vendor.storeId };
    expect.soft(JSON.stringify((await readChangesForNode(central.engine.db, node, 0, 10_000)).changes).toLowerCase(), 'pull from 0').not.toContain('zenobia');
    const page = await readSnapshotPageJson(central.engine.db, central.engine.dialect, node, { table: 'users', after: 0, limit: 10_000 }, 'columns');
    expect.soft(page.toLowerCase(), 'snapshot users page').not.toContain('zenobia');

    // A store paired after the erasure.
    const b = await pairStore(central, clock, await addStore(central, 'B'), central.transportFor);
    open.push(b);
    const atB = await b.engine.db.selectFrom('users').select(['id', 'email', 'first_name']).execute();
    expect.soft(JSON.stringify(atB).toLowerCase(), 'store paired after the erasure').not.toContain('zenobia');
  });
});
