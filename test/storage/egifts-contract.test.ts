import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCustomer } from '../../src/core/customers/register-customer';
import type { CustomerSession } from '../../src/core/customers/sessions';
import { type Engine } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { openParams } from '../../src/core/messaging/sealed-params';
import { claimEgift } from '../../src/core/payments/egifts/claim-egift';
import { sendEgift } from '../../src/core/payments/egifts/send-egift';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// The eGift storage rules on both dialects: the 0008 migration, the partial unique index on the
// claim code digest, and a claim sent twice at once crediting once.

describe.each(BACKENDS)('eGift storage on $name', (backend) => {
  let engine: Engine;
  let close: () => Promise<void>;
  let vendor: VendorCredentials;
  const clock = new ManualClock();

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
    vendor = await setUpVendor(engine, testVendor('Contract Gifts'));
  });

  afterAll(() => close?.());

  async function customer(email: string): Promise<CustomerSession> {
    const { user } = await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Ana', lastName: 'López', email, password: 'correct horse 1', terms: true });
    return { sessionId: 0, userId: user.id, vendorId: vendor.vendorId };
  }

  /** A paid guest gift and its claim code, read from the queued email. */
  async function paidGift(recipient: string): Promise<{ id: number; code: string }> {
    const gift = await sendEgift(engine, {
      vendorId: vendor.vendorId,
      amount: 12.5,
      buyer: { name: 'Mateo', email: 'mateo@example.com' },
      recipient: { name: 'Ana', email: recipient },
      billing: { number: '4242424242424242', expiry: { month: '12', year: '2030' }, cvv: '123' },
      session: null,
    });
    const row = await engine.db.selectFrom('messages_outbox').select('params').where('recipient', '=', recipient).executeTakeFirstOrThrow();
    return { id: gift.id, code: (openParams(engine, row.params) as { code: string }).code };
  }

  it('keeps one digest per code and credits a claim sent twice at once exactly once', async () => {
    const { id, code } = await paidGift('ana@example.com');
    const ana = await customer('ana@example.com');
    const [a, b] = await Promise.all([claimEgift(engine, ana, code), claimEgift(engine, ana, code)]);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ egiftId: id, amount: 1250, balanceAfter: 1250 });
    const entries = await engine.db.selectFrom('ledger_entries').select(['amount', 'kind']).where('reference_type', '=', 'egift').where('reference_id', '=', String(id)).execute();
    expect(entries).toEqual([{ amount: 1250, kind: 'egift' }]);
    const history = await engine.db.selectFrom('transactions').select(['kind', 'quick_pay_loaded']).where('user_id', '=', ana.userId).execute();
    expect(history).toEqual([{ kind: 'egift', quick_pay_loaded: 1250 }]);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);

    // Two gifts never share a digest; unsent gifts (no digest yet) may be many.
    const row = await engine.db.selectFrom('egifts').select('claim_code_hash').where('id', '=', id).executeTakeFirstOrThrow();
    const second = await paidGift('bob@example.com');
    await expect(engine.db.updateTable('egifts').set({ claim_code_hash: row.claim_code_hash }).where('id', '=', second.id).execute()).rejects.toThrow();
    await engine.db.updateTable('egifts').set({ claim_code_hash: null }).where('id', '=', second.id).execute();
    const third = await paidGift('carla@example.com');
    await engine.db.updateTable('egifts').set({ claim_code_hash: null }).where('id', '=', third.id).execute();
    const unsent = await engine.db.selectFrom('egifts').select('id').where('claim_code_hash', 'is', null).execute();
    expect(unsent.map((g) => g.id).sort()).toEqual([second.id, third.id].sort());
  });
});
