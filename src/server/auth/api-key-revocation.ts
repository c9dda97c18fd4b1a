import { liveApiKeyIds } from '../../core/credentials/live-api-keys';
import { credentialWatch } from './credential-watch';

/**
 * Ends a store's event stream once the API key it was opened with is revoked or gone: without it a
 * revoked kiosk or cashier key kept hearing every check-in and order of its store (found by the
 * tenth round's attacker run). Returns the function that stops watching.
 */
export const watchApiKeyRevocation = credentialWatch((engine, ids) => liveApiKeyIds(engine.db, ids));
