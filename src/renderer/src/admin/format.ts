import { currencyDigits, formatMoney, formatPoints } from '../format';
import { languageStore } from '../i18n/language-store';
import { programCountry } from './program-country';

/** A date and time in the reader's language and time zone. */
export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(languageStore.getState().language === 'es' ? 'es' : 'en', { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * A day in the reader's language, in a time zone (expiry dates: the program's, whose days the
 * engine groups them by; UTC when this browser cannot read the zone).
 */
export function formatDate(iso: string, timeZone = 'UTC'): string {
  const language = languageStore.getState().language === 'es' ? 'es' : 'en';
  try {
    return new Date(iso).toLocaleDateString(language, { dateStyle: 'medium', timeZone });
  } catch {
    return new Date(iso).toLocaleDateString(language, { dateStyle: 'medium', timeZone: 'UTC' });
  }
}

/** A day in the reader's language and time zone (member since: the day as the reader lived it). */
export function formatLocalDate(iso: string): string {
  return new Date(iso).toLocaleDateString(languageStore.getState().language === 'es' ? 'es' : 'en', { dateStyle: 'medium' });
}

/**
 * A date of birth ("1990-03-15") as "15 March 1990" / "15 de marzo de 1990": read as the UTC day it
 * names, so it is the same day in every time zone; day first, the month in words, in both languages.
 */
export function formatBirthdate(day: string): string {
  const locale = languageStore.getState().language === 'es' ? 'es' : 'en-GB';
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(locale, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** A language's name in the screen's language ("Spanish", "español"); the code when the browser has none. */
export function languageName(code: string, screen: string): string {
  try {
    return new Intl.DisplayNames([screen], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * An amount in minor units as the back office shows it: money in its currency (US$45.00), points
 * whole; in Spanish as the program's country writes them (a screen showing amounts calls
 * useProgramCountry, so it renders again once the country is known).
 */
export function formatAmount(minor: number, code: string | null): string {
  const language = languageStore.getState().language === 'es' ? 'es' : 'en';
  const country = programCountry();
  return code ? formatMoney(minor / 10 ** currencyDigits(code), code, language, country) : formatPoints(minor, language, null, country);
}

/** A signed movement (+US$5.00, −500). */
export function formatMovement(minor: number, code: string | null): string {
  return `${minor > 0 ? '+' : minor < 0 ? '−' : ''}${formatAmount(Math.abs(minor), code)}`;
}
