import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { BARCODE_TOKEN_TTL_MINUTES, BARCODE_TOKEN_TYPE, requestBarcodeToken } from '../../src/core/customers/barcode-token';
import { BARCODE_TOKEN_GRACE_MS, expiredBarcodeTokensQuery, PURGE_BATCH, purgeExpiredBarcodeTokens } from '../../src/core/customers/purge-expired-barcode-tokens';
import type { Engine } from '../../src/core/engine';
import { identifyCustomer } from '../../src/core/onscreen/identify-customer';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { isServiceError } from '../../src/shared/errors';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';
import { nodeForPlans } from '../support/query-plan';

// App barcodes (15-minute check-in codes) are purged hourly once they are a day past their expiry:
// every barcode an app ever drew stayed in the table. Until then, and after, check-in answers as it
// always did. The chain's side (central's purge is quiet; each store purges its own copies) is in
// test/sync/purge-barcode-tokens-chain.test.ts.

const TTL_MS = BARCODE_TOKEN_TTL_MINUTES * 60_000;
const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

describe.each(BACKENDS)('purging expired app barcodes ($name)', (backend) => {
  async function node() {
    const clock = new ManualClock();
    const opened = await openEngine(backend, clock);
    open.push(opened);
    const engine = opened.engine;
    const a = await setUpVendor(engine, testVendor('Alpha'));
    const b = await setUpVendor(engine, testVendor('Beta'));
    const customer = async (vendor: typeof a, email: string) => {
      const registered = await registerInStore(engine, await authenticateApiKey(engine, vendor.apiKey), { email });
      return { userId: Number(registered.session.user_id), vendorId: vendor.vendorId };
    };
    const draw = async (who: { userId: number; vendorId: number }) => requestBarcodeToken(engine, { sessionId: 0, ...who }, BARCODE_TOKEN_TYPE);
    return { clock, engine, a, b, customer, draw };
  }

  const tokenIds = async (engine: Engine) => (await engine.db.selectFrom('barcode_tokens').select('id').orderBy('id').execute()).map((r) => Number(r.id));

  /** What check-in answers for `code`: the customer's id, or the refusal's code, message and field. */
  async function checkIn(engine: Engine, vendorId: number, code: string) {
    try {
      return { userId: Number((await identifyCustomer(engine.db, engine, { vendorId, country: 'US', identification: code })).user.id) };
    } catch (error) {
      if (!isServiceError(error)) throw error;
      return { code: error.code, message: error.message, field: error.field };
    }
  }

  it('removes barcodes more than the grace past their expiry, whoever’s they are, and keeps the rest', async () => {
    const { clock, engine, a, b, customer, draw } = await node();
    const ana = await customer(a, 'ana@purge.test');
    const bo = await customer(a, 'bo@purge.test');
    const cy = await customer(b, 'cy@purge.test');
    const start = clock.now();
    await draw(ana);
    await draw(cy);
    // The grace's edge: one expired exactly a grace ago stays, one a millisecond earlier goes.
    clock.set(start + 3 * 3600_000 - 1);
    await draw(ana);
    clock.set(start + 3 * 3600_000);
    const edge = await draw(bo);
    clock.set(start + 5 * 3600_000);
    const recent = [await draw(bo), await draw(cy)];
    clock.set(edge.expiresAt + BARCODE_TOKEN_GRACE_MS);
    const live = await draw(ana);
    // Expired, but within the grace.
    expect(recent.every((t) => t.expiresAt < clock.now())).toBe(true);

    expect(await purgeExpiredBarcodeTokens(engine)).toBe(3);
    expect(await tokenIds(engine)).toEqual([edge, ...recent, live].map((t) => t.id).sort((x, y) => x - y));
    // Nothing more is due: a second run removes nothing.
    expect(await purgeExpiredBarcodeTokens(engine)).toBe(0);
  });

  it('works in batches of PURGE_BATCH, letting requests in between, and stops when told', async () => {
    const { clock, engine, a, customer, draw } = await node();
    const ana = await customer(a, 'ana@batches.test');
    const now = clock.now();
    const due = 2 * PURGE_BATCH + 345;
    // Rows as requestBarcodeToken writes them, in bulk: ids above any the node hands out here.
    const rows = Array.from({ length: due }, (_, i) => ({ id: 9_000_000_000_000 + i, user_id: ana.userId, vendor_id: a.vendorId, token_hash: `hash-${i}`, token_type: BARCODE_TOKEN_TYPE, created_at: now - 3 * 86_400_000, expires_at: now - 3 * 86_400_000 + TTL_MS }));
    for (let i = 0; i < rows.length; i += 500) await engine.db.insertInto('barcode_tokens').values(rows.slice(i, i + 500)).execute();
    const live = await draw(ana);

    let pauses = 0;
    const stopAfterFirst = async () => {
      pauses += 1;
      return false;
    };
    expect(await purgeExpiredBarcodeTokens(engine, stopAfterFirst)).toBe(PURGE_BATCH);
    expect(pauses).toBe(1);
    expect((await tokenIds(engine)).length).toBe(due - PURGE_BATCH + 1);

    pauses = 0;
    const goOn = async () => {
      pauses += 1;
      return true;
    };
    expect(await purgeExpiredBarcodeTokens(engine, goOn)).toBe(due - PURGE_BATCH);
    // A full batch, then the last, partial one: one pause between them, none after.
    expect(pauses).toBe(1);
    expect(await tokenIds(engine)).toEqual([live.id]);
  });

  it('a barcode checks in until it expires, and an expired one gets the same answer before and after the purge', async () => {
    const { clock, engine, a, customer, draw } = await node();
    const ana = await customer(a, 'ana@checkin.test');
    const token = await draw(ana);
    const unknown = await checkIn(engine, a.vendorId, `PC${'0123456789ABCDEF'}`);
    expect(unknown).toMatchObject({ code: 'customer_not_found', field: 'card_number' });

    clock.set(token.expiresAt - 1);
    expect(await checkIn(engine, a.vendorId, token.token)).toEqual({ userId: ana.userId });
    expect(await purgeExpiredBarcodeTokens(engine)).toBe(0);
    expect(await checkIn(engine, a.vendorId, token.token)).toEqual({ userId: ana.userId });

    // Expired: the answer for an unknown code, the row still there through the grace.
    clock.set(token.expiresAt);
    expect(await checkIn(engine, a.vendorId, token.token)).toEqual(unknown);
    clock.set(token.expiresAt + BARCODE_TOKEN_GRACE_MS);
    expect(await purgeExpiredBarcodeTokens(engine)).toBe(0);
    expect(await tokenIds(engine)).toEqual([token.id]);
    expect(await checkIn(engine, a.vendorId, token.token)).toEqual(unknown);

    // Purged: nothing the counter sees changes.
    clock.advance(1);
    expect(await purgeExpiredBarcodeTokens(engine)).toBe(1);
    expect(await tokenIds(engine)).toEqual([]);
    expect(await checkIn(engine, a.vendorId, token.token)).toEqual(unknown);
  });

  it('has an index on expires_at for the purge to read (migration 0035)', async () => {
    const { engine } = await node();
    const indexes =
      engine.dialect === 'sqlite'
        ? (await sql<{ name: string; column: string }>`select il.name as name, ii.name as column from pragma_index_list('barcode_tokens') il join pragma_index_info(il.name) ii`.execute(engine.db)).rows
        : (await sql<{ name: string; column: string }>`select i.relname as name, a.attname as column from pg_index x join pg_class i on i.oid = x.indexrelid join pg_attribute a on a.attrelid = x.indrelid and a.attnum = any(x.indkey) where x.indrelid = 'barcode_tokens'::regclass`.execute(engine.db)).rows;
    expect(indexes).toContainEqual({ name: 'barcode_tokens_expiry', column: 'expires_at' });
  });
});

describe('the purge reads only what is due', () => {
  const plans = nodeForPlans('punchcard-barcode-purge-plans-');
  it('a range of the index on expires_at, not every barcode ever drawn', async () => {
    expect(await plans.planOf(expiredBarcodeTokensQuery(plans.engine().db, Date.now(), PURGE_BATCH))).toMatch(/^SEARCH barcode_tokens USING (COVERING )?INDEX barcode_tokens_expiry \(expires_at<\?\)$/);
  });
});
