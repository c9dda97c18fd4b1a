import { authenticateApiKey, type StoreScope } from '../../core/credentials/authenticate';
import { replaceApiKey } from '../../core/credentials/replace-api-key';
import type { Engine } from '../../core/engine';
import { countStores, findCounterStore } from '../../core/stores/find-counter-store';
import type { ScanLogger } from '../../devices/hid';

/** Label of the key a node mints for its own scanners (replaced at every start). */
export const SCANNER_KEY_LABEL = 'Node scanners';

export interface ScannerStoreChoice {
  /** Check in as this API key (its store and role). */
  apiKey?: string | undefined;
  /** Else at this store; else at the node's only (or first) store. */
  storeId?: number | undefined;
}

/**
 * Where the node's scanners check customers in, found when first needed and then kept: a data folder
 * may get its first vendor after the node started (the desktop's first run, `punchcard init` on a
 * running node). Without an API key, the node mints a cashier key labelled "Node scanners" for the
 * store, replacing the one of its last start. Answers null (and logs why, once) while there is no store.
 */
export function scannerScopeResolver(engine: Engine, choice: ScannerStoreChoice, logger: ScanLogger): () => Promise<StoreScope | null> {
  let found: Promise<StoreScope | null> | null = null;
  let lastProblem = '';
  const note = (problem: string) => {
    if (problem !== lastProblem) logger.warn({}, problem);
    lastProblem = problem;
  };

  const resolve = async (): Promise<StoreScope | null> => {
    if (choice.apiKey) {
      try {
        return await authenticateApiKey(engine, choice.apiKey);
      } catch {
        note('scanner API key is unknown or revoked: scans are not checked in');
        return null;
      }
    }
    // A paired node holds every store of its chain but sells for its own (credentials/authenticate.ts).
    const storeId = choice.storeId ?? engine.centralLink.storeId;
    const store = await findCounterStore(engine, storeId);
    if (!store) {
      note(storeId === undefined ? 'no store in this node yet: scans are not checked in' : `store ${storeId} not found: scans are not checked in`);
      return null;
    }
    if (storeId === undefined && (await countStores(engine)) > 1) {
      logger.warn({ store_id: store.storeId }, `node has several stores: scanners check in at the first, "${store.storeName}" (choose with --scanner-store)`);
    }
    const { key } = await replaceApiKey(engine, { vendorId: store.vendorId, storeId: store.storeId, posId: store.posId, role: 'cashier', label: SCANNER_KEY_LABEL });
    logger.info({ store_id: store.storeId }, `scanners check in at "${store.storeName}"`);
    return authenticateApiKey(engine, key);
  };

  return () => {
    found ??= resolve().then(
      (scope) => {
        if (!scope) found = null; // try again at the next scan
        return scope;
      },
      (error: unknown) => {
        found = null;
        note(`scanner store could not be resolved: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      },
    );
    return found;
  };
}

/** What every API key looks like (api-keys.ts: `pcak_` and 32 random bytes in base64url). */
const API_KEY_SHAPE = /^pcak_[A-Za-z0-9_-]{43}$/;

/**
 * The scanners' store, as `punchcard store` was given it, checked at the node's start: a store the
 * program does not have, or a PUNCHCARD_SCANNER_KEY it does not accept, left a node that ran and
 * never checked a scan in (a warning in the log). Null when the choice holds.
 *
 * What can be known on any node is checked on every node, a folder never set up included: a key
 * not shaped like an API key (no node ever accepts it: a token, a cut paste), and a paired node's
 * `--scanner-store` other than the store it serves (`servedStoreId`, from central.json, known before
 * the first sync brings any store). The rest needs the program's stores and keys, so a node with no
 * store yet (a till to be set up or paired from its Settings screen) or still receiving its
 * chain's (first sync) is not checked further: a well-shaped key may come from central with the
 * first sync, a store id with `punchcard init`; its scanners find their store at the first scan.
 */
export async function scannerChoiceProblem(engine: Engine, choice: ScannerStoreChoice, servedStoreId = engine.centralLink.storeId): Promise<string | null> {
  if (choice.apiKey === undefined && choice.storeId === undefined) return null;
  const refusedKey =
    "PUNCHCARD_SCANNER_KEY is not an API key this node accepts (unknown, revoked, or another store's): issue one with `punchcard key`, or unset it and the node mints its scanners' own.";
  if (choice.apiKey !== undefined && !API_KEY_SHAPE.test(choice.apiKey)) {
    return "PUNCHCARD_SCANNER_KEY is not an API key this node accepts: API keys are pcak_ followed by 43 letters, digits, - or _ (check it was copied whole). Issue one with `punchcard key`, or unset it and the node mints its scanners' own.";
  }
  // The key wins over --scanner-store (scannerScopeResolver): the store is checked only without one.
  if (choice.apiKey === undefined && servedStoreId !== undefined && choice.storeId !== servedStoreId) {
    return `--scanner-store ${choice.storeId}: this node serves store ${servedStoreId} of its chain: its scanners check in there (leave --scanner-store out).`;
  }
  if (!engine.centralLink.firstSyncDone || (await countStores(engine)) === 0) return null;
  if (choice.apiKey) {
    try {
      await authenticateApiKey(engine, choice.apiKey);
      return null;
    } catch {
      return refusedKey;
    }
  }
  if (await findCounterStore(engine, choice.storeId)) return null;
  return `--scanner-store ${choice.storeId}: this node has no store ${choice.storeId}: choose one \`punchcard stores list\` lists, or leave it out for the node's first store.`;
}
