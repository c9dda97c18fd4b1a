import { languageStore } from '../i18n/language-store';

/** A date and time in the reader's language and time zone. */
export function formatDateTime(iso: string): string {
  return new Date(iso).toLocaleString(languageStore.getState().language === 'es' ? 'es' : 'en', { dateStyle: 'medium', timeStyle: 'short' });
}

/** A day in the reader's language (expiry dates: the UTC day the engine groups them by). */
export function formatDate(iso: string): string {
  return new Date(iso).toLocaleDateString(languageStore.getState().language === 'es' ? 'es' : 'en', { dateStyle: 'medium', timeZone: 'UTC' });
}
