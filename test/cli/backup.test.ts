import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runInProcess, withoutPunchcardEnv } from '../support/cli-in-process';
import { killLeftovers, launch, listeningUrl, stopWith } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `punchcard backup` while a store node takes sales: a new folder that is a data folder (database
// copied in one read transaction and checked, node.key), on which a node starts with every sale the
// backup saw; refusals in one line for a folder in use and a PostgreSQL central's folder.

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-backup-');
  dirs.push(dir);
  return dir.path;
}
afterEach(async () => {
  vi.unstubAllEnvs();
  await killLeftovers();
});
afterAll(async () => {
  await killLeftovers();
  for (const dir of dirs) dir.remove();
});


const order = (url: string, apiKey: string, receipt: string) =>
  http(`${url}/order?api_key=${encodeURIComponent(apiKey)}`, { method: 'POST', body: { card_number: 'ana@example.com', receipt_number: receipt, subtotal: 10 } });

describe('punchcard backup', () => {
  it('copies a running store’s folder into a folder a node starts on, with every sale made before it', async () => {
    withoutPunchcardEnv();
    const data = join(tempDir(), 'node');
    const init = await runInProcess(['init', '--data', data, '--vendor', 'Cafe Uno', '--json']);
    expect(init.code, init.stderr).toBe(0);
    const { api_key: apiKey } = JSON.parse(init.stdout) as { api_key: string };
    const store = launch(['store', '--data', data, '--port', '0'], undefined, { PUNCHCARD_DATABASE_URL: undefined });
    const url = await listeningUrl(store, 'store');
    expect((await http(`${url}/onscreen/register?api_key=${encodeURIComponent(apiKey)}`, { method: 'POST', body: { email: 'ana@example.com' } })).status).toBe(201);
    for (const receipt of ['B-1', 'B-2', 'B-3']) expect((await order(url, apiKey, receipt)).status).toBe(200);

    const to = join(tempDir(), 'backup');
    const backup = await runInProcess(['backup', '--data', data, '--to', to, '--json']);
    expect(backup.code, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ backup: to, files: ['punchcard.db', 'node.key'] });
    expect(statSync(to).mode & 0o777).toBe(0o700);
    expect(statSync(join(to, 'node.key')).mode & 0o777).toBe(0o600);
    // A sale after the backup is not in it.
    expect((await order(url, apiKey, 'B-4')).status).toBe(200);
    expect((await stopWith(store, 'SIGTERM')).code).toBe(0);
    const copy = new BetterSqlite3(join(to, 'punchcard.db'), { readonly: true });
    expect(copy.prepare('select receipt_number from orders order by receipt_number').pluck().all()).toEqual(['B-1', 'B-2', 'B-3']);
    copy.close();

    const restored = launch(['store', '--data', to, '--port', '0'], undefined, { PUNCHCARD_DATABASE_URL: undefined });
    const restoredUrl = await listeningUrl(restored, 'store');
    const resend = await order(restoredUrl, apiKey, 'B-3');
    expect([resend.status, resend.body.receipt_number ?? resend.body.order?.receipt_number]).toEqual([200, 'B-3']);
    const history = await http(`${restoredUrl}/onscreen?api_key=${encodeURIComponent(apiKey)}`, { method: 'POST', body: { card_number: 'ana@example.com' } });
    expect(history.status).toBe(201);
    expect((await stopWith(restored, 'SIGTERM')).code).toBe(0);

    const again = await runInProcess(['backup', '--data', data, '--to', to]);
    expect([again.code, again.stderr.trim()]).toEqual([1, `punchcard: ${to} is not empty: back up into a new folder.`]);
  }, 120_000);

  it('refuses a central on PostgreSQL (pg_dump is the tool) and a folder with no database, in one line', async () => {
    withoutPunchcardEnv();
    const central = tempDir();
    writeFileSync(join(central, 'node.json'), JSON.stringify({ role: 'central', database: 'postgresql' }));
    const refused = await runInProcess(['backup', '--data', central, '--to', join(tempDir(), 'b')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^punchcard: .* is a central on PostgreSQL: back its database up with PostgreSQL's tools \(pg_dump/);
    const nowhere = join(tempDir(), 'c');
    const empty = await runInProcess(['backup', '--data', tempDir(), '--to', nowhere]);
    expect(empty.stderr).toMatch(/holds no Punchcard database/);
    expect(existsSync(nowhere)).toBe(false);
    expect(readdirSync(central)).toEqual(['node.json']);
  });
});
