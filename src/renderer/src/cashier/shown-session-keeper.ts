// The session whose customer this tab's panel showed, kept in the tab's sessionStorage: after a page
// reload mid-order the queue's highlight (and the focus) comes back to that customer, so Enter and
// O bring their panel and the order typed for them back (draft-keeper), instead of the first row.

const KEY = 'punchcard.panel-session';

/** The session hash the panel showed before a reload, or null. */
export function keptShownSession(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null; // No storage (tests under Node, a refused one): the highlight starts at the top, as before.
  }
}

export function keepShownSession(hash: string | null): void {
  try {
    if (hash === null) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, hash);
  } catch {
    // Storage refused: nothing to come back to after a reload.
  }
}
