import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { confirmAccountDeletion } from '../../src/core/customers/account-deletion';
import { issueCode } from '../../src/core/customers/one-time-codes';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { placeOrder } from '../../src/core/orders/place-order';
import { compactChangeLog } from '../../src/core/sync/central/compact-change-log';
import { readChangesForNode } from '../../src/core/sync/central/read-changes';
import { BACKENDS } from '../support/backends';
import { ManualClock } from '../support/clock';
import { type CentralHandle, startCentral } from './support/chain';

// An erased customer (docs/decisions.md, "Erasure reaches central's change log"): central's log
// keeps each row's first version so a new store gets parents before children, and that version
// held the person's name, email and phone. After the erasure no version of their rows in the log
// says anything the live rows no longer do, and a store pulling from the log's start reads none of it.

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

const PERSON = ['Zenobia', 'Quillfeather', 'zenobia.q@erase.test', '5550142'];

describe.each(BACKENDS)('erasure in central’s change log ($name)', (backend) => {
  async function central(): Promise<CentralHandle> {
    const opened = await backend.open();
    open.push(opened);
    const handle = await startCentral(new ManualClock(), opened.database);
    open.push(handle);
    return handle;
  }

  /** Every version of every row in the log, as text, lower case. */
  async function logText(c: CentralHandle): Promise<string> {
    const rows = await c.engine.db.selectFrom('sync_changes').select('data').execute();
    return rows.map((r) => r.data).join('\n').toLowerCase();
  }

  it('leaves no version of the erased person’s rows naming them, compacted or not; others keep theirs', async () => {
    const c = await central();
    const scope = await authenticateApiKey(c.engine, c.vendor.apiKey);
    const registered = await registerInStore(c.engine, scope, { email: PERSON[2], firstName: PERSON[0], lastName: PERSON[1], phone: { number: `415${PERSON[3]}`, code: '1' } });
    const userId = Number(registered.session.user_id);
    await placeOrder(c.engine, scope, { identification: PERSON[2]!, receiptNumber: 'E-1', subtotal: 12 });
    // A bystander: their rows must keep what they say.
    await registerInStore(c.engine, scope, { email: 'bystander@erase.test', firstName: 'Bystander' });
    // Versions in between too (compaction would drop them; erasure must not rely on it).
    await c.engine.db.updateTable('users').set({ first_name: `${PERSON[0]}-renamed` }).where('id', '=', userId).execute();
    const before = await logText(c);
    for (const part of PERSON) expect(before).toContain(part!.toLowerCase());

    const code = await issueCode(c.engine.db, c.engine, { userId, vendorId: c.vendor.vendorId, purpose: 'account_deletion' });
    await confirmAccountDeletion(c.engine, { vendorId: c.vendor.vendorId, code });

    const after = await logText(c);
    for (const part of PERSON) expect(after).not.toContain(part!.toLowerCase());
    expect(after).toContain('bystander@erase.test');
    // The person's rows still come first in the log (a store gets a parent before what points at it).
    const versions = await c.engine.db.selectFrom('sync_changes').select(['seq', 'data']).where('tbl', '=', 'users').where('row_id', '=', userId).orderBy('seq').execute();
    expect(versions.length).toBeGreaterThan(1);
    for (const version of versions) expect(JSON.parse(version.data)).toMatchObject({ status: 'deleted', email: null, first_name: '' });

    await compactChangeLog(c.engine.db);
    for (const part of PERSON) expect(await logText(c)).not.toContain(part!.toLowerCase());

    // A store pulling the whole log from its start reads nothing of the person either.
    const node = { id: 0, vendorId: c.vendor.vendorId, storeId: c.vendor.storeId };
    const pulled = JSON.stringify((await readChangesForNode(c.engine.db, node, 0, 10_000)).changes).toLowerCase();
    for (const part of PERSON) expect(pulled).not.toContain(part!.toLowerCase());
    expect(pulled).toContain('bystander@erase.test');
  });
});
