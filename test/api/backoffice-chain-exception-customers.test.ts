import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ownerOf, type SignedInStaff, staffCall } from '../support/backoffice';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { startPostgresCentral, type ServedNode } from '../support/postgres-central';
import type { TestNode } from '../support/test-node';

// Central's chain page names the customers a sync exception mentions by id (chain-operator report,
// twelfth round: "user 8589934607: … of customer 4294967302"): GET /backoffice/chain gives each
// exception the program's customers its subject and message mention, by name (or email without
// one); another program's customer stays an id. The stored text is unchanged. Over real HTTP, on
// a central node on PostgreSQL.

describe('customers named in sync exceptions', () => {
  let node: ServedNode;
  const asNode = () => node as unknown as TestNode;
  let vendor: VendorCredentials;
  let owner: SignedInStaff;

  beforeAll(async () => {
    node = await startPostgresCentral({ rateLimits: ROOMY_RATE_LIMITS });
    vendor = await node.addVendor('Cadena Norte');
    owner = await ownerOf(asNode(), vendor.vendorId);
  }, 60_000);
  afterAll(() => node?.close());

  const exception = (subject: string, message: string) =>
    node.engine.db
      .insertInto('sync_exceptions')
      .values({ vendor_id: vendor.vendorId, store_id: vendor.storeId, node_id: null, kind: 'email_conflict', subject, message, created_at: node.clock.now(), resolved_at: null })
      .execute();

  it('names both customers of an exception, the subject’s and the message’s, and leaves its text as stored', async () => {
    const target = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Teresa', last_name: 'Toledo' });
    const holder = await signUpAt(asNode(), vendor.vendorId, { first_name: 'Hugo', last_name: 'Herrera' });
    const message = `email set at the store is held by customer ${holder.userId}; customer ${target.userId} keeps central's`;
    await exception(`user ${target.userId}`, message);

    const reply = await staffCall(asNode(), owner.token, 'GET', '/backoffice/chain');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const shown = reply.body.exceptions.find((e: { subject: string }) => e.subject === `user ${target.userId}`);
    expect(shown).toMatchObject({ subject: `user ${target.userId}`, message });
    expect(shown.customers).toEqual([
      { id: target.userId, name: 'Teresa Toledo' },
      { id: holder.userId, name: 'Hugo Herrera' },
    ]);
  });

  it('names a customer without a name by email, and never another program’s customer', async () => {
    const nameless = await signUpAt(asNode(), vendor.vendorId);
    await node.engine.db.updateTable('users').set({ first_name: '', last_name: '' }).where('id', '=', nameless.userId).execute();
    const otherVendor = await node.addVendor('Otra Cadena');
    const stranger = await signUpAt(asNode(), otherVendor.vendorId, { first_name: 'Sofía', last_name: 'Secreta' });
    await exception(`user ${nameless.userId}`, `phone set at the store is held by customer ${stranger.userId}; customer ${nameless.userId} keeps central's`);

    const reply = await staffCall(asNode(), owner.token, 'GET', '/backoffice/chain');
    const shown = reply.body.exceptions.find((e: { subject: string }) => e.subject === `user ${nameless.userId}`);
    expect(shown.customers).toEqual([{ id: nameless.userId, name: nameless.email }]);
    expect(JSON.stringify(reply.body)).not.toContain('Secreta');
  });

  it('an exception about no customer names nobody', async () => {
    await exception('order 77', 'receipt R-1 was already used by order 76; kept as R-1~2');
    const reply = await staffCall(asNode(), owner.token, 'GET', '/backoffice/chain');
    expect(reply.body.exceptions.find((e: { subject: string }) => e.subject === 'order 77').customers).toEqual([]);
  });
});
