import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCard } from '../../src/core/cards/create-card';
import { updateCard } from '../../src/core/cards/update-card';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { type Engine, startEngine } from '../../src/core/engine';
import { importMembers, type ImportReport } from '../../src/core/import/import-members';
import { readMemberFile } from '../../src/core/import/member-file';
import { readOpeningAmount } from '../../src/core/import/opening-amount';
import { findBalanceMismatches, holderBalance } from '../../src/core/ledger/ledger';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// The old system's members into the program (punchcard import customers' use case), on an SQLite
// file and on PostgreSQL: good rows imported with their card and opening balances, bad rows
// reported by line and reason while the rest goes on, a second run adding nothing, a dry run
// writing nothing. The command itself, and balances read back over HTTP: test/cli/import-customers.

const FILE = [
  'first_name,last_name,email,phone,card,points,quick_pay,old_id',
  'Ana,López,ana@example.com,(415) 555-0101,OLD0001,120,12.50,77',
  'Ben,Okafor,,415-555-0102,,40,,78',
  '"Núñez, Carla",,carla@example,,,,,79',
  'Dan,Kim,dan@example.com,,OLD0004,5,12.505,80',
  ',,,,,,,',
  'Eve,Stone,eve@example.com,12345,,,,81',
  'Fay,,ANA@example.com,,,,,82',
  'Gus,,gus@example.com,+44 20 7946 0958,old0007,0,3,83',
  'Hal,,hal@example.com,,,1.5,,84',
  'Ivy,,,,,10,,85',
  'Joe,,joe@example.com,,BAD-CARD,,,86',
  'Kim,,kim@example.com,,,"1,250",,87',
  'Lea,,lea@example.com,,,99999999999,,88',
  'Max,,max@example.com,,,,0.1,89',
].join('\n');

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

async function count(engine: Engine) {
  const n = async (table: 'users' | 'user_vendors' | 'ledger_entries' | 'cards' | 'user_cards' | 'transactions') => Number((await engine.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { users: await n('users'), members: await n('user_vendors'), entries: await n('ledger_entries'), cards: await n('cards'), links: await n('user_cards'), history: await n('transactions') };
}

const run = (engine: Engine, vendor: VendorCredentials, text: string, dryRun = false): Promise<ImportReport> =>
  importMembers(engine, { vendorId: vendor.vendorId, fileName: 'members.csv', records: readMemberFile(text).records, dryRun });

const problems = (report: ImportReport) => report.reported.map((r) => `${r.line} ${r.outcome} ${r.reason}`);

describe.each(BACKENDS)('importing members from the old system ($name)', (backend) => {
  async function program() {
    const opened = await openEngine(backend, new ManualClock());
    open.push(opened);
    const vendor = await setUpVendor(opened.engine, testVendor('Café Uno'));
    return { engine: opened.engine, vendor };
  }

  it('imports the good rows with their card and opening balances, and reports each bad one by line and reason', async () => {
    const { engine, vendor } = await program();
    const report = await run(engine, vendor, FILE);
    expect(problems(report)).toEqual([
      '4 refused invalid_email',
      '5 refused too_many_decimals',
      '7 refused invalid_phone',
      '8 refused duplicate_in_file',
      '10 refused too_many_decimals',
      '11 refused no_contact',
      '12 refused invalid_card_number',
      '13 refused invalid_amount',
      '14 refused amount_too_large',
    ]);
    expect(report).toMatchObject({ rows: 13, imported: 4, alreadyMembers: 0, refused: 9, points: 160, quickPay: 1250 + 300 + 10 });
    expect(report.refusedByReason).toEqual({ invalid_email: 1, too_many_decimals: 2, invalid_phone: 1, duplicate_in_file: 1, no_contact: 1, invalid_card_number: 1, invalid_amount: 1, amount_too_large: 1 });

    const ana = await engine.db.selectFrom('users').selectAll().where('email_key', '=', 'ana@example.com').executeTakeFirstOrThrow();
    expect(ana).toMatchObject({ first_name: 'Ana', last_name: 'López', phone: '+14155550101', password_hash: null, status: 'active' });
    const gus = await engine.db.selectFrom('users').selectAll().where('email_key', '=', 'gus@example.com').executeTakeFirstOrThrow();
    expect(gus.phone).toBe('+442079460958');
    const key = (user: { id: number }, currencyId: number) => ({ holderType: 'user' as const, holderId: user.id, currencyId });
    expect(await holderBalance(engine.db, key(ana, vendor.loyaltyCurrencyId))).toBe(120);
    expect(await holderBalance(engine.db, key(ana, vendor.quickPayCurrencyId))).toBe(1250);
    expect(await holderBalance(engine.db, key(gus, vendor.quickPayCurrencyId))).toBe(300);
    // Balances are their entries, of the kind that says where they came from.
    const entries = await engine.db.selectFrom('ledger_entries').select(['kind', 'amount', 'reference_type']).orderBy('id').execute();
    expect(entries.map((e) => [e.kind, Number(e.amount), e.reference_type])).toEqual([
      ['import', 120, 'import'], ['import', 1250, 'import'], ['import', 40, 'import'], ['import', 300, 'import'], ['import', 10, 'import'],
    ]);
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
    // Cards made and linked (the file's letter case kept), memberships in the entry tier, a history record each.
    const cards = await engine.db.selectFrom('cards as c').innerJoin('user_cards as uc', 'uc.card_id', 'c.id').select(['c.number', 'uc.user_id']).orderBy('c.number').execute();
    expect(cards).toEqual([{ number: 'OLD0001', user_id: ana.id }, { number: 'old0007', user_id: gus.id }]);
    const memberships = await engine.db.selectFrom('user_vendors').select(['tier_id', 'counter_enrolled']).where('vendor_id', '=', vendor.vendorId).execute();
    expect(memberships).toHaveLength(4);
    expect(memberships.every((m) => m.tier_id !== null && m.counter_enrolled === 0)).toBe(true);
    const history = await engine.db.selectFrom('transactions').select(['kind', 'quick_pay_loaded', 'rewards']).where('user_id', '=', ana.id).execute();
    expect(history).toEqual([{ kind: 'import', quick_pay_loaded: 1250, rewards: JSON.stringify([{ object: 'reward', kind: 'import', name: 'Balance brought from the previous program', amount: 120, currency: 'Points' }]) }]);
    // Audited as the command line, one record per batch (one here, unless the machine is slow enough to split it).
    const audit = await engine.db.selectFrom('audit_log').select(['actor', 'action', 'after']).where('action', '=', 'customers.import').execute();
    expect(audit.every((a) => a.actor === 'cli')).toBe(true);
    const after = audit.map((a) => JSON.parse(a.after!));
    expect(after[0]).toMatchObject({ file: 'members.csv', lines: expect.stringMatching(/^2-/), already_members: 0, refused: 0 });
    expect(after.reduce((sum, a) => sum + a.imported, 0)).toBe(4);
  });

  it('adds nothing when the same file is imported again: every row already a member is skipped', async () => {
    const { engine, vendor } = await program();
    await run(engine, vendor, FILE);
    const before = await count(engine);
    const again = await run(engine, vendor, FILE);
    expect(again).toMatchObject({ imported: 0, alreadyMembers: 4, refused: 9, points: 0, quickPay: 0 });
    expect(again.reported.filter((r) => r.outcome === 'skipped').map((r) => [r.line, r.field])).toEqual([[2, 'email'], [3, 'phone'], [9, 'email'], [15, 'email']]);
    expect(await count(engine)).toEqual(before);
  });

  it('skips a member the counter registered, finds them by any of the row’s identifiers, and refuses an account of another program', async () => {
    const { engine, vendor } = await program();
    const other = await setUpVendor(engine, testVendor('Other Café'));
    await registerInStore(engine, await authenticateApiKey(engine, vendor.apiKey), { phone: { number: '(415) 555-0199' }, firstName: 'Rosa' });
    await registerInStore(engine, await authenticateApiKey(engine, other.apiKey), { email: 'tom@example.com', firstName: 'Tom' });
    const before = await count(engine);
    const report = await run(engine, vendor, 'name,email,phone,points\nRosa Díaz,rosa@example.com,4155550199,50\nTom Lee,tom@example.com,,20\n');
    expect(report.reported.map((r) => [r.line, r.outcome, r.reason, r.field])).toEqual([
      [2, 'skipped', 'already_member', 'phone'],
      [3, 'refused', 'account_not_member', 'email'],
    ]);
    expect(report.imported).toBe(0);
    // The member found is left as they were: no email added, no points.
    expect(await count(engine)).toEqual(before);
  });

  it('links a card the program made already, and refuses an archived one', async () => {
    const { engine, vendor } = await program();
    const scope = { vendorId: vendor.vendorId };
    const kept = await createCard(engine, scope, { number: 'GIFT01' });
    const archived = await createCard(engine, scope, { number: 'GONE01' });
    await updateCard(engine, scope, archived.publicId, { status: 'ARCHIVED' });
    const report = await run(engine, vendor, 'email,card,points\nana@example.com,gift01,10\nben@example.com,GONE01,5\n');
    expect(report.reported.map((r) => [r.line, r.reason, r.field])).toEqual([[3, 'card_not_active', 'card']]);
    const link = await engine.db.selectFrom('user_cards as uc').innerJoin('users as u', 'u.id', 'uc.user_id').select(['uc.card_id', 'u.email']).execute();
    expect(link).toEqual([{ card_id: kept.id, email: 'ana@example.com' }]);
    expect(await count(engine)).toMatchObject({ users: 1, cards: 2 });
  });

  it('a dry run reports what the import would do and writes nothing', async () => {
    const { engine, vendor } = await program();
    const before = await count(engine);
    const dry = await run(engine, vendor, FILE, true);
    expect(dry).toMatchObject({ dryRun: true, imported: 4, refused: 9, points: 160 });
    expect(await count(engine)).toEqual(before);
    const real = await run(engine, vendor, FILE);
    expect(problems(real)).toEqual(problems(dry));
  });

  it('imports more rows than one batch, each batch audited', async () => {
    const { engine, vendor } = await program();
    const rows = Array.from({ length: 601 }, (_, i) => `Member,${i},m${i}@example.com,,C${i},${i},${i % 100}.${String(i % 100).padStart(2, '0')}`);
    const report = await run(engine, vendor, ['first_name,last_name,email,phone,card,points,quick_pay', ...rows].join('\n'));
    expect(report).toMatchObject({ imported: 601, refused: 0 });
    expect(report.points).toBe((600 * 601) / 2);
    // Batches of at most 500 rows (fewer when one runs a second), one after the other, each with its audit record.
    const audit = (await engine.db.selectFrom('audit_log').select('after').where('action', '=', 'customers.import').orderBy('id').execute()).map((a) => JSON.parse(a.after!));
    expect(audit.length).toBeGreaterThanOrEqual(2);
    const ranges = audit.map((a) => (a.lines as string).split('-').map(Number) as [number, number]);
    expect(ranges[0]![0]).toBe(2);
    expect(ranges.at(-1)![1]).toBe(602);
    for (const [i, [first, last]] of ranges.entries()) {
      expect(last - first + 1).toBe(audit[i].imported);
      expect(audit[i].imported).toBeLessThanOrEqual(500);
      if (i > 0) expect(first).toBe(ranges[i - 1]![1] + 1);
    }
    expect(await findBalanceMismatches(engine.db)).toEqual([]);
  }, 240_000);
});

describe('importing members on a paired store', () => {
  it('is refused: customers are central’s', async () => {
    const { database, close } = await BACKENDS[0]!.open();
    const engine = await startEngine({ database, nodeKey: randomBytes(32), clock: new ManualClock(), role: 'store', programRole: 'replica' });
    open.push({ close: async () => (await engine.close(), await close()) });
    const vendor = await setUpVendor(engine, testVendor('Chain'));
    await expect(run(engine, vendor, 'email\nana@example.com\n')).rejects.toMatchObject({ code: 'customers_managed_by_central' });
    expect(await count(engine)).toMatchObject({ users: 0, entries: 0 });
  });
});

describe('opening amounts', () => {
  it('reads decimals exactly in the currency’s minor units and refuses what it cannot hold', () => {
    const read = (text: string, digits: number) => {
      const r = readOpeningAmount(text, digits);
      return r.ok ? r.minor : r.reason;
    };
    expect(read('12.50', 2)).toBe(1250);
    expect(read('12.5', 2)).toBe(1250);
    expect(read('12', 2)).toBe(1200);
    expect(read('12.', 2)).toBe(1200);
    expect(read('0.01', 2)).toBe(1);
    expect(read('12.500', 2)).toBe(1250);
    expect(read(' 7.10 ', 2)).toBe(710);
    expect(read('', 2)).toBe(0);
    expect(read('0.1', 2)).toBe(10);
    expect(read('12.505', 2)).toBe('too_many_decimals');
    expect(read('1200', 0)).toBe(1200);
    expect(read('12.5', 0)).toBe('too_many_decimals');
    expect(read('1.234', 3)).toBe(1234);
    expect(read('1,250', 2)).toBe('invalid_amount');
    expect(read('1.250,00', 2)).toBe('invalid_amount');
    expect(read('-5', 2)).toBe('invalid_amount');
    expect(read('$5', 2)).toBe('invalid_amount');
    expect(read('1e3', 2)).toBe('invalid_amount');
    expect(read('10000000.00', 2)).toBe(1_000_000_000);
    expect(read('10000000.01', 2)).toBe('amount_too_large');
    expect(read('99999999999999999999', 0)).toBe('amount_too_large');
  });
});
