import type { Engine } from '../engine';

// A queued message's parameters carry its secrets (one-time codes, customer reset and staff
// invitation, reset and sign-in tokens, eGift claim codes) until the worker sends it. They are
// stored sealed under the node key (AES-256-GCM; the key is never in the database), so the
// database, its WAL, a backup or the PostgreSQL server of a central never hold them in plain text:
// clearing a row after sending removes the value from the table, not from the WAL or old pages.
// The worker opens them only to render the message, and clears them once it is sent or given up.

/** The parameters as stored in `messages_outbox.params`. */
export function sealParams(engine: Pick<Engine, 'sealer'>, params: Record<string, string>): string {
  return engine.sealer.seal(JSON.stringify(params));
}

/**
 * The parameters of an outbox row (null once cleared). A row queued by a version that did not seal
 * them holds plain JSON (`{…}`, which a sealed value never starts with) and is read as it is.
 */
export function openParams(engine: Pick<Engine, 'sealer'>, stored: string | null): unknown {
  if (stored === null) return null;
  return JSON.parse(stored.startsWith('{') ? stored : engine.sealer.open(stored)) as unknown;
}
