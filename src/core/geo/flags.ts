import * as flags from 'country-flag-icons/string/3x2';
import { findCountryByCode } from './countries';

const svgByCode = flags as unknown as Readonly<Record<string, string | undefined>>;

/**
 * The 3:2 SVG flag of a country we list (country-flag-icons, MIT), or undefined. Only countries of
 * the list: the package's extras (EU, GB-ENG…) are not served.
 */
export function flagSvg(countryCode: string): string | undefined {
  const country = findCountryByCode(countryCode);
  return country ? svgByCode[country.code] : undefined;
}
