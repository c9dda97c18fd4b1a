import { livePairedNodeIds } from '../../core/sync/central/pairing';
import { credentialWatch } from '../auth/credential-watch';

/**
 * Ends a node's poke stream once the node is revoked (or gone) at central: without it a node
 * revoked by an administrator kept hearing the chain's activity. Returns the function that stops
 * watching.
 */
export const watchRevocation = credentialWatch((engine, ids) => livePairedNodeIds(engine.db, ids));
