import { describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { changeCurrency } from '../../src/core/currencies/update-currency';
import type { Engine } from '../../src/core/engine';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import { tierPoints } from '../../src/core/orders/tier-points';
import { programData, versionOf } from '../../src/core/program-cache/program-data';
import { tierCurrencyIn, tierCurrencyOf } from '../../src/core/rules/tiers/tier-currency';
import { loadProgramSettings } from '../../src/core/rules/settings/program-settings';
import { migrateToLatest } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// Migration 0050 on a database from before it: a program with two loyalty currencies is set to
// count its first (the one made with the program), which its back office then names; one with a
// single loyalty currency is left to the default (null), which is that same currency. "First" is
// the oldest not archived: a program that retired Points for Stars counts Stars (review, 20th round).

describe.each(BACKENDS)('migration 0050-tier-currency ($name)', (backend) => {
  it('sets a two-currency program’s tiers to its first loyalty currency and moves its program data version', async () => {
    const opened = await openEngine(backend, new ManualClock());
    try {
      const { engine } = opened;
      const cafe = await setUpVendor(engine, testVendor('Two'));
      const stamps = await createCurrency(engine, { vendorId: cafe.vendorId }, { name: 'Stamps' });
      const single = await setUpVendor(engine, testVendor('One'));
      // The database as 0049 left it.
      await engine.db.schema.alterTable('vendors').dropColumn('tier_currency_id').execute();
      await engine.db.deleteFrom('schema_migrations' as never).where('name' as never, '=', '0050-tier-currency' as never).execute();
      const versionBefore = await versionOf(engine.db, cafe.vendorId);

      await migrateToLatest(engine.db);

      const rows = await engine.db.selectFrom('vendors').select(['id', 'tier_currency_id']).where('id', 'in', [cafe.vendorId, single.vendorId]).orderBy('id').execute();
      const points = await engine.db.selectFrom('currencies').select('id').where('vendor_id', '=', cafe.vendorId).where('name', '=', 'Points').executeTakeFirstOrThrow();
      expect(rows.map((r) => [Number(r.id), r.tier_currency_id === null ? null : Number(r.tier_currency_id)])).toEqual([
        [cafe.vendorId, Number(points.id)],
        [single.vendorId, null],
      ]);
      expect(stamps.id).not.toBe(Number(points.id));
      // The cache of program data sees the change (the vendors triggers of 0017).
      expect(await versionOf(engine.db, cafe.vendorId)).not.toBe(versionBefore);
      const pointsPublic = await engine.db.selectFrom('currencies').select('public_id').where('id', '=', points.id).executeTakeFirstOrThrow();
      expect((await loadProgramSettings(engine.db, cafe.vendorId)).tierCurrency).toBe(pointsPublic.public_id);
      const singlePoints = await engine.db.selectFrom('currencies').select('public_id').where('vendor_id', '=', single.vendorId).where('code', 'is', null).executeTakeFirstOrThrow();
      expect((await loadProgramSettings(engine.db, single.vendorId)).tierCurrency).toBe(singlePoints.public_id);
    } finally {
      await opened.close();
    }
  });

  it('sets a program that archived Points for Stars to Stars, what its members earn now', async () => {
    const opened = await openEngine(backend, new ManualClock());
    try {
      const { engine } = opened;
      const cafe = await setUpVendor(engine, testVendor('Retired'));
      const points = await engine.db.selectFrom('currencies').select(['id', 'public_id']).where('vendor_id', '=', cafe.vendorId).where('code', 'is', null).executeTakeFirstOrThrow();
      const stars = await createCurrency(engine, { vendorId: cafe.vendorId }, { name: 'Stars' });
      await changeCurrency(engine, { vendorId: cafe.vendorId }, points.public_id, { status: 'ARCHIVED' });
      const member = await earnStars(engine, cafe.vendorId, Number(stars.id), 80);
      // The database as 0049 left it.
      await engine.db.schema.alterTable('vendors').dropColumn('tier_currency_id').execute();
      await engine.db.deleteFrom('schema_migrations' as never).where('name' as never, '=', '0050-tier-currency' as never).execute();

      await migrateToLatest(engine.db);

      const vendor = await engine.db.selectFrom('vendors').select('tier_currency_id').where('id', '=', cafe.vendorId).executeTakeFirstOrThrow();
      expect(Number(vendor.tier_currency_id)).toBe(Number(stars.id));
      expect(await tierPoints(engine.db, member, 30, engine.clock.now() + 1000)).toBe(80);
    } finally {
      await opened.close();
    }
  });

  it('unset, counts a one-currency program’s new currency once its first is archived, in SQL and in the cache alike', async () => {
    const opened = await openEngine(backend, new ManualClock());
    try {
      const { engine } = opened;
      const cafe = await setUpVendor(engine, testVendor('Renamed'));
      const points = await engine.db.selectFrom('currencies').select(['id', 'public_id']).where('vendor_id', '=', cafe.vendorId).where('code', 'is', null).executeTakeFirstOrThrow();
      await changeCurrency(engine, { vendorId: cafe.vendorId }, points.public_id, { status: 'ARCHIVED' });
      const stars = await createCurrency(engine, { vendorId: cafe.vendorId }, { name: 'Stars' });
      const member = await earnStars(engine, cafe.vendorId, Number(stars.id), 30);

      expect((await engine.db.selectFrom('vendors').select('tier_currency_id').where('id', '=', cafe.vendorId).executeTakeFirstOrThrow()).tier_currency_id).toBeNull();
      expect(Number((await tierCurrencyOf(engine.db, cafe.vendorId))?.id)).toBe(Number(stars.id));
      expect(Number(tierCurrencyIn(await programData(engine.db, cafe.vendorId))?.id)).toBe(Number(stars.id));
      expect(await tierPoints(engine.db, member, 30, engine.clock.now() + 1000)).toBe(30);
      // Paused, it keeps counting (it comes back); with every loyalty currency archived, the first again.
      await changeCurrency(engine, { vendorId: cafe.vendorId }, stars.publicId, { status: 'INACTIVE' });
      expect(Number((await tierCurrencyOf(engine.db, cafe.vendorId))?.id)).toBe(Number(stars.id));
      expect(Number(tierCurrencyIn(await programData(engine.db, cafe.vendorId))?.id)).toBe(Number(stars.id));
      await changeCurrency(engine, { vendorId: cafe.vendorId }, stars.publicId, { status: 'ARCHIVED' });
      expect(Number((await tierCurrencyOf(engine.db, cafe.vendorId))?.id)).toBe(Number(points.id));
      expect(Number(tierCurrencyIn(await programData(engine.db, cafe.vendorId))?.id)).toBe(Number(points.id));
    } finally {
      await opened.close();
    }
  });
});

/** A member of the program holding `amount` of a loyalty currency, earned now. */
async function earnStars(engine: Engine, vendorId: number, currencyId: number, amount: number) {
  const user = await engine.db.selectFrom('users').select('id').executeTakeFirst();
  const userId = Number(user?.id ?? 424242);
  const account = await openAccount(engine.db, engine, { vendorId, currencyId, holderType: 'user', holderId: userId });
  await postEntry(engine.db, engine, account, { amount, kind: 'earn', expiresAt: null });
  return { vendorId, userId };
}
