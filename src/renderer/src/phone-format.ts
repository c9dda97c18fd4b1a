import { type CountryCode, getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * A stored phone (E.164) as the program's people write it: a number of the program's own country in
 * its national form ("+593991234567", "EC" -> "099 123 4567"; "+14155550104", "US" -> "(415)
 * 555-0104"), another country's, or any number when the country is not known, in international
 * form ("+1 415 555 0104"). Anything unreadable is shown as stored.
 */
export function formatPhone(phone: string, country: string | null): string {
  const parsed = parsePhoneNumberFromString(phone);
  if (!parsed) return phone;
  const own = country !== null && parsed.country === (country.toUpperCase() as CountryCode);
  return own ? parsed.formatNational() : parsed.formatInternational();
}

/** A country's calling code without "+" ("ES" -> "34"); null when the country is unknown. */
export function callingCodeOf(country: string | null): string | null {
  const code = country?.toUpperCase() ?? '';
  return isSupportedCountry(code) ? getCountryCallingCode(code) : null;
}
