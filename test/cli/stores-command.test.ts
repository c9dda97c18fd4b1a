import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreNode } from '../../src/server/node/store-node';
import { runInProcess as run } from '../support/cli-in-process';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `punchcard stores add|update|list` on a data folder, then GET /vendor/store/list on the node
// serving it finds the stores by position.

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-stores-');
  dirs.push(dir);
  return dir.path;
}
let data: string;
let vendorId: number;

beforeAll(async () => {
  data = tempDir();
  const init = await run(['init', '--data', data, '--vendor', 'Café Andino', '--country', 'EC', '--json']);
  expect(init.code, init.stderr).toBe(0);
  vendorId = JSON.parse(init.stdout).vendor_id;
});

afterAll(() => {
  for (const dir of dirs) dir.remove();
});

describe('punchcard stores', () => {
  it('adds and updates a store that the customers’ store list finds near a position', async () => {
    const added = await run([
      'stores', 'add', '--data', data, '--name', 'Quito Norte', '--address', 'Av. Amazonas', '--city', 'Quito', '--country', 'EC',
      '--coordinates', '-0.1762,-78.4847', '--hours', '{"mon":"08:00-18:00","sun":"closed"}', '--time-zone', 'America/Guayaquil', '--phone', '02 234 5678', '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const store = JSON.parse(added.stdout);
    expect(store).toMatchObject({ name: 'Quito Norte', phone: '+59322345678', coordinates: { latitude: -0.1762, longitude: -78.4847 }, time_zone: 'America/Guayaquil', status: 'active' });

    // The node runs on the real clock here: open all day, every day, is open now whatever the time.
    const allWeek = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => [day, '00:00-24:00']));
    const updated = await run(['stores', 'update', String(store.id), '--data', data, '--hours', JSON.stringify(allWeek), '--json']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ name: 'Quito Norte', hours: allWeek, open_now: true });

    const listed = await run(['stores', 'list', '--data', data]);
    expect(listed.stdout).toMatch(new RegExp(`^${store.id}  Quito Norte  Quito, EC  active  open now$`, 'm'));

    const node = await startStoreNode({ dataDir: data, port: 0, rendererDir: tempDir() });
    try {
      const reply = await http(`${node.url}/vendor/store/list?vendor=${vendorId}&latitude=-0.2202&longitude=-78.5123&distance=10`);
      expect(reply.body.data.map((s: { name: string; open_now: boolean }) => [s.name, s.open_now])).toEqual([['Quito Norte', true]]);
    } finally {
      await node.close();
    }
  });

  it('refuses bad input with one clear line and changes nothing', async () => {
    const bad = await run(['stores', 'add', '--data', data, '--name', 'X', '--address', 'a', '--city', 'c', '--country', 'EC', '--time-zone', 'Nowhere/Else']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('punchcard: time_zone must be an IANA time zone such as America/Guayaquil.');
    const missing = await run(['stores', 'update', '999', '--data', data, '--name', 'Y']);
    expect(missing.stderr.trim()).toBe('punchcard: There is no store 999.');
    const listed = await run(['stores', 'list', '--data', data, '--json']);
    expect(listed.stdout.trim().split('\n').map((line) => JSON.parse(line).name)).toEqual(['Main Store', 'Quito Norte']);
  });

  it('names every flag a new store is missing, as the flags they are', async () => {
    const missing = await run(['stores', 'add', '--data', data, '--name', 'Cuenca', '--address', ' ']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('punchcard: A new store needs --name, --address, --city and --country; missing: --address, --city, --country.');
  });
});
