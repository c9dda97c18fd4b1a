import { afterEach, describe, expect, it } from 'vitest';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { issuePairingCode } from '../../src/core/sync/central/pairing';
import { DEFAULT_DESKTOP_CONFIG } from '../../src/main/desktop-config';
import { type DesktopNode, startDesktopNode } from '../../src/main/desktop-node';
import type { DesktopKeys } from '../../src/main/desktop-keys';
import { type RunningNode, startStoreNode } from '../../src/server/node/store-node';
import { http } from '../support/test-node';
import { makeTempDir } from '../support/temp-dir';

// The desktop app's node (no Electron here): its windows' keys live in the node's database, so
// pairing from Settings, which restarts the node on the chain's database, must hand the windows
// keys minted there — for the store it was paired for.

const dirs: Array<ReturnType<typeof makeTempDir>> = [];
let central: RunningNode | null = null;
let desktop: DesktopNode | null = null;
afterEach(async () => {
  await desktop?.node.close();
  await central?.close();
  desktop = central = null;
  for (const dir of dirs.splice(0)) dir.remove();
});

describe('the desktop node after pairing from Settings', () => {
  it('replaces the windows’ keys with keys of the paired store, minted on the chain’s database', async () => {
    dirs.push(makeTempDir(), makeTempDir());
    central = await startStoreNode({ dataDir: dirs[0]!.path, role: 'central', port: 0 });
    const chain = await setUpVendor(central.engine, { name: 'Chain Café', currency: 'USD', country: 'US', store: { name: 'Harbour', address1: '1 Quay', city: 'Springfield' } });
    desktop = await startDesktopNode({ userDataDir: dirs[1]!.path, config: { ...DEFAULT_DESKTOP_CONFIG, scanners: { hid: false, keyboardDevices: [] } } });
    const before = desktop.keys;
    const terminal = (key: string) => http(`${desktop!.node.url}/app/terminal?api_key=${key}`);
    // The first run's demo program.
    expect((await terminal(before.cashier)).status).toBe(200);

    const replaced = new Promise<DesktopKeys>((resolve) => desktop!.onKeysReplaced(resolve));
    const { code } = await issuePairingCode(central.engine, chain.vendorId, chain.storeId);
    const paired = await http(`${desktop.node.url}/sync/pairing?api_key=${before.cashier}`, { method: 'POST', body: { central: central.url, code, replace_local_data: true } });
    expect(paired.status, JSON.stringify(paired.body)).toBe(202);
    const keys = await replaced;

    expect(keys).toMatchObject({ vendorId: chain.vendorId, storeId: chain.storeId, storeName: 'Harbour' });
    expect(desktop.keys).toEqual(keys);
    const cashier = await terminal(keys.cashier);
    expect(cashier.status).toBe(200);
    expect(cashier.body.vendor.name).toBe('Chain Café');
    expect((await terminal(keys.kiosk)).status).toBe(200);
    // The first run's keys belonged to the database set aside.
    expect((await terminal(before.cashier)).status).toBe(401);
    expect((await terminal(before.kiosk)).status).toBe(401);
  });
});
