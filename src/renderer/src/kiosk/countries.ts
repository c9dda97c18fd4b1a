import type { Requester } from '../api/client';

export interface CallingCountry {
  /** ISO 3166-1 alpha-2. */
  code: string;
  name: string;
  /** Calling code without "+". */
  phoneCode: string;
}

let cached: Promise<CallingCountry[]> | null = null;

/** GET /countries (public): the countries and their calling codes, for the register form. Fetched once. */
export function loadCallingCountries(request: Requester): Promise<CallingCountry[]> {
  cached ??= (async () => {
    const body = await request('/countries');
    if (!Array.isArray(body)) return [];
    return body
      .filter((c): c is { code: string; name: string; phone_code: string } => !!c && typeof c.code === 'string' && typeof c.name === 'string' && typeof c.phone_code === 'string' && c.phone_code !== '')
      .map((c) => ({ code: c.code, name: c.name, phoneCode: c.phone_code.replace(/^\+/, '') }));
  })().catch((error: unknown) => {
    cached = null;
    throw error;
  });
  return cached;
}

/** "This store's country (+1)": the default the customer cannot see otherwise; the words alone when the list lacks it. */
export function storeCountryLabel(words: string, countries: CallingCountry[], storeCountry: string | null): string {
  const own = countries.find((c) => c.code === storeCountry);
  return own ? `${words} (+${own.phoneCode})` : words;
}

/** "España (+34)": the country's name in the screen's language (the list's own names are English), and its code. */
export function callingCountryLabel(country: CallingCountry, language: string): string {
  let name = country.name;
  try {
    name = new Intl.DisplayNames([language], { type: 'region' }).of(country.code) ?? country.name;
  } catch {
    // No name for it in this browser: the list's own.
  }
  return `${name} (+${country.phoneCode})`;
}
