// The shape of countries.generated.json (written by scripts/generate-countries.ts) and the pure
// rules shared by the generator and the lookups: region ids and the postal-code normal form.

export const NAME_LANGUAGES = ['en', 'es'] as const;
export type NameLanguage = (typeof NAME_LANGUAGES)[number];

export interface RegionData {
  /** regionIdOf(country id, code): stable, derived from the codes only. */
  id: number;
  /** ISO 3166-2 code, e.g. EC-P. */
  code: string;
  /** As ISO 3166-2 gives it (local language). */
  name: string;
}

export interface CountryData {
  /** ISO 3166-1 numeric code (XK, which has none: 983, the user-assigned code i18n-iso-countries uses). */
  id: number;
  /** ISO 3166-1 alpha-2. */
  code: string;
  names: Record<NameLanguage, string>;
  /** International calling code without "+", e.g. "593"; "" when the country has none. */
  phoneCode: string;
  /** Anchored pattern for the normal form of a postal code (normalizePostalCode); null: not validated. */
  zipPattern: string | null;
  /** Anchored pattern for the national significant number (digits, no trunk 0); null: not validated. */
  phonePattern: string | null;
  /** The finest level of ISO 3166-2 subdivisions (the ones with no subdivisions below them). */
  regions: RegionData[];
}

export interface CountryDataFile {
  /** Versions of the packages the file was generated from. */
  sources: Record<string, string>;
  countries: CountryData[];
}

const CHAR_VALUES = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * region_id = country id × 1 000 000 + two decimal digits per character of the subdivision part
 * of the code (0-9 → 10-19, A-Z → 20-45), left-aligned and padded with 00. EC-P (Pichincha) is
 * 218 35 00 00 = 218350000. Derived from the codes alone, so it never changes when the list is
 * regenerated, and it stays below 2^31.
 */
export function regionIdOf(countryId: number, subdivisionCode: string): number {
  const [country, part = '', ...rest] = subdivisionCode.toUpperCase().split('-');
  if (rest.length > 0 || !country || !/^[0-9A-Z]{1,3}$/.test(part)) throw new Error(`Not an ISO 3166-2 code: ${subdivisionCode}`);
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const char = part[i];
    value = value * 100 + (char === undefined ? 0 : 10 + CHAR_VALUES.indexOf(char));
  }
  return countryId * 1_000_000 + value;
}

/**
 * The normal form zip_validate patterns apply to: surrounding and inner spaces and hyphens
 * removed, letters in upper case ("sw1a 1aa" → "SW1A1AA", "12345-6789" → "123456789").
 */
export function normalizePostalCode(postalCode: string): string {
  return postalCode.replace(/[\s-]+/g, '').toUpperCase();
}
