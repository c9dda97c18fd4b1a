import type { Command } from 'commander';
import { cleanEmail } from '../../core/customers/contact';
import { likelyLanguage } from '../../core/geo/country-language';
import { likelyTimeZone, timeZonesOf } from '../../core/geo/country-time-zones';
import { addOwner } from '../../core/staff/add-owner';
import { checkVendorSetUp, setUpVendor } from '../../core/tenancy/set-up-vendor';
import { DATA_FOLDER_HELP, openFolderEngine } from './folder-checks';
import { dataDirAt } from '../node/data-dir';
import { databaseKindOf, folderRecordFile } from '../node/folder-record';
import { recordFolderDatabase } from '../node/folder-database';
import { adminUrlOf, signInLink } from './admin-url';

export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description('Create the database in DIR if missing and add a vendor with a store, currencies and credentials.')
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .requiredOption('--vendor <name>', 'name of the vendor (the loyalty program)')
    .option('--currency <code>', 'ISO 4217 code of the quick-pay balance', 'USD')
    .option('--country <code>', 'ISO 3166-1 country of the vendor and its store', 'US')
    .option('--store-name <name>', 'name of the first store', 'Main Store')
    .option('--address <line>', 'street address of the first store', '1 Main Street')
    .option('--city <city>', 'city of the first store', 'Springfield')
    .option('--language <code>', "the program's language, en or es: customers' mail and pages default to it, and init names what it makes in it (default: --country's when it is one of them, else en)")
    .option('--time-zone <zone>', "IANA time zone of the first store (default: this computer's when it lies in --country, else the country's only one, else UTC)")
    .option('--countries <codes>', 'ISO 3166-1 codes the vendor serves, comma-separated (default: every country)', parseCountryCodes)
    .option('--owner <email>', "the back office's first owner: takes the password in PUNCHCARD_OWNER_PASSWORD, else prints a one-time sign-in link")
    .option('--admin-url <url>', "where the back office will be reached, for the sign-in link (default: http://127.0.0.1:4321/admin, or :4320 on a central's folder)")
    .option('--json', 'print one JSON object with the ids and secrets')
    .action(async (options: InitOptions) => {
      // The store's days (dashboard, hours) are counted in its zone: UTC ended a Quito day at 19:00.
      const timeZone = options.timeZone ?? likelyTimeZone(options.country, Intl.DateTimeFormat().resolvedOptions().timeZone);
      // A café in Quito set up without --language served its customers English mail and pages.
      const language = options.language ?? likelyLanguage(options.country);
      const vendor = {
        name: options.vendor,
        currency: options.currency,
        country: options.country,
        language,
        ...(options.countries ? { countries: options.countries } : {}),
        store: { name: options.storeName, address1: options.address, city: options.city, timeZone },
      };
      // Bad options are refused before anything is created (a typo left a data folder behind).
      checkVendorSetUp(vendor);
      if (options.owner) cleanEmail(options.owner, 'owner');
      const engine = await openFolderEngine({ dataDir: options.data });
      try {
        const made = await setUpVendor(engine, vendor);
        // A folder whose program lives on PostgreSQL says so, and which database it is: later
        // commands without the URL, or with another database's, are refused.
        if (databaseKindOf(process.env.PUNCHCARD_DATABASE_URL || undefined) === 'postgresql') {
          const dir = dataDirAt(options.data);
          const { id, recordedNow } = await recordFolderDatabase(engine.db, dir);
          if (recordedNow) process.stderr.write(`punchcard: ${folderRecordFile(dir.root)} now records this folder's database (${id}): commands on this folder refuse any other.\n`);
        }
        const owner = options.owner ? await addOwner(engine, { vendorId: made.vendorId, email: options.owner, password: process.env.PUNCHCARD_OWNER_PASSWORD || undefined }) : null;
        const summary = {
          vendor_id: made.vendorId,
          store_id: made.storeId,
          pos_id: made.posId,
          api_key: made.apiKey,
          kiosk_api_key: made.kioskApiKey,
          client_id: made.clientId,
          client_secret: made.clientSecret,
          access_token: made.accessToken,
          ...(owner ? { owner_email: owner.staff.email } : {}),
          ...(owner?.signInToken ? { owner_sign_in_link: signInLink(await adminUrlOf(options.adminUrl, engine, options.data), owner.signInToken) } : {}),
        };
        if (timeZone === null) process.stderr.write(`${utcStoreHint(options.country, made.storeId, options.data)}\n`);
        if (options.language === undefined && language !== 'en') process.stderr.write(`${languageHint(language, options.country)}\n`);
        if (options.json) {
          process.stdout.write(`${JSON.stringify(summary)}\n`);
          return;
        }
        process.stdout.write(
          [
            `Created vendor "${options.vendor}" in ${options.data}`,
            ...Object.entries(summary).map(([k, v]) => `  ${k.padEnd(14)} ${v}`),
            'Secrets are shown only now: keep them somewhere safe.',
            // Without --owner nobody can sign in to the back office, and nothing else says how to get in.
            ...(owner ? [] : [`The back office (/admin) has no owner yet: \`punchcard owner --data ${options.data} --email EMAIL\` adds one and prints a sign-in link.`]),
            '',
          ].join('\n'),
        );
      } finally {
        await engine.close();
      }
    });
}

/** Said when init could not tell the first store's zone: where the merchant sets it. */
function utcStoreHint(country: string, storeId: number, data: string): string {
  const zones = timeZonesOf(country);
  const code = country.toUpperCase();
  // A long list (the United States has 29) is named by its count and a few.
  const choices = zones.length === 0 ? '' : zones.length <= 4 ? ` (${code}'s: ${zones.join(', ')})` : ` (one of ${code}'s ${zones.length}, such as ${zones.slice(0, 3).join(', ')})`;
  return `punchcard: the first store counts its days and hours in UTC: give it its time zone${choices} with \`punchcard stores update ${storeId} --data ${data} --time-zone ZONE\`, in the back office's store page, or --time-zone at init.`;
}

/** Said when the program's language came from its country: what it means and how to choose another. */
function languageHint(language: string, country: string): string {
  const name = new Intl.DisplayNames(['en'], { type: 'language' }).of(language) ?? language;
  return `punchcard: the program speaks ${name} (${language}), the language of ${country.toUpperCase()}: customers' mail and pages default to it and what init made is named in it (init --language en makes an English program; the back office's Program page changes it later).`;
}

interface InitOptions {
  data: string;
  timeZone?: string;
  language?: string;
  vendor: string;
  currency: string;
  country: string;
  storeName: string;
  address: string;
  city: string;
  countries?: string[];
  owner?: string;
  adminUrl?: string;
  json?: boolean;
}

/** "EC, co" → ["EC", "co"]; setUpVendor checks and normalises the codes. */
function parseCountryCodes(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((code) => code.trim())
    .filter((code) => code.length > 0);
}
