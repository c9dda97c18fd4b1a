import { describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { versionOf } from '../../src/core/program-cache/program-data';
import { loadProgramSettings } from '../../src/core/rules/settings/program-settings';
import { migrateToLatest } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// Migration 0050 on a database from before it: a program with two loyalty currencies is set to
// count its first (the one made with the program), which its back office then names; one with a
// single loyalty currency is left to the default (null), which is that same currency.

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
});
