import { type Language, languageStore, useLanguage } from './language-store';

/** A screen's texts: plain strings, or functions for texts with values in them. */
export type Strings = Record<string, string | ((...args: never[]) => string)>;

/**
 * Declares a feature's texts in every language. The type makes Spanish carry exactly the keys (and
 * argument lists) of English, so a missing translation fails the typecheck, not a customer.
 *
 *   export const useKioskStrings = defineStrings({ en: { welcome: (name: string) => `Welcome, ${name}` }, es: { … } });
 *   const t = useKioskStrings(); t.welcome('Ana');
 */
export function defineStrings<T extends Strings>(strings: { en: T; es: NoInfer<T> }) {
  const useStrings = (): T => strings[useLanguage()];
  /** Outside React (stores, event handlers): the texts of the current language. */
  useStrings.now = (): T => strings[languageStore.getState().language];
  useStrings.all = strings as Record<Language, T>;
  return useStrings;
}
