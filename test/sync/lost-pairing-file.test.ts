import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { nodesOfThisFile, run, stopWith, withoutScreensWarning } from '../support/processes';
import { http } from '../support/test-node';

// A paired store whose central.json was lost (a restore that missed it, a cleanup) refuses to start
// as a standalone store on the chain's data (real processes, HTTP, SQLite files): one line, exit 1,
// nothing changed. With the file back it starts paired and syncs again; `punchcard unpair` still
// leaves the chain without it; a standalone store is not affected.

const { tempDir, start } = nodesOfThisFile('punchcard-lost-');

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function usersWithEmail(database: string, email: string): number {
  const db = new BetterSqlite3(database, { readonly: true });
  try {
    return (db.prepare('select count(*) as n from users where email = ?').get(email) as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('a paired store whose central.json was lost', () => {
  it('refuses to start on the chain’s data, changes nothing, and starts and syncs again once the file is back', async () => {
    const centralDir = tempDir('punchcard-lost-central-');
    const init = await run(['init', '--data', centralDir, '--vendor', 'Chain Coffee', '--json'], {}, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const program = JSON.parse(init.stdout.trim()) as { store_id: number; api_key: string };
    const { process: central, url: centralUrl } = await start(['central', '--data', centralDir, '--port', '0'], 'central');
    const pairCode = await run(['pair-code', '--data', centralDir, '--store', String(program.store_id), '--json'], {}, 120_000);
    expect(pairCode.code, pairCode.stderr).toBe(0);
    const code = (JSON.parse(pairCode.stdout) as { code: string }).code;

    const storeDir = tempDir('punchcard-lost-store-');
    let { process: store, url: storeUrl } = await start(['store', '--data', storeDir, '--port', '0', '--central', centralUrl, '--pair', code], 'store');
    const status = async () => (await http(`${storeUrl}/sync/status`)).body as { paired: boolean; pending: number; last_push_at: string | null; first_sync: { done: boolean } };
    await eventually('the first sync', async () => ((await status()).first_sync.done ? true : undefined));
    const register = (email: string) => http(`${storeUrl}/onscreen/register?api_key=${program.api_key}`, { method: 'POST', body: { email } });
    const before = await register('before@lost.example');
    expect([200, 201], JSON.stringify(before.body)).toContain(before.status);
    await eventually('the sale sent', async () => ((await status()).pending === 0 ? true : undefined));
    const backupDir = join(tempDir('punchcard-lost-backup-'), 'copy');
    const backedUp = await run(['backup', '--data', storeDir, '--to', backupDir], {}, 120_000);
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect((await stopWith(store, 'SIGTERM')).code).toBe(0);

    // The file is lost; the folder still holds the chain's data.
    const pairingFile = join(storeDir, 'central.json');
    const backup = join(backupDir, 'central.json');
    rmSync(pairingFile);
    const database = join(storeDir, 'punchcard.db');
    const key = readFileSync(join(storeDir, 'node.key'));
    expect(usersWithEmail(database, 'before@lost.example')).toBe(1);

    const refused = await run(['store', '--data', storeDir, '--port', '0'], {}, 120_000);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    // (bin/punchcard.js rebuilds out/cli when sources changed under it and says so: not the refusal.)
    const lines = withoutScreensWarning(refused.stderr).split('\n').filter((line) => line.trim() !== '' && !line.startsWith('punchcard: building the command line'));
    expect(lines, refused.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^punchcard: .*holds a chain's data .*central\.json is missing/);
    expect(lines[0]).toContain('`punchcard backup`');
    expect(lines[0]).toContain(`punchcard store --data ${storeDir} --central URL --pair CODE --replace-local-data`);
    expect(refused.stdout).not.toMatch(/listening on/);
    // The one-shot commands open the folder the same way: refused alike.
    const listed = await run(['stores', 'list', '--data', storeDir, '--json'], {}, 120_000);
    expect([listed.code, listed.stderr]).toEqual([1, expect.stringContaining('central.json is missing')]);
    // Nothing changed: the rows, the key, no pairing file made, nothing set aside.
    expect(usersWithEmail(database, 'before@lost.example')).toBe(1);
    expect(readFileSync(join(storeDir, 'node.key'))).toEqual(key);
    expect(existsSync(pairingFile)).toBe(false);

    // The file put back from the backup: the store starts paired and its sales reach central again.
    copyFileSync(backup, pairingFile);
    ({ process: store, url: storeUrl } = await start(['store', '--data', storeDir, '--port', '0'], 'store'));
    expect((await status()).paired).toBe(true);
    const after = await register('after@lost.example');
    expect([200, 201], JSON.stringify(after.body)).toContain(after.status);
    await eventually('the new sale at central', async () => (usersWithEmail(join(centralDir, 'punchcard.db'), 'after@lost.example') === 1 ? true : undefined));
    expect((await status()).pending).toBe(0);

    // Leaving the chain instead: a sale central never got, the file lost again. `punchcard unpair`
    // takes the folder as paired: it refuses over the unsent sale, then sets the chain's data aside.
    await stopWith(central, 'SIGTERM');
    const unsent = await register('unsent@lost.example');
    expect([200, 201], JSON.stringify(unsent.body)).toContain(unsent.status);
    expect((await stopWith(store, 'SIGTERM')).code).toBe(0);
    rmSync(pairingFile);
    const kept = await run(['unpair', '--data', storeDir], {}, 120_000);
    expect(kept.code, kept.stderr).toBe(1);
    expect(kept.stderr).toMatch(/^punchcard: 1 change made here .*Put central\.json back and start the store node so it sends them, or unpair with --discard-unsent/m);
    expect(usersWithEmail(database, 'unsent@lost.example')).toBe(1);
    const unpaired = await run(['unpair', '--data', storeDir, '--discard-unsent', '--json'], {}, 120_000);
    expect(unpaired.code, unpaired.stderr).toBe(0);
    const { set_aside: aside } = JSON.parse(unpaired.stdout) as { set_aside: string };
    expect(usersWithEmail(aside, 'unsent@lost.example')).toBe(1);
    ({ process: store, url: storeUrl } = await start(['store', '--data', storeDir, '--port', '0'], 'store'));
    expect((await status()).paired).toBe(false);
    expect(usersWithEmail(database, 'before@lost.example')).toBe(0);
    expect((await stopWith(store, 'SIGTERM')).code).toBe(0);
  }, 300_000);

  it('leaves a standalone store alone: with a program of its own it starts as before', async () => {
    const dir = tempDir('punchcard-lost-standalone-');
    const init = await run(['init', '--data', dir, '--vendor', 'Corner Shop', '--json'], {}, 120_000);
    expect(init.code, init.stderr).toBe(0);
    const { process: store, url } = await start(['store', '--data', dir, '--port', '0'], 'store');
    expect((await http(`${url}/sync/status`)).body.paired).toBe(false);
    expect((await stopWith(store, 'SIGTERM')).code).toBe(0);
  }, 180_000);
});
