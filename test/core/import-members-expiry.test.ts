import { afterEach, describe, expect, it } from 'vitest';
import { createCard } from '../../src/core/cards/create-card';
import type { Engine } from '../../src/core/engine';
import { expirePoints } from '../../src/core/expiry/expire-points';
import { importMembers, type ImportReport } from '../../src/core/import/import-members';
import { readMemberFile } from '../../src/core/import/member-file';
import { findBalanceMismatches } from '../../src/core/ledger/ledger';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { importReasonWords } from '../../src/shared/import-reason-words';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// Imported opening points follow the program's points expiry as if earned on the day of the
// import (the earning's rule), or the old system's own date (`points_expire_on`), and the hourly
// expiry job takes them like any other lot; in a program without expiry they stay. On an SQLite
// file and on PostgreSQL, through both of the import's writers: the batch's (addNewMembers) and
// the row's own (writeMember, taken for a row whose card the program has already).

const DAY = 24 * 3600_000;

const open: Array<{ engine: Engine; close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

const run = (engine: Engine, vendor: VendorCredentials, text: string): Promise<ImportReport> =>
  importMembers(engine, { vendorId: vendor.vendorId, fileName: 'members.csv', records: readMemberFile(text).records, dryRun: false });

/** A member's points (the vendor's loyalty currency), their import entry's date and the job's expiries, by email. */
async function pointsOf(engine: Engine, vendor: VendorCredentials, email: string) {
  const account = await engine.db
    .selectFrom('ledger_accounts as a')
    .innerJoin('users as u', 'u.id', 'a.holder_id')
    .select(['a.id', 'a.balance'])
    .where('a.holder_type', '=', 'user')
    .where('a.currency_id', '=', vendor.loyaltyCurrencyId)
    .where('u.email_key', '=', email)
    .executeTakeFirstOrThrow();
  const entries = await engine.db.selectFrom('ledger_entries').select(['kind', 'amount', 'expires_at']).where('account_id', '=', account.id).orderBy('id').execute();
  const imported = entries.find((e) => e.kind === 'import')!;
  return {
    balance: Number(account.balance),
    expiresAt: imported.expires_at === null ? null : Number(imported.expires_at),
    expired: entries.filter((e) => e.kind === 'expiry').map((e) => Number(e.amount)),
  };
}

describe.each(BACKENDS)('imported points and points expiry ($name)', (backend) => {
  async function program(expiryDays: number | null, country = 'US') {
    const clock = new ManualClock();
    const opened = await openEngine(backend, clock);
    open.push(opened);
    const vendor = await setUpVendor(opened.engine, { ...testVendor('Café Uno'), country });
    await opened.engine.db.updateTable('vendors').set({ points_expiry_days: expiryDays }).where('id', '=', vendor.vendorId).execute();
    return { engine: opened.engine, vendor, clock };
  }

  afterEach(async () => {
    for (const { engine } of open) expect(await findBalanceMismatches(engine.db)).toEqual([]);
  });

  it('in a program whose points expire after 365 days, imported points expire 365 days after the import: the hourly job takes them', async () => {
    const { engine, vendor, clock } = await program(365);
    // Ben's card is the program's already: his row is written on its own (writeMember), Ana's with the batch.
    await createCard(engine, { vendorId: vendor.vendorId }, { number: 'GIFT01' });
    const importedAt = clock.now();
    const report = await run(engine, vendor, 'email,card,points\nana@example.com,,500\nben@example.com,GIFT01,500\n');
    expect(report).toMatchObject({ imported: 2, refused: 0, points: 1000 });
    for (const email of ['ana@example.com', 'ben@example.com']) {
      expect(await pointsOf(engine, vendor, email)).toEqual({ balance: 500, expiresAt: importedAt + 365 * DAY, expired: [] });
    }

    clock.advance(365 * DAY - 3600_000);
    await expirePoints(engine);
    expect((await pointsOf(engine, vendor, 'ana@example.com')).balance).toBe(500);

    clock.set(importedAt + 366 * DAY);
    expect(await expirePoints(engine)).toMatchObject({ accounts: 2, points: 1000 });
    for (const email of ['ana@example.com', 'ben@example.com']) {
      expect(await pointsOf(engine, vendor, email)).toEqual({ balance: 0, expiresAt: importedAt + 365 * DAY, expired: [-500] });
    }
  });

  it('points_expire_on sets when a member’s imported points expire (ISO or day first); a past or unreadable date refuses the row', async () => {
    const { engine, vendor, clock } = await program(365, 'EC');
    const importedAt = clock.now(); // 2026-11-21 09:30 UTC
    await createCard(engine, { vendorId: vendor.vendorId }, { number: 'GIFT01' });
    const report = await run(
      engine,
      vendor,
      [
        'email,card,points,points_expire_on',
        'ana@example.com,,500,2026-12-21',
        'ben@example.com,GIFT01,300,21/12/2026',
        'cid@example.com,,200,',
        'dan@example.com,,100,2026-11-20',
        'eve@example.com,,100,31/02/2027',
        'fay@example.com,,100,soon',
        // Today: the points can still be spent until the day ends (the store is in UTC here).
        'gus@example.com,,100,2026-11-21',
        // No points: an old date the old system kept does not refuse the member.
        'hal@example.com,,,2026-01-01',
      ].join('\n'),
    );
    expect(report.reported.map((r) => [r.line, r.reason, r.field])).toEqual([
      [5, 'expiry_in_the_past', 'points_expire_on'],
      [6, 'invalid_expiry_date', 'points_expire_on'],
      [7, 'invalid_expiry_date', 'points_expire_on'],
    ]);
    expect(report.imported).toBe(5);
    // The day written is the points' last: they go when it ends.
    const dec21Ends = Date.UTC(2026, 11, 22);
    expect(await pointsOf(engine, vendor, 'ana@example.com')).toMatchObject({ balance: 500, expiresAt: dec21Ends - 1 });
    expect(await pointsOf(engine, vendor, 'ben@example.com')).toMatchObject({ balance: 300, expiresAt: dec21Ends - 1 });
    // An empty cell: the program's rule.
    expect(await pointsOf(engine, vendor, 'cid@example.com')).toMatchObject({ balance: 200, expiresAt: importedAt + 365 * DAY });

    clock.set(dec21Ends - 3600_000);
    await expirePoints(engine);
    expect((await pointsOf(engine, vendor, 'ana@example.com')).balance).toBe(500);
    clock.set(dec21Ends + 3600_000);
    await expirePoints(engine);
    expect(await pointsOf(engine, vendor, 'ana@example.com')).toMatchObject({ balance: 0, expired: [-500] });
    expect(await pointsOf(engine, vendor, 'ben@example.com')).toMatchObject({ balance: 0, expired: [-300] });
    expect(await pointsOf(engine, vendor, 'cid@example.com')).toMatchObject({ balance: 200, expired: [] });
  });

  it('points_expire_on is the last day the points can be spent, counted in the program’s time zone (its first store’s)', async () => {
    // 2027-03-31 ends at 2027-04-01 04:00 UTC in New York (EDT) and at 2027-03-31 15:00 UTC in Tokyo.
    for (const [timeZone, dayEnds] of [
      ['America/New_York', Date.UTC(2027, 3, 1, 4)],
      ['Asia/Tokyo', Date.UTC(2027, 2, 31, 15)],
    ] as const) {
      const clock = new ManualClock();
      const opened = await openEngine(backend, clock);
      open.push(opened);
      const base = testVendor(`Café ${timeZone}`);
      const vendor = await setUpVendor(opened.engine, { ...base, store: { ...base.store, timeZone } });
      await opened.engine.db.updateTable('vendors').set({ points_expiry_days: 365 }).where('id', '=', vendor.vendorId).execute();
      const report = await run(opened.engine, vendor, 'email,points,points_expire_on\nana@example.com,500,2027-03-31\n');
      expect(report.imported, timeZone).toBe(1);
      const { expiresAt } = await pointsOf(opened.engine, vendor, 'ana@example.com');
      expect(expiresAt, timeZone).toBe(dayEnds - 1);
      // Shown where the program is, the moment they expire falls on the day written (not the next).
      expect(new Intl.DateTimeFormat('en-CA', { timeZone }).format(expiresAt!), timeZone).toBe('2027-03-31');
      // Half past eleven at night on the day written, local time: still there.
      clock.set(dayEnds - 30 * 60_000);
      await expirePoints(opened.engine);
      expect((await pointsOf(opened.engine, vendor, 'ana@example.com')).balance, timeZone).toBe(500);
      clock.set(dayEnds + 30 * 60_000);
      await expirePoints(opened.engine);
      expect(await pointsOf(opened.engine, vendor, 'ana@example.com'), timeZone).toMatchObject({ balance: 0, expired: [-500] });
    }
  });

  it('a day is past once it has ended in the program’s time zone: today is taken, yesterday refused', async () => {
    // 2026-11-21 09:30 UTC is 04:30 on the 21st in New York and 18:30 on the 21st in Tokyo.
    for (const timeZone of ['America/New_York', 'Asia/Tokyo']) {
      const clock = new ManualClock();
      const opened = await openEngine(backend, clock);
      open.push(opened);
      const base = testVendor(`Café ${timeZone}`);
      const vendor = await setUpVendor(opened.engine, { ...base, store: { ...base.store, timeZone } });
      const report = await run(opened.engine, vendor, 'email,points,points_expire_on\nana@example.com,500,2026-11-21\nben@example.com,500,2026-11-20\n');
      expect(report.reported.map((r) => [r.line, r.reason]), timeZone).toEqual([[3, 'expiry_in_the_past']]);
      expect(report.imported, timeZone).toBe(1);
    }
  });

  it('in a program whose country writes the month first, only YYYY-MM-DD is read', async () => {
    const { engine, vendor } = await program(365, 'US');
    const report = await run(engine, vendor, 'email,points,points_expire_on\nana@example.com,500,12/21/2026\nben@example.com,500,2026-12-21\n');
    expect(report.reported.map((r) => [r.line, r.reason])).toEqual([[2, 'invalid_expiry_date']]);
    expect(report.reported[0]!.message).toContain('YYYY-MM-DD');
    expect(report.imported).toBe(1);
  });

  it('in a program without expiry imported points stay; the old system’s date, when the file gives one, still applies', async () => {
    const { engine, vendor, clock } = await program(null);
    await run(engine, vendor, 'email,points,points_expire_on\nana@example.com,500,\nben@example.com,500,2026-12-21\n');
    expect(await pointsOf(engine, vendor, 'ana@example.com')).toEqual({ balance: 500, expiresAt: null, expired: [] });
    clock.advance(400 * DAY);
    await expirePoints(engine);
    expect(await pointsOf(engine, vendor, 'ana@example.com')).toEqual({ balance: 500, expiresAt: null, expired: [] });
    expect(await pointsOf(engine, vendor, 'ben@example.com')).toMatchObject({ balance: 0, expired: [-500] });
  });
});

describe('the refusals of points_expire_on in words', () => {
  it('has English and Spanish words for both reasons', () => {
    for (const reason of ['invalid_expiry_date', 'expiry_in_the_past']) {
      for (const language of ['en', 'es'] as const) expect(importReasonWords(reason, language, 'FALLBACK')).not.toBe('FALLBACK');
    }
  });
});
