import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createCurrency } from '../../src/core/currencies/create-currency';
import { deleteCurrency } from '../../src/core/currencies/delete-currency';
import { startEngine } from '../../src/core/engine';
import { updateProgramSettings } from '../../src/core/rules/settings/update-program-settings';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';
import { waitForLockWaits } from '../support/pg-lock-waits';
import { openTestPostgres } from '../support/postgres';

// A currency's delete refuses the tier currency, and the settings update chooses only a currency
// not deleted: both read before they write, so on PostgreSQL both take the vendor row first
// (delete-currency.ts, update-program-settings.ts). Here the delete is held after its tier check
// (on ledger_accounts, which its balance check reads) while the back office makes that currency
// the tier currency: the choice waits for the delete and is refused, and the tiers never count a
// deleted currency.
describe.skipIf(!process.env.PG_URL)('a currency deleted while it is made the tier currency, on PostgreSQL (PG_URL)', () => {
  it('never leaves the tiers counting a deleted currency', async () => {
    const opened = await openTestPostgres();
    const engine = await startEngine({ database: opened.database, nodeKey: randomBytes(32), clock: new ManualClock(), role: 'store' });
    const blocker = new pg.Client({ connectionString: opened.url });
    await blocker.connect();
    try {
      const cafe = await setUpVendor(engine, testVendor('Race'));
      const stamps = await createCurrency(engine, { vendorId: cafe.vendorId }, { name: 'Stamps' });
      await blocker.query('begin');
      await blocker.query('lock table ledger_accounts in access exclusive mode');
      const deleting = deleteCurrency(engine, { vendorId: cafe.vendorId }, stamps.publicId).then(
        () => 'deleted',
        (error: { code?: string }) => `refused ${error.code}`,
      );
      await waitForLockWaits(blocker, 1);
      const choosing = updateProgramSettings(engine, { vendorId: cafe.vendorId }, { tierCurrency: stamps.publicId }).then(
        () => 'chosen',
        (error: { code?: string }) => `refused ${error.code}`,
      );
      // The choice either waits for the delete (the lock) or, without one, commits meanwhile.
      await Promise.race([choosing, new Promise((resolve) => setTimeout(resolve, 500))]);
      await blocker.query('commit');
      expect([await deleting, await choosing]).toEqual(['deleted', 'refused unknown_currency']);
      const vendor = await engine.db.selectFrom('vendors').select('tier_currency_id').where('id', '=', cafe.vendorId).executeTakeFirstOrThrow();
      expect(vendor.tier_currency_id).toBeNull();
    } finally {
      await blocker.end().catch(() => undefined);
      await engine.close();
      await opened.drop();
    }
  }, 60_000);
});
