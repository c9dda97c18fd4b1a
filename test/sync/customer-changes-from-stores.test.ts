import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { linkUserToVendor } from '../../src/core/customers/customer-store';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { createWebhookEndpoint } from '../../src/core/webhooks/endpoints';
import type { Database } from '../../src/core/storage/database';
import { ManualClock } from '../support/clock';
import { addStore, type CentralHandle, centralDatabases, pairStore, startCentral, type StoreHandle } from './support/chain';

// A customer central already has, changed at a store's counter (the passport number of an existing
// customer, POST /onscreen/register) while central changes the same customer: the store's change
// reaches central and the other stores, and central's change flows back to the store (docs/sync.md,
// Conflicts). On SQLite, and on PostgreSQL when PG_URL names a server (PGlite migrates too slowly
// for two fresh centrals here).

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

const CENTRALS = centralDatabases((handle) => open.push(handle));

interface Chain {
  central: CentralHandle;
  a: StoreHandle;
  b: StoreHandle;
}

async function chain(database: Database): Promise<Chain> {
  const clock = new ManualClock();
  const central = await startCentral(clock, database);
  open.push(central);
  const pair = async (store: { storeId: number; apiKey: string }) => {
    const handle = await pairStore(central, clock, store, (credential) => central.transportFor(credential));
    open.push(handle);
    return handle;
  };
  return { central, a: await pair({ storeId: central.vendor.storeId, apiKey: central.vendor.apiKey }), b: await pair(await addStore(central, 'B')) };
}

const customer = (node: { engine: StoreHandle['engine'] }, id: number) => node.engine.db.selectFrom('users').select(['first_name', 'passport_number']).where('id', '=', id).executeTakeFirstOrThrow();

describe.each(CENTRALS)('a store’s change to a customer central has (central on $name)', ({ database }) => {
  it('reaches central and the other stores, and central’s own change meanwhile comes back', async () => {
    const c = await chain(await database());
    const registered = await registerInStore(c.a.engine, await c.a.scope(), { email: 'ana@example.com', firstName: 'Ana' });
    const id = Number(registered.session.user_id);
    for (const s of [c.a, c.b]) await s.client.syncOnce();

    // The counter sets her passport (not pushed yet); central renames her; the store pulls first.
    await registerInStore(c.a.engine, await c.a.scope(), { email: 'ana@example.com', passportNumber: 'AB12345' });
    await c.central.engine.db.updateTable('users').set({ first_name: 'Anabel', updated_at: c.central.engine.clock.now() }).where('id', '=', id).execute();
    await c.a.client.pullAll();
    expect(await customer(c.a, id)).toEqual({ first_name: 'Ana', passport_number: 'AB12345' });

    for (let round = 0; round < 2; round += 1) for (const s of [c.a, c.b]) await s.client.syncOnce();
    for (const node of [c.central, c.a, c.b]) expect(await customer(node, id)).toEqual({ first_name: 'Anabel', passport_number: 'AB12345' });
    expect((await c.a.engine.db.selectFrom('sync_events').select('verdict').execute()).map((e) => e.verdict)).toEqual(['applied', 'applied']);
  });

  it('keeps a passport number another customer holds at central with its holder, and says so', async () => {
    const c = await chain(await database());
    const ana = Number((await registerInStore(c.a.engine, await c.a.scope(), { email: 'ana@example.com', firstName: 'Ana' })).session.user_id);
    const bea = Number((await registerInStore(c.a.engine, await c.a.scope(), { email: 'bea@example.com', firstName: 'Bea' })).session.user_id);
    await c.a.client.syncOnce();

    // Bea's passport is set at central (her profile) before the store's change for Ana arrives.
    await c.central.engine.db.updateTable('users').set({ passport_number: 'XY98765', updated_at: c.central.engine.clock.now() }).where('id', '=', bea).execute();
    await registerInStore(c.a.engine, await c.a.scope(), { email: 'ana@example.com', passportNumber: 'XY98765' });
    for (let round = 0; round < 2; round += 1) await c.a.client.syncOnce();

    for (const node of [c.central, c.a]) {
      expect(await customer(node, ana)).toEqual({ first_name: 'Ana', passport_number: null });
      expect(await customer(node, bea)).toEqual({ first_name: 'Bea', passport_number: 'XY98765' });
    }
    const exceptions = await c.central.engine.db.selectFrom('sync_exceptions').select(['kind', 'subject']).execute();
    expect(exceptions).toEqual([{ kind: 'passport_conflict', subject: `user ${ana}` }]);
  });

  it('takes an email and a phone the counter added to a customer who had none, and sends them to the other stores', async () => {
    const c = await chain(await database());
    const guest = Number((await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550147' } })).session.user_id);
    const member = Number((await registerInStore(c.a.engine, await c.a.scope(), { email: 'mia@example.com' })).session.user_id);
    for (const s of [c.a, c.b]) await s.client.syncOnce();

    await createWebhookEndpoint(c.central.engine, { vendorId: c.central.vendor.vendorId }, { url: 'https://hooks.example.com/punchcard', events: ['customer.updated'] }, { allowPrivate: false });
    await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550147' }, email: 'Gus@Example.com' });
    await registerInStore(c.b.engine, await c.b.scope(), { email: 'mia@example.com', phone: { number: '+12025550148' } });
    for (let round = 0; round < 2; round += 1) for (const s of [c.a, c.b]) await s.client.syncOnce();
    // The program hears of each customer's new contact once, from central.
    const updated = await c.central.engine.db.selectFrom('webhook_events').select('data').where('type', '=', 'customer.updated').execute();
    expect(updated.map((event) => (JSON.parse(event.data) as { user: { user_id: number } }).user.user_id).sort()).toEqual([guest, member].sort());

    for (const node of [c.central, c.a, c.b]) {
      expect(await contacts(node, guest)).toEqual({ email: 'Gus@Example.com', email_key: 'gus@example.com', phone: '+12025550147' });
      expect(await contacts(node, member)).toEqual({ email: 'mia@example.com', email_key: 'mia@example.com', phone: '+12025550148' });
    }
    expect(await c.central.engine.db.selectFrom('sync_exceptions').select('kind').execute()).toEqual([]);
  });

  it('takes only what the counter changed: a phone cleared and a passport changed at central meanwhile stay so', async () => {
    const c = await chain(await database());
    const guest = Number((await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550167' }, passportNumber: 'AA11111' })).session.user_id);
    await c.a.client.syncOnce();

    // At central the customer clears their phone and gets a new passport; the store, not caught up,
    // finds them by that phone and adds the email they give.
    await c.central.engine.db.updateTable('users').set({ phone: null, passport_number: 'BB22222', updated_at: c.central.engine.clock.now() }).where('id', '=', guest).execute();
    await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550167' }, email: 'ines@example.com' });
    const [pushed] = (await c.a.engine.db.selectFrom('sync_changes').select('data').where('tbl', '=', 'users').where('row_id', '=', guest).where('event_seq', 'is not', null).orderBy('seq', 'desc').execute()).map((row) => JSON.parse(row.data) as Record<string, unknown>);
    expect(Object.keys(pushed!).sort()).toEqual(['email', 'email_key', 'id', 'updated_at']);
    for (let round = 0; round < 2; round += 1) await c.a.client.syncOnce();

    const row = (node: { engine: StoreHandle['engine'] }) => node.engine.db.selectFrom('users').select(['email', 'phone', 'passport_number']).where('id', '=', guest).executeTakeFirstOrThrow();
    for (const node of [c.central, c.a]) expect(await row(node)).toEqual({ email: 'ines@example.com', phone: null, passport_number: 'BB22222' });
    expect(await c.central.engine.db.selectFrom('sync_exceptions').select('kind').execute()).toEqual([]);
  });

  it('keeps the email or phone the customer got at central meanwhile over the one a counter added offline, and says so', async () => {
    const c = await chain(await database());
    const guest = Number((await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550177' } })).session.user_id);
    const member = Number((await registerInStore(c.a.engine, await c.a.scope(), { email: 'ola@example.com' })).session.user_id);
    for (const s of [c.a, c.b]) await s.client.syncOnce();

    // Offline at B, the counter adds an email to the guest and a phone to the member; at A (online)
    // they give others, which reach central first.
    await registerInStore(c.b.engine, await c.b.scope(), { phone: { number: '+12025550177' }, email: 'guest.b@example.com' });
    await registerInStore(c.b.engine, await c.b.scope(), { email: 'ola@example.com', phone: { number: '+12025550178' } });
    await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550177' }, email: 'guest.a@example.com' });
    await registerInStore(c.a.engine, await c.a.scope(), { email: 'ola@example.com', phone: { number: '+12025550166' } });
    await c.a.client.syncOnce();
    for (let round = 0; round < 2; round += 1) for (const s of [c.b, c.a]) await s.client.syncOnce();

    for (const node of [c.central, c.a, c.b]) {
      expect(await contacts(node, guest)).toEqual({ email: 'guest.a@example.com', email_key: 'guest.a@example.com', phone: '+12025550177' });
      expect(await contacts(node, member)).toEqual({ email: 'ola@example.com', email_key: 'ola@example.com', phone: '+12025550166' });
    }
    const exceptions = await c.central.engine.db.selectFrom('sync_exceptions').select(['kind', 'subject', 'message']).orderBy('id').execute();
    expect(exceptions).toEqual([
      { kind: 'contact_kept', subject: `user ${guest}`, message: expect.stringContaining('email guest.b@example.com added at the store is not taken') },
      { kind: 'contact_kept', subject: `user ${member}`, message: expect.stringContaining('phone +12025550178 added at the store is not taken') },
    ]);
  });

  it('does not take a contact or passport a counter set for a customer who belongs to another program too, and says so', async () => {
    const c = await chain(await database());
    const guest = Number((await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550188' } })).session.user_id);
    await c.a.client.syncOnce();
    // At central the same account joins another program (the store cannot see that membership).
    const other = await setUpVendor(c.central.engine, { name: 'Other Program', currency: 'USD', country: 'US', store: { name: 'O', address1: '1 Other', city: 'Springfield' } });
    await linkUserToVendor(c.central.engine.db, c.central.engine, { userId: guest, vendorId: other.vendorId });

    await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550188' }, email: 'stranger@example.com', passportNumber: 'ZZ12345' });
    for (let round = 0; round < 2; round += 1) await c.a.client.syncOnce();

    const row = (node: { engine: StoreHandle['engine'] }) => node.engine.db.selectFrom('users').select(['email', 'phone', 'passport_number']).where('id', '=', guest).executeTakeFirstOrThrow();
    for (const node of [c.central, c.a]) expect(await row(node)).toEqual({ email: null, phone: '+12025550188', passport_number: null });
    const exceptions = await c.central.engine.db.selectFrom('sync_exceptions').select(['kind', 'subject', 'message']).execute();
    expect(exceptions).toEqual([{ kind: 'contact_kept', subject: `user ${guest}`, message: expect.stringContaining("account is another program's too") }]);
  });

  it('keeps an email or phone another customer took at central meanwhile with its holder, and says so', async () => {
    const c = await chain(await database());
    const guest = Number((await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550157' } })).session.user_id);
    const member = Number((await registerInStore(c.a.engine, await c.a.scope(), { email: 'noor@example.com' })).session.user_id);
    await c.a.client.syncOnce();

    // Offline, the counter adds an email to the guest and a phone to the member; central meanwhile
    // registers someone else with that email and that phone.
    await registerInStore(c.a.engine, await c.a.scope(), { phone: { number: '+12025550157' }, email: 'taken@example.com' });
    await registerInStore(c.a.engine, await c.a.scope(), { email: 'noor@example.com', phone: { number: '+12025550158' } });
    const centralScope = await authenticateApiKey(c.central.engine, c.central.vendor.apiKey);
    const holder = Number((await registerInStore(c.central.engine, centralScope, { email: 'taken@example.com', phone: { number: '+12025550158' } })).session.user_id);
    for (let round = 0; round < 2; round += 1) await c.a.client.syncOnce();

    for (const node of [c.central, c.a]) {
      expect(await contacts(node, guest)).toEqual({ email: null, email_key: null, phone: '+12025550157' });
      expect(await contacts(node, member)).toEqual({ email: 'noor@example.com', email_key: 'noor@example.com', phone: null });
      expect(await contacts(node, holder)).toEqual({ email: 'taken@example.com', email_key: 'taken@example.com', phone: '+12025550158' });
    }
    const exceptions = await c.central.engine.db.selectFrom('sync_exceptions').select(['kind', 'subject']).orderBy('id').execute();
    expect(exceptions).toEqual([
      { kind: 'email_conflict', subject: `user ${guest}` },
      { kind: 'phone_conflict', subject: `user ${member}` },
    ]);
  });
});

const contacts = (node: { engine: StoreHandle['engine'] }, id: number) => node.engine.db.selectFrom('users').select(['email', 'email_key', 'phone']).where('id', '=', id).executeTakeFirstOrThrow();
