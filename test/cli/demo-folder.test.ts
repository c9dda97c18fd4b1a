import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabaseUrl } from '../../src/core/storage/database';
import { openDataDir } from '../../src/server/node/data-dir';
import { checkDemoFolder } from '../../src/server/node/demo/demo-folder';
import { writePairing } from '../../src/server/sync/pairing-file';
import { runInProcess, withoutPunchcardEnv } from '../support/cli-in-process';
import { makeTempDir } from '../support/temp-dir';

// `punchcard demo` (what `npm start -- --data DIR` runs without a desktop) on a real program's folder
// made owner@example.com an owner of that program and replaced its screen keys: it now runs only on
// a folder of its own, refused in one line before anything starts.

const dirs: Array<{ remove(): void }> = [];
afterAll(() => dirs.forEach((dir) => dir.remove()));

async function initFolder(vendor: string): Promise<string> {
  withoutPunchcardEnv();
  const dir = makeTempDir('punchcard-demo-folder-');
  dirs.push(dir);
  const data = join(dir.path, 'node');
  const init = await runInProcess(['init', '--data', data, '--vendor', vendor, '--json']);
  expect(init.code, init.stderr).toBe(0);
  return data;
}

async function staffAndKeys(data: string): Promise<{ staff: string[]; keys: number }> {
  const database = openDatabaseUrl(join(data, 'punchcard.db'));
  try {
    const staff = await database.db.selectFrom('staff_accounts').select('email').execute();
    const keys = await database.db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { staff: staff.map((row) => row.email), keys: Number(keys.n) };
  } finally {
    await database.close();
  }
}

describe('punchcard demo on a folder that is not the demo’s', () => {
  it("refuses a real program's folder in one line, making no owner and no keys", async () => {
    const data = await initFolder('Cafe Uno');
    const before = await staffAndKeys(data);
    const demo = await runInProcess(['demo', '--data', data, '--port', '0']);
    expect(demo.code).toBe(1);
    expect(demo.stderr).toMatch(/^punchcard: .* holds a program that is not the demo \(Cafe Uno\): the demo would make owner@example\.com its owner/m);
    expect(demo.stderr).toContain(`punchcard store --data ${data}`);
    expect(demo.stdout).toBe('');
    expect(await staffAndKeys(data)).toEqual(before);
    expect(before.staff).not.toContain('owner@example.com');
  }, 60_000);

  it("refuses a chain's store folder", async () => {
    const data = await initFolder('Cafe Uno');
    writePairing(openDataDir(data), { central: 'http://127.0.0.1:4320', node_id: 7, vendor_id: 1, store_id: 1, credential: 'x', paired_at: new Date().toISOString() });
    const demo = await runInProcess(['demo', '--data', data, '--port', '0']);
    expect(demo.code).toBe(1);
    expect(demo.stderr).toMatch(/is a chain's store \(paired with a central\), not a demo folder/);
  }, 60_000);

  it('takes an empty folder, and a demo folder made before the mark (one program named Demo Coffee), which it marks', async () => {
    const empty = makeTempDir('punchcard-demo-folder-');
    dirs.push(empty);
    await expect(checkDemoFolder(join(empty.path, 'node'))).resolves.toBeUndefined();
    const legacy = await initFolder('Demo Coffee');
    await expect(checkDemoFolder(legacy)).resolves.toBeUndefined();
    const database = openDatabaseUrl(join(legacy, 'punchcard.db'));
    const mark = await database.db.selectFrom('node_meta').select('value').where('key', '=', 'demo_vendor_id').executeTakeFirst();
    await database.close();
    expect(mark?.value).toMatch(/^\d+$/);
    // A second program in a marked demo folder is no longer the demo's.
    const second = await runInProcess(['init', '--data', legacy, '--vendor', 'Cafe Uno', '--json']);
    expect(second.code, second.stderr).toBe(0);
    await expect(checkDemoFolder(legacy)).rejects.toThrow(/not the demo \(Demo Coffee, Cafe Uno\)/);
  }, 60_000);
});
