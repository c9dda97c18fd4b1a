import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '../../src/core/credentials/authenticate';
import { type Engine, startEngine } from '../../src/core/engine';
import { hashSecret } from '../../src/core/credentials/secrets';
import { openSqlite } from '../../src/core/storage/database';
import { setUpVendor } from '../../src/core/tenancy/set-up-vendor';
import { DESKTOP_KEY_LABELS, mintDesktopKeys } from '../../src/main/desktop-keys';
import { makeTempDir } from '../support/temp-dir';

// The desktop windows' keys, on a real engine (no Electron): minted per start with the right roles,
// stored hashed, and the previous start's keys revoked.

describe('desktop keys', () => {
  let dir: ReturnType<typeof makeTempDir>;
  let engine: Engine;

  beforeEach(async () => {
    dir = makeTempDir();
    engine = await startEngine({ database: openSqlite(`${dir.path}/punchcard.db`), nodeKey: randomBytes(32), role: 'store' });
  });
  afterEach(async () => {
    await engine.close();
    dir.remove();
  });

  const store = { name: 'Main', address1: '1 Main St', city: 'Springfield' };

  it('answers null while the node has no store', async () => {
    expect(await mintDesktopKeys(engine, null)).toBeNull();
  });

  it('mints a cashier and a kiosk key for the first store, stored hashed', async () => {
    const vendor = await setUpVendor(engine, { name: 'Cafe', currency: 'USD', country: 'US', store });
    const keys = (await mintDesktopKeys(engine, null))!;
    expect(keys).toMatchObject({ vendorId: vendor.vendorId, storeId: vendor.storeId, storeName: 'Main' });
    expect(await authenticateApiKey(engine, keys.cashier)).toMatchObject({ role: 'cashier', storeId: vendor.storeId, posId: vendor.posId });
    expect(await authenticateApiKey(engine, keys.kiosk)).toMatchObject({ role: 'kiosk', storeId: vendor.storeId, posId: null });
    const rows = await engine.db.selectFrom('api_keys').select(['key_hash']).where('label', 'in', Object.values(DESKTOP_KEY_LABELS)).execute();
    expect(rows.map((r) => r.key_hash).sort()).toEqual([hashSecret(keys.cashier), hashSecret(keys.kiosk)].sort());
  });

  it('revokes the previous start’s keys, and leaves other keys alone', async () => {
    const vendor = await setUpVendor(engine, { name: 'Cafe', currency: 'USD', country: 'US', store });
    const first = (await mintDesktopKeys(engine, null))!;
    const second = (await mintDesktopKeys(engine, null))!;
    await expect(authenticateApiKey(engine, first.cashier)).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(authenticateApiKey(engine, first.kiosk)).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(authenticateApiKey(engine, second.cashier)).resolves.toMatchObject({ role: 'cashier' });
    await expect(authenticateApiKey(engine, vendor.apiKey)).resolves.toMatchObject({ role: 'cashier' });
    const live = await engine.db.selectFrom('api_keys').select('id').where('label', 'in', Object.values(DESKTOP_KEY_LABELS)).where('revoked_at', 'is', null).execute();
    expect(live).toHaveLength(2);
  });

  it('serves the configured store, and answers null for a store that is not there', async () => {
    await setUpVendor(engine, { name: 'First', currency: 'USD', country: 'US', store });
    const second = await setUpVendor(engine, { name: 'Second', currency: 'EUR', country: 'ES', store: { ...store, name: 'Madrid' } });
    expect((await mintDesktopKeys(engine, second.storeId))!).toMatchObject({ storeId: second.storeId, vendorId: second.vendorId, storeName: 'Madrid' });
    expect(await mintDesktopKeys(engine, 999_999)).toBeNull();
  });
});
