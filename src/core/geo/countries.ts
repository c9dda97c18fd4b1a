import data from './countries.generated.json';
import { type CountryDataFile, NAME_LANGUAGES, type NameLanguage, normalizePostalCode } from './country-data';

// Every ISO 3166-1 country with its ISO 3166-2 regions, from the generated file (see
// scripts/generate-countries.ts). Read-only, in memory, the same on every node.

export interface CountryRecord {
  /** ISO 3166-1 numeric code; XK (no ISO number) is 983. */
  id: number;
  /** ISO 3166-1 alpha-2, upper case. */
  code: string;
  /** English name. */
  name: string;
  names: Readonly<Record<NameLanguage, string>>;
  /** Calling code without "+" ("593"); "" for the few territories that have none. */
  phoneCode: string;
  /** Anchored regex for the normal form of a postal code (normalizePostalCode); null: none. */
  zipPattern: string | null;
  /** Anchored regex for the national significant number (digits only, no trunk 0); null: none. */
  phonePattern: string | null;
}

export interface RegionRecord {
  id: number;
  /** ISO 3166-2, e.g. EC-P. */
  code: string;
  name: string;
  /** ISO 3166-1 alpha-2 of its country. */
  countryCode: string;
}

const file = data as CountryDataFile;

const countries: readonly CountryRecord[] = file.countries.map((c) =>
  Object.freeze({ id: c.id, code: c.code, name: c.names.en, names: Object.freeze({ ...c.names }), phoneCode: c.phoneCode, zipPattern: c.zipPattern, phonePattern: c.phonePattern }),
);
const countryById = new Map(countries.map((c) => [c.id, c]));
const countryByCode = new Map(countries.map((c) => [c.code, c]));
const regionsByCountry = new Map<string, readonly RegionRecord[]>(
  file.countries.map((c) => [c.code, c.regions.map((r) => Object.freeze({ id: r.id, code: r.code, name: r.name, countryCode: c.code }))]),
);
const regionById = new Map([...regionsByCountry.values()].flat().map((r) => [r.id, r]));
const zipRegexes = new Map(countries.flatMap((c) => (c.zipPattern === null ? [] : [[c.code, new RegExp(c.zipPattern)] as const])));

/** Every country, ordered by code. */
export function allCountries(): readonly CountryRecord[] {
  return countries;
}

export function findCountryById(id: number): CountryRecord | undefined {
  return countryById.get(id);
}

/** By ISO 3166-1 alpha-2 code, in any letter case. */
export function findCountryByCode(code: string): CountryRecord | undefined {
  return countryByCode.get(code.trim().toUpperCase());
}

export function findRegion(regionId: number): RegionRecord | undefined {
  return regionById.get(regionId);
}

/** The regions of a country (the finest ISO 3166-2 level), ordered by code; [] when it has none. */
export function regionsOf(countryCode: string): readonly RegionRecord[] {
  return regionsByCountry.get(countryCode.trim().toUpperCase()) ?? [];
}

/**
 * Whether a postal code fits the country's pattern once normalised (spaces and hyphens removed,
 * upper case): "sw1a 1aa" is a GB code, "12345-6789" a US one. True when the country has no
 * pattern; false for an unknown country.
 */
export function isValidPostalCode(countryCode: string, postalCode: string): boolean {
  const country = findCountryByCode(countryCode);
  if (!country) return false;
  const regex = zipRegexes.get(country.code);
  return regex === undefined || regex.test(normalizePostalCode(postalCode));
}

export function isNameLanguage(value: string): value is NameLanguage {
  return (NAME_LANGUAGES as readonly string[]).includes(value);
}

/** Display name in a language ("es" → "Estados Unidos"). */
export function countryName(country: CountryRecord, language: NameLanguage): string {
  return country.names[language];
}

/** Sorts by display name the way a reader of that language expects (accents and case ignored). */
export function byName<T>(items: readonly T[], nameOf: (item: T) => string, language: NameLanguage): T[] {
  const collator = new Intl.Collator(language, { sensitivity: 'base' });
  return [...items].sort((a, b) => collator.compare(nameOf(a), nameOf(b)));
}
