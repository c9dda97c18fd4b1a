import { type SessionStore, sessionStore } from '../session/session-store';
import { viewStore } from './view-store';

/**
 * Whoever signs in next starts on their role's own screen, however the last session ended: Settings'
 * Sign out did this itself, but a screen the node signs out (its key revoked, the node restarted
 * paired with the chain's keys) stayed on Settings behind the sign-in. Returns the unsubscribe.
 */
export function mainViewAfterSignOut(session: SessionStore = sessionStore()): () => void {
  return session.subscribe((state, previous) => {
    if (state.phase === 'signed-out' && previous.phase !== 'signed-out') viewStore.getState().show('main');
  });
}
