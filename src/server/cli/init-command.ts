import type { Command } from 'commander';
import { cleanEmail } from '../../core/customers/contact';
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
    .option('--countries <codes>', 'ISO 3166-1 codes the vendor serves, comma-separated (default: every country)', parseCountryCodes)
    .option('--owner <email>', "the back office's first owner: takes the password in PUNCHCARD_OWNER_PASSWORD, else prints a one-time sign-in link")
    .option('--admin-url <url>', "where the back office will be reached, for the sign-in link (default: http://127.0.0.1:4321/admin, or :4320 on a central's folder)")
    .option('--json', 'print one JSON object with the ids and secrets')
    .action(async (options: InitOptions) => {
      const vendor = {
        name: options.vendor,
        currency: options.currency,
        country: options.country,
        ...(options.countries ? { countries: options.countries } : {}),
        store: { name: options.storeName, address1: options.address, city: options.city },
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

interface InitOptions {
  data: string;
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
