import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';

/** Languages every screen is translated into. */
export const LANGUAGES = ['en', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

const STORAGE_KEY = 'punchcard.language';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

function storedLanguage(): Language | null {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return isLanguage(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * The browser's own language when the screens speak it: a back office opened in Madrid, which no
 * program's language reaches (only the store screens hear it, once signed in), read English.
 */
function browserLanguage(): Language | null {
  try {
    const base = (navigator.languages?.[0] ?? navigator.language ?? '').slice(0, 2).toLowerCase();
    return isLanguage(base) ? base : null;
  } catch {
    return null;
  }
}

interface LanguageState {
  language: Language;
  /** True once someone picked a language on this screen; the vendor's language no longer overrides it. */
  chosen: boolean;
  /** The cashier's choice: kept in this browser. */
  choose(language: Language): void;
  /** The vendor's language, used until someone chooses. */
  suggest(language: string): void;
}

export const languageStore = createStore<LanguageState>()((set, get) => {
  const stored = storedLanguage();
  return {
    language: stored ?? browserLanguage() ?? 'en',
    chosen: stored !== null,
    choose(language) {
      try {
        localStorage.setItem(STORAGE_KEY, language);
      } catch {
        // Private mode: the choice lasts until the page reloads.
      }
      set({ language, chosen: true });
    },
    suggest(language) {
      const base = language.slice(0, 2).toLowerCase();
      if (!get().chosen && isLanguage(base)) set({ language: base });
    },
  };
});

// Screen readers and the browser's own texts follow the language too.
languageStore.subscribe((state) => {
  document.documentElement.lang = state.language;
});

export function useLanguage(): Language {
  return useStore(languageStore, (state) => state.language);
}
