import { type Command, InvalidArgumentError } from 'commander';
import { actorWithoutStaff } from '../../core/audit/record-audit';
import { createStore, listAdminStores, type StoreInput, updateStore } from '../../core/stores/store-admin';
import { ServiceError } from '../../shared/errors';
import { NO_VENDOR_YET } from '../node/node-settings';
import type { openNodeEngine } from '../node/store-node';
import { DATA_FOLDER_HELP, openFolderEngine } from './folder-checks';
import { adminStoreToWire } from '../routes/store-admin-wire';
import { parseStoreId, parseVendorId } from './store-command';

interface StoreOptions {
  data: string;
  vendor?: number;
  name?: string;
  address?: string;
  address2?: string;
  city?: string;
  region?: string;
  country?: string;
  postalCode?: string;
  phone?: string;
  coordinates?: { latitude: number; longitude: number } | null;
  hours?: Record<string, string> | null;
  timeZone?: string;
  status?: 'active' | 'inactive';
}

function parseCoordinates(value: string): { latitude: number; longitude: number } | null {
  if (value === 'none') return null;
  const [lat, lng, extra] = value.split(',').map((part) => Number(part.trim()));
  if (extra !== undefined || !Number.isFinite(lat) || !Number.isFinite(lng)) throw new InvalidArgumentError('coordinates are "latitude,longitude", e.g. -0.1807,-78.4678 (or none).');
  return { latitude: lat!, longitude: lng! };
}

function parseHours(value: string): Record<string, string> | null {
  if (value === 'none') return null;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.values(parsed).every((v) => typeof v === 'string')) return parsed as Record<string, string>;
  } catch {
    // fall through to the message below
  }
  throw new InvalidArgumentError('hours are JSON, e.g. \'{"mon":"08:00-18:00","sun":"closed"}\' (or none).');
}

function parseStatus(value: string): 'active' | 'inactive' {
  if (value !== 'active' && value !== 'inactive') throw new InvalidArgumentError('the status is active or inactive.');
  return value;
}

function withStoreFields(command: Command): Command {
  return command
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .option('--name <name>', 'store name')
    .option('--address <line>', 'street address')
    .option('--address2 <line>', 'second address line')
    .option('--city <city>', 'city')
    .option('--region <region>', 'region or state')
    .option('--country <code>', 'ISO 3166-1 alpha-2 country')
    .option('--postal-code <code>', 'postal code')
    .option('--phone <number>', 'phone, E.164 or national in the store country')
    .option('--coordinates <lat,lng>', 'latitude,longitude (none to clear)', parseCoordinates)
    .option('--hours <json>', 'opening hours, e.g. \'{"mon":"08:00-18:00","sun":"closed"}\' (none to clear)', parseHours)
    .option('--time-zone <iana>', 'IANA time zone the hours are read in, e.g. America/Guayaquil')
    .option('--status <status>', 'active (listed to customers) or inactive', parseStatus)
    .option('--json', 'print the store as JSON');
}

/** `add`'s required fields named as the flags they are, all at once (the engine names one, by its field). */
function requireStoreFlags(o: StoreOptions): void {
  const missing = (['name', 'address', 'city', 'country'] as const).filter((field) => !o[field]?.trim()).map((field) => `--${field}`);
  if (missing.length > 0) throw new ServiceError('validation_failed', `A new store needs --name, --address, --city and --country; missing: ${missing.join(', ')}.`, missing[0]!.slice(2));
}

function toInput(o: StoreOptions): StoreInput {
  return {
    name: o.name,
    address1: o.address,
    address2: o.address2,
    city: o.city,
    region: o.region,
    country: o.country,
    postalCode: o.postalCode,
    phone: o.phone,
    latitude: o.coordinates === undefined ? undefined : (o.coordinates?.latitude ?? null),
    longitude: o.coordinates === undefined ? undefined : (o.coordinates?.longitude ?? null),
    hours: o.hours,
    timeZone: o.timeZone,
    status: o.status,
  };
}

/** The vendor a command acts for: the one named, else the node's only vendor. */
export async function vendorOfNode(engine: Awaited<ReturnType<typeof openNodeEngine>>, vendorId: number | undefined): Promise<number> {
  const vendors = await engine.db.selectFrom('vendors').select(['id', 'name']).orderBy('id').execute();
  if (vendors.length === 0) throw new ServiceError('vendor_not_found', NO_VENDOR_YET);
  if (vendorId !== undefined) {
    if (!vendors.some((v) => v.id === vendorId)) throw new ServiceError('vendor_not_found', `There is no vendor ${vendorId} in this data folder.`);
    return vendorId;
  }
  // No command lists a folder's vendors, so the refusal names them.
  if (vendors.length > 1) throw new ServiceError('validation_failed', `This data folder holds several vendors: name one with --vendor <id> (${vendors.map((v) => `${v.id} ${v.name}`).join(', ')}).`, 'vendor');
  return vendors[0]!.id;
}

/** `punchcard stores list|add|update`: the stores customers find with GET /vendor/store/list. */
export function registerStoresCommand(program: Command): void {
  const stores = program.command('stores').description('List, add and update the stores of a program (address, coordinates, phone, hours, time zone, status). A central on PostgreSQL: set PUNCHCARD_DATABASE_URL to its database.');
  const print = (store: ReturnType<typeof adminStoreToWire>, json?: boolean) =>
    process.stdout.write(json ? `${JSON.stringify(store)}\n` : `${store.id}  ${store.name}  ${store.city}, ${store.country}  ${store.status}${store.open_now === null ? '' : store.open_now ? '  open now' : '  closed now'}\n`);

  stores
    .command('list')
    .description("List the program's stores (id, name, city, country, status, open now).")
    .requiredOption('--data <dir>', DATA_FOLDER_HELP)
    .option('--vendor <id>', 'vendor id (default: the only one)', parseVendorId)
    .option('--json', 'print one JSON store per line')
    .action(async (options: { data: string; vendor?: number; json?: boolean }) => {
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const vendorId = await vendorOfNode(engine, options.vendor);
        for (const store of await listAdminStores(engine, vendorId)) print(adminStoreToWire(store), options.json);
      } finally {
        await engine.close();
      }
    });

  withStoreFields(stores.command('add').description('Add a store (name, address, city and country are required).'))
    .option('--vendor <id>', 'vendor id (default: the only one)', parseVendorId)
    .action(async (options: StoreOptions & { json?: boolean }) => {
      requireStoreFlags(options);
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const vendorId = await vendorOfNode(engine, options.vendor);
        print(adminStoreToWire(await createStore(engine, actorWithoutStaff(vendorId, 'cli'), toInput(options))), options.json);
      } finally {
        await engine.close();
      }
    });

  withStoreFields(stores.command('update').argument('<id>', 'store id', parseStoreId).description('Change the fields given; the others stay.'))
    .action(async (storeId: number, options: StoreOptions & { json?: boolean }) => {
      const engine = await openFolderEngine({ dataDir: options.data, existing: true });
      try {
        const row = await engine.db.selectFrom('stores').select('vendor_id').where('id', '=', storeId).executeTakeFirst();
        if (!row) throw new ServiceError('store_not_found', `There is no store ${storeId}.`);
        print(adminStoreToWire(await updateStore(engine, actorWithoutStaff(row.vendor_id, 'cli'), storeId, toInput(options))), options.json);
      } finally {
        await engine.close();
      }
    });
}
