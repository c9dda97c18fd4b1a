import { useEffect } from 'react';
import { useStore } from 'zustand';
import { createStore } from 'zustand/vanilla';
import { adminStore, useAdmin } from './admin-store';

// The program's country, for writing amounts as it does (numberLocale: a dollar program in Ecuador
// reads "$1.234,50" in Spanish, as the cashier and the Program page write it). The back office's
// other pages do not load the program: its country is read once per session (GET
// /backoffice/program, which every role may read) and kept here.

interface Known {
  token: string;
  country: string | null;
}

const countryStore = createStore<{ known: Known | null }>()(() => ({ known: null }));
const asked = new Set<string>();

/** The signed-in session's program country; null until it is known (amounts then follow the currency, as before). */
export function programCountry(): string | null {
  const known = countryStore.getState().known;
  return known && known.token === adminStore.getState().token ? known.country : null;
}

/** Reads the program's country once per session; the screen that calls it renders again when it is known. */
export function useProgramCountry(): string | null {
  const token = useAdmin((s) => s.token);
  const known = useStore(countryStore, (s) => s.known);
  useEffect(() => {
    if (!token || asked.has(token)) return;
    asked.add(token);
    adminStore
      .getState()
      .api()
      .program()
      .then(
        (program) => countryStore.setState({ known: { token, country: program.country } }),
        () => undefined, // Unread, amounts keep following their currency.
      );
  }, [token]);
  return known && known.token === token ? known.country : null;
}

/** The country just saved on the Program page: the other pages write amounts by it from now on. */
export function rememberProgramCountry(country: string): void {
  const token = adminStore.getState().token;
  if (token) countryStore.setState({ known: { token, country } });
}
