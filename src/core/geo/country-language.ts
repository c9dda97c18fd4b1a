import { type LanguageCode, languageByCode } from '../../shared/languages';

/**
 * The language a program in `country` most likely speaks to its customers, among those the product
 * speaks: the country's first language as the runtime's ICU gives it (EC, MX, ES → es), else English
 * (US, CA, and countries whose language the product does not speak: BR → pt → en).
 */
export function likelyLanguage(country: string): LanguageCode {
  let spoken: string;
  try {
    spoken = new Intl.Locale(`und-${country.toUpperCase()}`).maximize().language;
  } catch {
    return 'en'; // not a region ICU reads; the country itself is checked (and refused) elsewhere
  }
  return languageByCode(spoken)?.code ?? 'en';
}
