import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// `punchcard init` gives the first store a time zone: its dashboard days and opening hours are read
// in it, and the store was always left in UTC (a Quito store's day ended at 19:00). Real processes,
// with the computer's zone set by TZ as a merchant's machine has it.

const dirs: Array<{ remove(): void }> = [];
const tempDir = () => {
  const dir = makeTempDir('punchcard-init-tz-');
  dirs.push(dir);
  return dir.path;
};
afterAll(() => {
  for (const dir of dirs) dir.remove();
});

async function initStoreZone(args: string[], tz: string): Promise<{ zone: string; stderr: string; data: string }> {
  const data = tempDir();
  const init = await run(['init', '--data', data, '--vendor', 'Café Andino', ...args, '--json'], { TZ: tz });
  expect(init.code, init.stderr).toBe(0);
  const listed = await run(['stores', 'list', '--data', data, '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  // One JSON object a line, one store.
  const store = JSON.parse(listed.stdout.trim()) as { time_zone: string };
  return { zone: store.time_zone, stderr: init.stderr, data };
}

describe('punchcard init and the first store\'s time zone', () => {
  it("takes the computer's zone when it lies in the program's country", async () => {
    const { zone, stderr } = await initStoreZone(['--country', 'EC'], 'America/Guayaquil');
    expect(zone).toBe('America/Guayaquil');
    expect(stderr).not.toContain('UTC');
  });

  it("takes a country's only zone wherever the computer is", async () => {
    expect((await initStoreZone(['--country', 'CO'], 'UTC')).zone).toBe('America/Bogota');
  });

  it('takes --time-zone as given, and refuses one that is none before making anything', async () => {
    expect((await initStoreZone(['--country', 'EC', '--time-zone', 'Pacific/Galapagos'], 'UTC')).zone).toBe('Pacific/Galapagos');
    const data = `${tempDir()}/new`;
    const bad = await run(['init', '--data', data, '--vendor', 'X', '--country', 'EC', '--time-zone', 'Nowhere/Else', '--json']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('IANA time zone');
    expect(existsSync(data)).toBe(false);
  });

  it('leaves UTC when it cannot tell, and says how to set the zone', async () => {
    const { zone, stderr, data } = await initStoreZone(['--country', 'EC'], 'UTC');
    expect(zone).toBe('UTC');
    expect(stderr).toContain("the first store counts its days and hours in UTC");
    expect(stderr).toContain('America/Guayaquil, Pacific/Galapagos');
    expect(stderr).toContain(`--data ${data} --time-zone ZONE`);
  });
});
