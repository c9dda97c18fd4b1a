import { afterEach, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { pairStoreWithCentral } from '../../src/server/sync/pair-store';
import { STAFF_PASSWORD } from '../support/backoffice';
import { expectLegacyError, signUpAt, withSessionKey } from '../support/customers';
import { eventually } from '../support/eventually';
import { createServerDatabase } from '../support/postgres';
import { expectResourceError } from '../support/resource-api';
import { makeTempDir } from '../support/temp-dir';
import { http, type TestNode } from '../support/test-node';

// A copy of a person's data in a chain (docs/decisions.md, "Sixteenth round: a copy of a person's
// data wherever it is asked"). Central holds the whole program: every store's sales come to it, and
// saved cards, payments and the inbox never leave it. So a customer's own copy asked at a paired
// store is central's (forwarded like the other account calls; 503 central_unreachable while central
// is away, never the store's partial copy), and the back office of a paired store, whose staff are
// its own, refuses the download (409 personal_data_managed_by_central) and points to central's.

/** What a test opened, closed after it, last opened first. */
const opened: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** Central's database: an SQLite file in its folder, and PostgreSQL when PG_URL names a server. */
const CENTRALS: Array<{ name: string; database(): Promise<string | undefined> }> = [
  { name: 'SQLite', database: async () => undefined },
  ...(process.env.PG_URL
    ? [
        {
          name: 'PostgreSQL',
          async database() {
            const scratch = await createServerDatabase(process.env.PG_URL!, 'punchcard_pd_chain');
            opened.push(() => scratch.drop());
            return scratch.url;
          },
        },
      ]
    : []),
];

const asTestNode = (node: RunningNode) => node as unknown as TestNode;

async function staffToken(node: RunningNode, vendorId: number, email: string): Promise<string> {
  await addOwner(node.engine, { vendorId, email, password: STAFF_PASSWORD });
  const reply = await http(`${node.url}/backoffice/sign-in`, { method: 'POST', body: { email, password: STAFF_PASSWORD } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.token as string;
}

describe.each(CENTRALS)('a person’s data in a chain (central on $name)', ({ database }) => {
  it('central’s copy holds a paired store’s sale; the store forwards a customer’s own copy to central and refuses the back office’s', async () => {
    const dirs = [makeTempDir('punchcard-pd-central-'), makeTempDir('punchcard-pd-store-')];
    opened.push(() => dirs.forEach((dir) => dir.remove()));
    let central: RunningNode | null = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0, database: await database() });
    opened.push(() => central?.close());
    const chain = await setUpVendor(central.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    const lucia = await signUpAt(asTestNode(central), chain.vendorId, { first_name: 'Lucía', last_name: 'Fernández' });
    // The inbox stays at central (it is not replicated): a store's own copy could never hold it.
    const sent = await http(`${central.url}/messages`, { method: 'POST', token: chain.accessToken, body: { title: 'Welcome to the harbour', body: 'Coffee is on us.', user: lucia.userId } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);

    const { code } = await issuePairingCode(central.engine, chain.vendorId, chain.storeId);
    await pairStoreWithCentral({ dataDir: dirs[1]!.path, central: central.url, code });
    const store = await startStoreNode({ dataDir: dirs[1]!.path, port: 0 });
    opened.push(() => store.close());
    const storeUrl = store.url;
    await eventually('the first sync', async () => ((await http(`${storeUrl}/sync/status`)).body.first_sync.done ? true : undefined));

    // A sale at the paired store, which reaches central through the store's outbox.
    const checkIn = await http(`${storeUrl}/onscreen?api_key=${encodeURIComponent(chain.apiKey)}`, { method: 'POST', body: { card_number: lucia.email } });
    expect(checkIn.status, JSON.stringify(checkIn.body)).toBe(201);
    const order = await http(`${storeUrl}/order?api_key=${encodeURIComponent(chain.apiKey)}`, {
      method: 'POST',
      body: { pos_session_hash: checkIn.body.pos_session.hash, receipt_number: 'R-HARBOUR-1', subtotal: 12, items: [{ name: 'Café con leche', quantity: 2, price: 6, sku: 'CCL' }] },
    });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
    await eventually('the sale at central', async () => {
      const s = (await http(`${storeUrl}/sync/status`)).body;
      const atCentral = await central!.engine.db.selectFrom('orders').select('id').where('receipt_number', '=', 'R-HARBOUR-1').execute();
      return s.pending === 0 && atCentral.length === 1 ? true : undefined;
    });

    /** Central's whole copy: the store's sale (by its store's name), its points, and central's inbox. */
    const expectWholeCopy = (body: any) => {
      expect(body).toMatchObject({ format: 'punchcard.personal-data', program: { id: chain.vendorId }, person: { id: lucia.userId, email: lucia.email } });
      expect(body.orders).toEqual([expect.objectContaining({ receipt_number: 'R-HARBOUR-1', store: 'Harbour', subtotal: 1200, points_earned: 12 })]);
      expect(body.ledger).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'earn', amount: 12, store: 'Harbour', receipt_number: 'R-HARBOUR-1' })]));
      expect(body.balances.find((b: any) => b.code === null)?.balance).toBe(12);
      expect(body.inbox).toEqual(expect.arrayContaining([expect.objectContaining({ title: 'Welcome to the harbour' })]));
    };

    // At central, the back office's download holds the sale made at the store.
    const centralOwner = await staffToken(central, chain.vendorId, 'owner@central.test');
    const atCentral = await http(`${central.url}/backoffice/customers/${lucia.userId}/personal-data`, { token: centralOwner });
    expect(atCentral.status, JSON.stringify(atCentral.body)).toBe(200);
    expectWholeCopy(atCentral.body);

    // At the store, the customer's own copy is central's, whole (the store's would lack the inbox).
    const own = await http(`${storeUrl}${withSessionKey('/user/personal-data', lucia.key)}`);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="personal-data-${lucia.userId}-`));
    expectWholeCopy(own.body);

    // The store's back office (an account of the store node's own) is pointed to central, and
    // nothing is audited here.
    const storeOwner = await staffToken(store, chain.vendorId, 'owner@store.test');
    const refused = await http(`${storeUrl}/backoffice/customers/${lucia.userId}/personal-data`, { token: storeOwner });
    expectResourceError(refused, 409, 'personal_data_managed_by_central');
    expect(refused.body.message).toContain('back office of central');
    expect(refused.headers.get('content-disposition')).toBeNull();
    expect(await store.engine.db.selectFrom('audit_log').select('id').where('action', '=', 'customer.data_exported').execute()).toEqual([]);

    // Central away: the customer's call is refused with the forwarded calls' 503, never the store's
    // partial copy; the back office's is still pointed to central.
    await central.close();
    central = null;
    const away = await http(`${storeUrl}${withSessionKey('/user/personal-data', lucia.key)}`);
    expectLegacyError(away, 503, 'central_unreachable', undefined, { depth: 'basic' });
    expect(away.headers.get('content-disposition')).toBeNull();
    expect((await http(`${storeUrl}/backoffice/customers/${lucia.userId}/personal-data`, { token: storeOwner })).status).toBe(409);
  }, 120_000);
});
