import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { isSettingError } from '../../src/server/node/setting-error';
import { makeTempDir } from '../support/temp-dir';

// Scanner settings `punchcard store` cannot use stop it before it listens — now on every node that
// has them, not only once it holds a store: what any node can know is checked on a folder never
// set up and on a paired one still before its first sync (a key no node accepts by its shape, a
// --scanner-store other than the store a paired node serves). A fresh folder with settings that
// may still come true (a well-shaped key central will send, a store id) starts as before.
// `punchcard store` code in-process (store-node.ts with refuseBadScannerChoice, as the CLI sets it).

const dirs: Array<{ remove(): void }> = [];
const nodes: RunningNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
  for (const dir of dirs.splice(0)) dir.remove();
});

function freshFolder(): string {
  const dir = makeTempDir('punchcard-scanner-settings-');
  dirs.push(dir);
  return dir.path;
}

/** A folder paired with a central (central.json) whose first sync has not begun; the central is never reached. */
function pairedFolder(storeId: number): string {
  const dir = freshFolder();
  const pairing = { central: 'http://127.0.0.1:9', node_id: 5, vendor_id: 3, store_id: storeId, credential: 'pcn_unused', paired_at: '2026-12-01T00:00:00.000Z' };
  writeFileSync(join(dir, 'central.json'), JSON.stringify(pairing), { mode: 0o600 });
  return dir;
}

async function refusal(dataDir: string, scanners: { apiKey?: string; storeId?: number }): Promise<string> {
  const started = startStoreNode({ dataDir, port: 0, host: '127.0.0.1', scanners, refuseBadScannerChoice: true });
  const error = await started.then(
    (node) => {
      nodes.push(node);
      return null;
    },
    (e: unknown) => e,
  );
  expect(isSettingError(error), String(error)).toBe(true);
  return (error as Error).message;
}

const WELL_SHAPED_KEY = `pcak_${'A'.repeat(43)}`;

describe('scanner settings on a folder never set up', () => {
  it.each([
    ['an admin token', `pcat_${'b'.repeat(43)}`],
    ['a key cut short', 'pcak_abc'],
    ['a key with a space', `${WELL_SHAPED_KEY} `],
  ])('PUNCHCARD_SCANNER_KEY that is %s stops the start in one line, the key not printed', async (_name, key) => {
    const message = await refusal(freshFolder(), { apiKey: key });
    expect(message).toBe(
      "PUNCHCARD_SCANNER_KEY is not an API key this node accepts: API keys are pcak_ followed by 43 letters, digits, - or _ (check it was copied whole). Issue one with `punchcard key`, or unset it and the node mints its scanners' own.",
    );
    expect(message).not.toContain(key.trim());
  });

  it('settings that may still come true start it: a well-shaped key, a store id', async () => {
    for (const scanners of [{ apiKey: WELL_SHAPED_KEY }, { storeId: 42 }]) {
      const node = await startStoreNode({ dataDir: freshFolder(), port: 0, host: '127.0.0.1', scanners, refuseBadScannerChoice: true });
      nodes.push(node);
      expect((await fetch(`${node.url}/health`)).status).toBe(200);
    }
  });
});

describe('scanner settings on a paired node before its first sync', () => {
  it('a --scanner-store other than the store it serves stops the start', async () => {
    const message = await refusal(pairedFolder(7001), { storeId: 42 });
    expect(message).toBe('--scanner-store 42: this node serves store 7001 of its chain: its scanners check in there (leave --scanner-store out).');
  });

  it('a key no node accepts stops it too', async () => {
    const message = await refusal(pairedFolder(7001), { apiKey: 'not-a-key' });
    expect(message).toMatch(/^PUNCHCARD_SCANNER_KEY is not an API key this node accepts: API keys are pcak_/);
  });
});
