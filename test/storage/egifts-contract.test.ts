import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCustomer } from '../../src/core/customers/register-customer';
import type { CustomerSession } from '../../src/core/customers/sessions';
import { type Engine, startEngine } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { claimEgift } from '../../src/core/payments/egifts/claim-egift';
import { sendEgift } from '../../src/core/payments/egifts/send-egift';
import { type Database, openSqlite } from '../../src/core/storage/database';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { ManualClock } from '../support/clock';
import { openTestPostgres } from '../support/postgres';
import { makeTempDir } from '../support/temp-dir';

// The eGift storage rules on both dialects: the 0008 migration, the partial unique index on the
// claim code digest, and a claim sent twice at once crediting once.

interface Backend {
  name: string;
  open(): Promise<{ database: Database; close(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    async open() {
      const dir = makeTempDir();
      return { database: openSqlite(`${dir.path}/egifts.db`), close: async () => dir.remove() };
    },
  },
  {
    name: process.env.PG_URL ? 'postgres (PG_URL)' : 'postgres (embedded PGlite)',
    async open() {
      const pg = await openTestPostgres();
      return { database: pg.database, close: () => pg.drop() };
    },
  },
];

describe.each(backends)('eGift storage on $name', (backend) => {
  let engine: Engine;
  let closeBackend: () => Promise<void>;
  let vendor: VendorCredentials;
  const clock = new ManualClock();

  beforeAll(async () => {
    const opened = await backend.open();
    closeBackend = opened.close;
    engine = await startEngine({ database: opened.database, nodeKey: randomBytes(32), clock, role: 'store' });
    vendor = await setUpVendor(engine, { name: 'Contract Gifts', currency: 'USD', country: 'US', store: { name: 'Main', address1: '1 Main Street', city: 'Springfield' } });
  });

  afterAll(async () => {
    await engine?.close();
    await closeBackend?.();
  });

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
    return { id: gift.id, code: (JSON.parse(row.params!) as { code: string }).code };
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
