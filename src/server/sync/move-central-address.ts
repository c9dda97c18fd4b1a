import { ServiceError } from '../../shared/errors';
import { openDataDir, refuseWhileNodeRuns } from '../node/data-dir';
import { readPairing, writePairing } from './pairing-file';

/** How long the new address has to answer the check. */
const CHECK_MS = 10_000;

/**
 * A paired store's central moved (a new server, port or name): `punchcard store --data DIR --central
 * URL` without `--pair` points the stopped store at it. Pairing again would set the store's
 * database aside, unsent sales with it; only the address changes here. The new address must answer
 * as a central that knows this node's credential, so a typo, a store's address or another chain's
 * central is refused with central.json unchanged. Returns the address it had (null: unchanged).
 */
export async function moveCentralAddress(dataDir: string, address: string): Promise<{ from: string; to: string } | null> {
  const dir = openDataDir(dataDir);
  const pairing = readPairing(dir);
  if (!pairing) throw new ServiceError('store_not_paired', `${dir.root} is not paired with a central node: pair it with --central URL --pair CODE.`);
  refuseWhileNodeRuns(dir, '');
  const central = address.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(central)) throw new ServiceError('validation_failed', 'The central address must start with http:// or https://.', 'central');
  if (central === pairing.central) return null;
  await checkCentralKnowsNode(central, pairing.credential);
  writePairing(dir, { ...pairing, central });
  return { from: pairing.central, to: central };
}

/** Opens central's poke stream with the node's credential: 200 is a central that knows this node. */
async function checkCentralKnowsNode(central: string, credential: string): Promise<void> {
  const unchanged = 'central.json is unchanged';
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), CHECK_MS);
  try {
    const reply = await fetch(`${central}/sync/stream`, { headers: { authorization: `Bearer ${credential}` }, signal: abort.signal }).catch((error: unknown) => {
      const cause = (error as { cause?: { code?: unknown } }).cause;
      const reason = abort.signal.aborted ? 'no reply in time' : typeof cause?.code === 'string' ? cause.code : (error as Error).message;
      throw new ServiceError('central_unreachable', `No central node answered at ${central} (${reason}): ${unchanged}. Start central there first, or check the address.`);
    });
    if (reply.ok && (reply.headers.get('content-type') ?? '').startsWith('text/event-stream')) return;
    if (reply.status === 401) {
      throw new ServiceError('node_revoked', `The central node at ${central} does not know this store node (it revoked it, or it is another chain's central): ${unchanged}.`);
    }
    throw new ServiceError('central_unreachable', `${central} is not a Punchcard central node (it answered ${reply.status} to /sync/stream): ${unchanged}.`);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
