import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createCard } from '../../src/core/cards/create-card';
import { Sealer } from '../../src/core/credentials/secrets';
import { openDatabaseUrl } from '../../src/core/storage/database';
import { getMeta } from '../../src/core/storage/node-meta';
import { openNodeEngine, startStoreNode } from '../../src/server/node/store-node';
import { runInProcess } from '../support/cli-in-process';
import { makeTempDir } from '../support/temp-dir';

// README (Configuration): a bad setting stops the node before it starts. A node key that is not the
// one the folder's database sealed its values with (card PINs, webhook secrets) started a node whose
// every card with a PIN was then a 500 ("unable to authenticate data"): it is refused in one line,
// by the serving commands and by those that open an existing folder.

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-cli-node-key-');
  dirs.push(dir);
  return dir.path;
}
afterEach(() => vi.unstubAllEnvs());
afterAll(() => {
  for (const dir of dirs) dir.remove();
});

const STACK_TRACE = /\bat\s+\S+\s+\(|\bat\s+file:|\.ts:\d+|\.cjs:\d+|node_modules/;
const otherKey = () => randomBytes(32).toString('hex');

function oneLine(result: { code: number; stderr: string }): string {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr.split('\n').filter((line) => line.trim().length > 0);
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(STACK_TRACE);
  return lines[0]!;
}

let vendorId = 0;
async function initFolder(): Promise<string> {
  vi.stubEnv('PUNCHCARD_NODE_KEY', '');
  vi.stubEnv('PUNCHCARD_DATABASE_URL', '');
  const data = join(tempDir(), 'shop');
  const init = await runInProcess(['init', '--data', data, '--vendor', 'Cafe Uno', '--json']);
  expect(init.code, init.stderr).toBe(0);
  vendorId = (JSON.parse(init.stdout) as { vendor_id: number }).vendor_id;
  return data;
}

describe('a node key that is not the one the database was sealed with', () => {
  it('PUNCHCARD_NODE_KEY: store, central, demo and the folder commands refuse it in one line naming it and DIR/node.key', async () => {
    const data = await initFolder();
    vi.stubEnv('PUNCHCARD_NODE_KEY', otherKey());
    const says = `punchcard: PUNCHCARD_NODE_KEY is not the key this folder's database was sealed with (card PINs, webhook secrets): set it to that key, or unset it to use ${join(data, 'node.key')}.`;
    for (const args of [['store', '--port', '0'], ['central', '--port', '0'], ['demo', '--port', '0'], ['key'], ['token', '--vendor', String(vendorId)], ['owner', '--email', 'boss@cafe.test'], ['stores', 'list'], ['init', '--vendor', 'Second']]) {
      expect(oneLine(await runInProcess([...args, '--data', data])), args.join(' ')).toBe(says);
    }
    // Refused before the start: central did not claim the folder.
    expect(existsSync(join(data, 'node.json'))).toBe(false);
    // The folder's own key still works.
    vi.stubEnv('PUNCHCARD_NODE_KEY', '');
    const key = await runInProcess(['key', '--data', data]);
    expect(key.code, key.stderr).toBe(0);
  });

  it('DIR/node.key replaced, or lost (no new one is made over the data)', async () => {
    const data = await initFolder();
    const keyFile = join(data, 'node.key');
    const original = readFileSync(keyFile, 'utf8');
    rmSync(keyFile);
    expect(oneLine(await runInProcess(['stores', 'list', '--data', data]))).toBe(
      `punchcard: ${keyFile} is missing, and this folder's database holds values sealed with a node key: restore node.key from the folder's backup, or set PUNCHCARD_NODE_KEY to that key (a new key would not open them).`,
    );
    expect(existsSync(keyFile), 'a new node.key was made').toBe(false);
    // The key moved to the environment is the same key: accepted.
    vi.stubEnv('PUNCHCARD_NODE_KEY', original.trim());
    expect((await runInProcess(['stores', 'list', '--data', data])).code).toBe(0);
    vi.stubEnv('PUNCHCARD_NODE_KEY', '');
    writeFileSync(keyFile, `${otherKey()}\n`, { mode: 0o600 });
    expect(oneLine(await runInProcess(['store', '--data', data, '--port', '0']))).toBe(
      `punchcard: ${keyFile} is not the key this folder's database was sealed with (card PINs, webhook secrets): restore the node.key of its backup, or set PUNCHCARD_NODE_KEY to that key.`,
    );
  });

  it("a node started without the CLI (the desktop app's) refuses another key too, and leaves the folder free", async () => {
    const data = await initFolder();
    vi.stubEnv('PUNCHCARD_NODE_KEY', otherKey());
    await expect(startStoreNode({ dataDir: data, port: 0 })).rejects.toThrow(/^PUNCHCARD_NODE_KEY is not the key this folder's database was sealed with/);
    expect(existsSync(join(data, 'node.pid'))).toBe(false);
    vi.stubEnv('PUNCHCARD_NODE_KEY', '');
    const node = await startStoreNode({ dataDir: data, port: 0 });
    await node.close();
    // node.key lost: refused as missing, and no new key is made over the sealed data.
    const keyFile = join(data, 'node.key');
    rmSync(keyFile);
    await expect(startStoreNode({ dataDir: data, port: 0 })).rejects.toThrow(/node\.key is missing, and this folder's database holds values sealed with a node key/);
    expect(existsSync(keyFile), 'a new node.key was made').toBe(false);
  });

  it('a folder from before the check is checked against a PIN it sealed, then given the check with the key in use', async () => {
    const data = await initFolder();
    const key = Buffer.from(readFileSync(join(data, 'node.key'), 'utf8').trim(), 'hex');
    // As an older version left it: a card with a PIN, no check in node_meta.
    const engine = await openNodeEngine({ dataDir: data });
    await createCard(engine, { vendorId }, { number: 'PINCARD1', pin: '4321' });
    await engine.db.deleteFrom('node_meta').where('key', '=', 'node_key_check').execute();
    await engine.close();

    vi.stubEnv('PUNCHCARD_NODE_KEY', otherKey());
    expect(oneLine(await runInProcess(['store', '--data', data, '--port', '0']))).toMatch(/^punchcard: PUNCHCARD_NODE_KEY is not the key this folder's database was sealed with/);
    const database = openDatabaseUrl(join(data, 'punchcard.db'));
    try {
      expect(await getMeta(database.db, 'node_key_check'), 'the wrong key was recorded').toBeNull();
      vi.stubEnv('PUNCHCARD_NODE_KEY', '');
      expect((await runInProcess(['key', '--data', data])).code).toBe(0);
      const check = await getMeta(database.db, 'node_key_check');
      expect(check).not.toBeNull();
      expect(new Sealer(key).open(check!)).toBe('punchcard node key');
    } finally {
      await database.close();
    }
  });
});
