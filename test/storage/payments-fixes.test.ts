import { type Kysely, sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { registerCustomer } from '../../src/core/customers/register-customer';
import type { CustomerSession } from '../../src/core/customers/sessions';
import { type Engine } from '../../src/core/engine';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { openParams } from '../../src/core/messaging/sealed-params';
import { claimEgift } from '../../src/core/payments/egifts/claim-egift';
import { sendEgift } from '../../src/core/payments/egifts/send-egift';
import { settlePendingEgifts } from '../../src/core/payments/egifts/settle-pending-egifts';
import type { DB } from '../../src/core/storage/schema';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// Payments review fixes on both dialects, through the core functions:
// - a paid eGift survives the node stopping right after the gateway's late answer is recorded
//   (the gift row is written with the pending charge, and the settle job finishes it);
// - a gift whose guarded pending -> sent update changed nothing emails nobody;
// - a claim credits the gift's own currency, and refuses one the vendor no longer uses for quick pay.

const SUCCESS_CARD = '4242424242424242';
/** The test gateway's late card: answers pending, succeeds after 60 s (or the 2nd status poll). */
const LATE_CARD = '4000002760003184';

/**
 * The engine as a node that stops right after the transaction recording a pending charge of
 * `vendorId` commits: from then on every database call fails, as if the process had died there.
 * The gateway (its own tables) is untouched: the charge it holds is still there after the "restart".
 */
function stoppingAfterPendingCharge(engine: Engine, vendorId: number): { engine: Engine; stopped(): boolean } {
  let stopped = false;
  const real = engine.db;
  const db = new Proxy(real, {
    get(target, prop) {
      if (stopped) throw new Error('node stopped');
      if (prop === 'transaction') {
        return () => ({
          execute: async <T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> => {
            const result = await target.transaction().execute(work);
            const pending = await target.selectFrom('payment_charges').select('id').where('vendor_id', '=', vendorId).where('status', '=', 'pending').executeTakeFirst();
            if (pending) stopped = true;
            return result;
          },
        });
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { engine: { ...engine, db }, stopped: () => stopped };
}

/** Makes every guarded pending -> sent update of a gift change nothing (another writer got there first). */
async function blockGiftSends(db: Kysely<DB>, dialect: Engine['dialect']): Promise<() => Promise<void>> {
  if (dialect === 'sqlite') {
    await sql`create trigger egift_sent_elsewhere before update of status on egifts when new.status = 'sent' and old.status = 'pending' begin select raise(ignore); end`.execute(db);
    return async () => void (await sql`drop trigger egift_sent_elsewhere`.execute(db));
  }
  await sql`create function egift_sent_elsewhere() returns trigger language plpgsql as $$ begin if new.status = 'sent' and old.status = 'pending' then return null; end if; return new; end $$`.execute(db);
  await sql`create trigger egift_sent_elsewhere before update on egifts for each row execute function egift_sent_elsewhere()`.execute(db);
  return async () => {
    await sql`drop trigger egift_sent_elsewhere on egifts`.execute(db);
    await sql`drop function egift_sent_elsewhere()`.execute(db);
  };
}

describe.each(BACKENDS)('payments review fixes on $name', (backend) => {
  let engine: Engine;
  let close: () => Promise<void>;
  const clock = new ManualClock();
  let vendorCount = 0;

  beforeAll(async () => {
    ({ engine, close } = await openEngine(backend, clock));
  });

  afterAll(() => close?.());

  function vendor(): Promise<VendorCredentials> {
    return setUpVendor(engine, testVendor(`Fixes ${++vendorCount}`));
  }

  async function customer(vendorId: number, email: string): Promise<CustomerSession> {
    const { user } = await registerCustomer(engine, { vendorId, firstName: 'Ana', lastName: 'López', email, password: 'correct horse 1', terms: true });
    return { sessionId: 0, userId: user.id, vendorId };
  }

  function guestGift(on: Engine, vendorId: number, recipient: string, card: string) {
    return sendEgift(on, {
      vendorId,
      amount: 12.5,
      buyer: { name: 'Mateo', email: 'mateo@example.com' },
      recipient: { name: 'Ana', email: recipient },
      billing: { number: card, expiry: { month: '12', year: '2030' }, cvv: '123' },
      session: null,
      idempotencyKey: `gift-${recipient}`,
    });
  }

  const giftEmails = (recipient: string) =>
    engine.db.selectFrom('messages_outbox').select('params').where('recipient', '=', recipient).where('template', '=', 'egift_received').execute();

  const codeOf = (params: string | null) => (openParams(engine, params) as { code: string }).code;

  it('keeps a late-paid eGift whose node stopped right after the pending charge was recorded, and the job sends it once', async () => {
    const v = await vendor();
    const recipient = `late-${vendorCount}@example.com`;
    const stopping = stoppingAfterPendingCharge(engine, v.vendorId);
    // The request may or may not answer before the node stops; what matters is what is stored.
    await guestGift(stopping.engine, v.vendorId, recipient, LATE_CARD).catch(() => undefined);
    expect(stopping.stopped()).toBe(true);

    const charge = await engine.db.selectFrom('payment_charges').selectAll().where('vendor_id', '=', v.vendorId).executeTakeFirstOrThrow();
    expect(charge).toMatchObject({ purpose: 'egift', status: 'pending' });
    // The charge the gateway may still complete has its gift row, pending, from the same commit.
    const stored = await engine.db.selectFrom('egifts').select(['status', 'amount', 'recipient_email']).where('charge_id', '=', charge.id).execute();
    expect(stored).toEqual([{ status: 'pending', amount: 1250, recipient_email: recipient }]);

    // After the restart the gateway completes the charge; the job sends the gift, once.
    clock.advance(61_000);
    await settlePendingEgifts(engine);
    await settlePendingEgifts(engine);
    const gift = await engine.db.selectFrom('egifts').selectAll().where('charge_id', '=', charge.id).executeTakeFirstOrThrow();
    expect(gift.status).toBe('sent');
    expect((await engine.db.selectFrom('payment_charges').select('status').where('id', '=', charge.id).executeTakeFirstOrThrow()).status).toBe('succeeded');
    const emails = await giftEmails(recipient);
    expect(emails).toHaveLength(1);

    // The emailed code works.
    const ana = await customer(v.vendorId, recipient);
    await expect(claimEgift(engine, ana, codeOf(emails[0]!.params))).resolves.toMatchObject({ egiftId: gift.id, amount: 1250, balanceAfter: 1250 });
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('emails no code when the guarded pending -> sent update changed nothing, and sends once when it does', async () => {
    const v = await vendor();
    const recipient = `guarded-${vendorCount}@example.com`;
    const pending = await guestGift(engine, v.vendorId, recipient, LATE_CARD);
    expect(pending.status).toBe('pending');

    const unblock = await blockGiftSends(engine.db, engine.dialect);
    try {
      clock.advance(61_000);
      await settlePendingEgifts(engine);
    } finally {
      await unblock();
    }
    // The charge succeeded, but this pass did not move the gift: no email with a code nobody stored.
    expect(await giftEmails(recipient)).toEqual([]);
    const before = await engine.db.selectFrom('egifts').select(['status', 'claim_code_hash']).where('id', '=', pending.id).executeTakeFirstOrThrow();
    expect(before).toEqual({ status: 'pending', claim_code_hash: null });

    // The next pass moves it and emails a code that works, once.
    await settlePendingEgifts(engine);
    await settlePendingEgifts(engine);
    const emails = await giftEmails(recipient);
    expect(emails).toHaveLength(1);
    const ana = await customer(v.vendorId, recipient);
    await expect(claimEgift(engine, ana, codeOf(emails[0]!.params))).resolves.toMatchObject({ egiftId: pending.id, amount: 1250 });
  });

  it("credits a claim in the gift's own currency, and refuses one the vendor no longer uses for quick pay", async () => {
    const v = await vendor();
    const recipient = `currency-${vendorCount}@example.com`;
    const gift = await guestGift(engine, v.vendorId, recipient, SUCCESS_CARD);
    const giftRow = await engine.db.selectFrom('egifts').select(['currency_id', 'status']).where('id', '=', gift.id).executeTakeFirstOrThrow();
    expect(giftRow.status).toBe('sent');
    const [email] = await giftEmails(recipient);
    const code = codeOf(email!.params);
    const ana = await customer(v.vendorId, recipient);

    // The program switches its quick pay to another currency after the gift was bought.
    const other = await createCurrency(engine, { vendorId: v.vendorId }, { name: 'Store dollars', code: 'USD' });
    await engine.db.updateTable('vendors').set({ quick_pay_currency_id: other.id }).where('id', '=', v.vendorId).execute();
    await expect(claimEgift(engine, ana, code)).rejects.toMatchObject({ code: 'currency_not_active' });
    expect((await engine.db.selectFrom('egifts').select('status').where('id', '=', gift.id).executeTakeFirstOrThrow()).status).toBe('sent');
    const credited = () =>
      engine.db
        .selectFrom('ledger_entries as e')
        .innerJoin('ledger_accounts as a', 'a.id', 'e.account_id')
        .select(['a.currency_id', 'e.amount'])
        .where('e.reference_type', '=', 'egift')
        .where('e.reference_id', '=', String(gift.id))
        .execute();
    expect(await credited()).toEqual([]);

    // Back on the gift's currency, the claim credits that currency, once.
    await engine.db.updateTable('vendors').set({ quick_pay_currency_id: giftRow.currency_id }).where('id', '=', v.vendorId).execute();
    await expect(claimEgift(engine, ana, code)).resolves.toMatchObject({ egiftId: gift.id, amount: 1250, balanceAfter: 1250 });
    await claimEgift(engine, ana, code);
    expect(await credited()).toEqual([{ currency_id: giftRow.currency_id, amount: 1250 }]);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });
});
