import { ServiceError } from '../../shared/errors';
import { authenticateApiKey } from '../credentials/authenticate';
import type { Engine } from '../engine';
import { allCountries, byName, type CountryRecord, countryName, findCountryByCode, findCountryById, isNameLanguage, type RegionRecord, regionsOf } from './countries';
import type { NameLanguage } from './country-data';

// Which countries a vendor serves: `vendors.countries` is a JSON array of alpha-2 codes, or null
// for every country.

/**
 * Checks and normalises a vendor's country list: codes in any case, each a known ISO 3166-1 code,
 * at least one; duplicates dropped, sorted. Unknown codes: 400 validation_failed on `countries`.
 */
export function normalizeCountryList(codes: readonly string[]): string[] {
  const unknown = codes.filter((code) => !findCountryByCode(code));
  if (unknown.length > 0) {
    throw new ServiceError('validation_failed', `Unknown ISO 3166-1 country code${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`, 'countries');
  }
  const normal = [...new Set(codes.map((code) => findCountryByCode(code)!.code))].sort();
  if (normal.length === 0) throw new ServiceError('validation_failed', 'countries needs at least one country code (leave it out to serve every country).', 'countries');
  return normal;
}

/** The stored form of a country list: JSON text, or null for every country. */
export function countryListColumn(codes: readonly string[] | null | undefined): string | null {
  return codes === null || codes === undefined ? null : JSON.stringify(normalizeCountryList(codes));
}

interface VendorGeo {
  vendorId: number;
  language: string;
  /** null: every country. */
  countries: ReadonlySet<string> | null;
}

async function loadVendorGeo(engine: Engine, vendorId: number): Promise<VendorGeo | undefined> {
  const row = await engine.db.selectFrom('vendors').select(['id', 'language', 'countries']).where('id', '=', vendorId).executeTakeFirst();
  if (!row) return undefined;
  return { vendorId: row.id, language: row.language, countries: row.countries === null ? null : new Set(JSON.parse(row.countries) as string[]) };
}

/** Whether the vendor serves the country (any letter case). False for an unknown vendor or country. */
export async function vendorServesCountry(engine: Engine, vendorId: number, countryCode: string): Promise<boolean> {
  const country = findCountryByCode(countryCode);
  if (!country) return false;
  const vendor = await loadVendorGeo(engine, vendorId);
  return vendor !== undefined && (vendor.countries === null || vendor.countries.has(country.code));
}

export interface CountryAudience {
  /** `vendor` query parameter: a vendor id. */
  vendorId?: number | undefined;
  /** `api_key` query parameter: the key's vendor. */
  apiKey?: string | undefined;
  /** Names in this language; default: the vendor's language when it is one we have, else English. */
  language?: NameLanguage | undefined;
}

interface ResolvedAudience {
  vendor: VendorGeo | null;
  language: NameLanguage;
}

/**
 * Who asks: a vendor named by id or by one of its API keys (both given: they must agree), or
 * nobody (every country). Unknown vendor: 404; bad key: 401; key of another vendor: 403.
 */
async function resolveAudience(engine: Engine, audience: CountryAudience): Promise<ResolvedAudience> {
  let vendorId = audience.vendorId;
  if (audience.apiKey !== undefined) {
    const scope = await authenticateApiKey(engine, audience.apiKey);
    if (vendorId !== undefined && vendorId !== scope.vendorId) throw new ServiceError('forbidden', 'The api_key belongs to another vendor.', 'vendor');
    vendorId = scope.vendorId;
  }
  const vendor = vendorId === undefined ? null : await loadVendorGeo(engine, vendorId);
  if (vendor === undefined) throw new ServiceError('vendor_not_found', undefined, 'vendor');
  const vendorLanguage = vendor?.language.slice(0, 2).toLowerCase() ?? '';
  const language = audience.language ?? (isNameLanguage(vendorLanguage) ? vendorLanguage : 'en');
  return { vendor, language };
}

export interface CountryListing {
  language: NameLanguage;
  countries: Array<{ country: CountryRecord; name: string }>;
}

/** GET /countries: the countries the vendor serves (every country without a vendor), by name. */
export async function listCountries(engine: Engine, audience: CountryAudience): Promise<CountryListing> {
  const { vendor, language } = await resolveAudience(engine, audience);
  const served = allCountries().filter((c) => vendor?.countries == null || vendor.countries.has(c.code));
  const named = served.map((country) => ({ country, name: countryName(country, language) }));
  return { language, countries: byName(named, (c) => c.name, language) };
}

/**
 * GET /countries/{country_id}/regions, ordered by name. A country the vendor does not serve is
 * reported like an unknown one.
 */
export async function listRegions(engine: Engine, countryId: number, audience: CountryAudience): Promise<RegionRecord[]> {
  const { vendor, language } = await resolveAudience(engine, audience);
  const country = findCountryById(countryId);
  if (!country || (vendor?.countries != null && !vendor.countries.has(country.code))) {
    throw new ServiceError('country_not_found', `There is no country with id ${countryId}.`, 'country_id');
  }
  return byName(regionsOf(country.code), (r) => r.name, language);
}
