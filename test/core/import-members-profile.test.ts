import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { registerCustomer } from '../../src/core/customers/register-customer';
import type { Engine } from '../../src/core/engine';
import { importMembers, type ImportReport } from '../../src/core/import/import-members';
import { readMemberFile } from '../../src/core/import/member-file';
import { registerInStore } from '../../src/core/onscreen/register-in-store';
import { setUpVendor, type VendorCredentials } from '../../src/core/tenancy/set-up-vendor';
import { BACKENDS, openEngine, testVendor } from '../support/backends';
import { ManualClock } from '../support/clock';

// The old system's birthdays, marketing consent and language into where sign-up and the app's
// profile keep them (users.birthdate; the membership's contact_consent and language), on an
// SQLite file and on PostgreSQL, by the batched write and by the one-row-at-a-time write; bad
// values refused by line and code; a file that says nothing leaving consent not given, as at the
// counter. Read back over HTTP at the counter: test/cli/import-customers.test.ts.

const SPANISH = [
  'name;email;fecha_nacimiento;newsletter;sms_consent;idioma',
  'Ana López;ana@example.com;15/03/1990;Sí;;es',
  'Ben Okafor;ben@example.com;1985-12-01;no;NO;EN',
  'Cai Ruiz;cai@example.com;;;;',
  'Dua Lipa;dua@example.com;31/02/1990;;;',
  'Eli Roe;eli@example.com;2090-01-01;;;',
  'Fia Gil;fia@example.com;01/01/1850;;;',
  'Gil Paz;gil@example.com;;quizás;;',
  'Hal Sol;hal@example.com;;;;fr',
  'Ivo Mar;ivo@example.com;1.7.2001;1;true;es-ES',
].join('\n');

const open: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const handle of open.splice(0).reverse()) await handle.close();
});

const run = (engine: Engine, vendor: VendorCredentials, text: string): Promise<ImportReport> => {
  const file = readMemberFile(text);
  return importMembers(engine, { vendorId: vendor.vendorId, fileName: 'socios.csv', records: file.records, decimalMark: file.decimalMark, dryRun: false });
};

/** What the program keeps of a person's birthday, consent and language, and the welcome they were sent. */
async function kept(engine: Engine, vendorId: number, email: string) {
  const row = await engine.db
    .selectFrom('users as u')
    .innerJoin('user_vendors as uv', 'uv.user_id', 'u.id')
    .innerJoin('inbox_messages as m', (join) => join.onRef('m.user_id', '=', 'u.id').on('m.kind', '=', 'welcome'))
    .select(['u.birthdate', 'uv.contact_consent', 'uv.language', 'm.title'])
    .where('u.email_key', '=', email)
    .where('uv.vendor_id', '=', vendorId)
    .executeTakeFirstOrThrow();
  return { birthdate: row.birthdate === null ? null : Number(row.birthdate), consent: Number(row.contact_consent), language: row.language, welcome: row.title };
}

describe.each(BACKENDS)('birthdays, consent and language from the old system ($name)', (backend) => {
  async function program(country = 'ES') {
    const opened = await openEngine(backend, new ManualClock());
    open.push(opened);
    const vendor = await setUpVendor(opened.engine, { ...testVendor('Café Uno'), currency: 'EUR', country, language: 'en' });
    return { engine: opened.engine, vendor };
  }

  it('keeps them where sign-up keeps them, refuses a bad one by line and code, and leaves consent not given when the file does not say', async () => {
    const { engine, vendor } = await program();
    const report = await run(engine, vendor, SPANISH);
    expect(report.reported.map((r) => `${r.line} ${r.reason} ${r.field}`)).toEqual([
      '5 invalid_birthdate birthdate',
      '6 birthdate_out_of_range birthdate',
      '7 birthdate_out_of_range birthdate',
      '8 invalid_consent marketing',
      '9 unsupported_language language',
    ]);
    expect(report).toMatchObject({ imported: 4, refused: 5 });
    expect(await engine.db.selectFrom('users').select('email').where('email', 'in', ['dua@example.com', 'eli@example.com', 'fia@example.com', 'gil@example.com', 'hal@example.com']).execute()).toEqual([]);

    // The same person signing up in the app with that birthday, consent to email and Spanish is kept the same way.
    await registerCustomer(engine, { vendorId: vendor.vendorId, firstName: 'Ana', lastName: 'App', email: 'ana-app@example.com', password: 'a long passphrase', terms: true, birthdate: Date.UTC(1990, 2, 15) / 1000, contactConsent: 1, language: 2 });
    expect(await kept(engine, vendor.vendorId, 'ana@example.com')).toEqual(await kept(engine, vendor.vendorId, 'ana-app@example.com'));
    expect(await kept(engine, vendor.vendorId, 'ana@example.com')).toMatchObject({ birthdate: Date.UTC(1990, 2, 15), consent: 1, language: 'es', welcome: '¡Le damos la bienvenida a Café Uno!' });
    expect(await kept(engine, vendor.vendorId, 'ben@example.com')).toMatchObject({ birthdate: Date.UTC(1985, 11, 1), consent: 0, language: 'en' });
    expect(await kept(engine, vendor.vendorId, 'ivo@example.com')).toMatchObject({ birthdate: Date.UTC(2001, 6, 1), consent: 3, language: 'es' });

    // Nothing said: as a guest the counter registers (no birthday, no consent, the program's language).
    await registerInStore(engine, await authenticateApiKey(engine, vendor.apiKey), { email: 'guest@example.com', firstName: 'Guest' });
    const guest = await kept(engine, vendor.vendorId, 'guest@example.com');
    expect(guest).toMatchObject({ birthdate: null, consent: 0, language: null });
    expect(await kept(engine, vendor.vendorId, 'cai@example.com')).toEqual(guest);
  });

  it('writes them the same when a batch is written one row at a time', async () => {
    const { engine, vendor } = await program();
    const batched = await run(engine, vendor, SPANISH);
    const { engine: other, vendor: otherVendor } = await program();
    // A key no look-up of the import reads: the batch's write fails on it, and its rows are written one by one.
    await sql`create unique index import_test_twin on users (last_name) where last_name = 'Twin'`.execute(other.db);
    await registerInStore(other, await authenticateApiKey(other, otherVendor.apiKey), { email: 'first-twin@example.com', firstName: 'First', lastName: 'Twin' });
    const oneByOne = await run(other, otherVendor, `${SPANISH}\nSecond Twin;twin@example.com;;;;`);
    expect(oneByOne.reported.map((r) => `${r.line} ${r.reason}`)).toEqual([...batched.reported.map((r) => `${r.line} ${r.reason}`), '11 contact_taken']);
    expect(await kept(other, otherVendor.vendorId, 'ana@example.com')).toEqual({ birthdate: Date.UTC(1990, 2, 15), consent: 1, language: 'es', welcome: '¡Le damos la bienvenida a Café Uno!' });
    for (const email of ['ana@example.com', 'ben@example.com', 'cai@example.com', 'ivo@example.com']) {
      expect(await kept(other, otherVendor.vendorId, email), email).toEqual(await kept(engine, vendor.vendorId, email));
    }
  });

  it('reads day-first dates except where the program’s spreadsheets write the month first', async () => {
    const { engine, vendor } = await program('US');
    const report = await run(engine, vendor, ['email,birthday,marketing', 'ana@example.com,03/15/1990,yes', 'ben@example.com,1990-03-15,'].join('\n'));
    expect(report.reported.map((r) => `${r.line} ${r.reason}`)).toEqual(['2 invalid_birthdate']);
    expect(report.reported[0]!.message).toBe('"03/15/1990" is not a date of birth: write it as YYYY-MM-DD (1990-03-15).');
    expect(await kept(engine, vendor.vendorId, 'ben@example.com')).toMatchObject({ birthdate: Date.UTC(1990, 2, 15), consent: 0, language: null });
  });
});

describe('the columns of a member file', () => {
  it('reads the other names old systems give them, and refuses two names of one column', () => {
    const file = readMemberFile('Email,Date of birth,Marketing consent,Language,notes\nana@example.com,1990-03-15,yes,es,x\n');
    expect(file.records[0]!.fields).toMatchObject({ email: 'ana@example.com', birthdate: '1990-03-15', marketing: 'yes', language: 'es' });
    expect(file.ignoredColumns).toEqual(['notes']);
    expect(() => readMemberFile('email,birthday,dob\n')).toThrow('The column birthdate appears twice in the header (as birthday and dob).');
  });
});
