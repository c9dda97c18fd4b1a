import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { DEFAULT_DESKTOP_CONFIG } from '../../src/main/desktop-config';
import { type DesktopNode, startDesktopNode } from '../../src/main/desktop-node';
import { startDemoSeed } from '../../src/server/node/demo/demo-folder';
import { startStoreNode } from '../../src/server/node/store-node';
import { makeTempDir } from '../support/temp-dir';

// The desktop app creates the demo on its first start too: an app closed while it did (the seed's
// note still in the folder, one program and none of its customers) reused the half-made demo at
// every later start. Now its database is set aside and the demo made again, as `punchcard demo` does
// (test/cli/demo-interrupted.test.ts stops a real process mid-seed).

const dirs: Array<ReturnType<typeof makeTempDir>> = [];
let desktop: DesktopNode | null = null;
afterEach(async () => {
  await desktop?.node.close();
  desktop = null;
  for (const dir of dirs.splice(0)) dir.remove();
});

async function customers(node: DesktopNode): Promise<number> {
  const row = await node.node.engine.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('the desktop node after a first run closed while it created the demo', () => {
  it('sets the incomplete database aside and creates the whole demo again', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const data = join(dir.path, 'data');
    // Where the first run was when the app closed: the seed begun, its program made, no customer yet.
    const first = await startStoreNode({ dataDir: data, port: 0 });
    await startDemoSeed(first.engine.db);
    await setUpVendor(first.engine, { name: 'Demo Coffee', currency: 'USD', country: 'US', store: { name: 'Demo Coffee Downtown', address1: '100 Market Street', city: 'San Francisco' } });
    await first.close();

    desktop = await startDesktopNode({ userDataDir: dir.path, config: { ...DEFAULT_DESKTOP_CONFIG, scanners: { hid: false, keyboardDevices: [] } } });
    expect(await customers(desktop)).toBe(50);
    expect(desktop.keys.storeName).toBe('Demo Coffee Downtown');
    const setAside = () => readdirSync(data).filter((name) => /^punchcard\.db\.interrupted-/.test(name) && !/-(wal|shm)$/.test(name));
    expect(setAside()).toHaveLength(1);
    await desktop.node.close();

    // A complete demo is reused: nothing set aside again, the same fifty customers.
    desktop = await startDesktopNode({ userDataDir: dir.path, config: { ...DEFAULT_DESKTOP_CONFIG, scanners: { hid: false, keyboardDevices: [] } } });
    expect(await customers(desktop)).toBe(50);
    expect(setAside()).toHaveLength(1);
  }, 120_000);
});
