import Database from 'better-sqlite3';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, launch, stopWith, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// A newcomer's run of the README: the first `npm start` (`punchcard demo`) stopped with Ctrl+C while
// it created the demo data left one customer of fifty and no history, and every later start said
// "Demo data reused from the first run" — the identifications it prints to try found nobody. Such a
// folder's incomplete database is now set aside and the demo created again.

const dirs: Array<{ remove(): void }> = [];
afterEach(killLeftovers);
afterAll(() => dirs.forEach((dir) => dir.remove()));

/** Customers in the demo folder's database so far; undefined before its tables exist. */
function customers(database: string): number | undefined {
  if (!existsSync(database)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new Database(database, { readonly: true, fileMustExist: true });
    return (db.prepare('select count(*) as n from users').get() as { n: number }).n;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

describe('punchcard demo after a first run stopped while creating its data', () => {
  it('sets the incomplete database aside and creates the whole demo again, saying so', async () => {
    const dir = makeTempDir('punchcard-demo-interrupted-');
    dirs.push(dir);
    const data = join(dir.path, 'demo');
    const database = join(data, 'punchcard.db');

    const first = launch(['demo', '--data', data, '--port', '0']);
    // Stopped as a newcomer's Ctrl+C would, once some of the fifty customers exist and before the banner.
    const partial = await waitFor('the first customers of the demo', () => {
      const n = customers(database);
      return n !== undefined && n > 0 && n < 50 ? n : undefined;
    }, first, 120_000);
    await stopWith(first, 'SIGINT');
    expect(first.stdout()).not.toContain('demo store node:');
    expect(customers(database)).toBeLessThan(50);
    expect(partial).toBeGreaterThan(0);

    const second = launch(['demo', '--data', data, '--port', '0']);
    await waitFor('the demo banner', () => (/try: curl/.test(second.stdout()) ? true : undefined), second, 120_000);
    expect(second.stdout()).toContain('These keys are shown only on this first run.');
    expect(second.stdout()).not.toContain('Demo data reused');
    expect(second.stderr()).toMatch(/^punchcard: the demo's first run on .* was stopped before its data was complete: creating it again \(the incomplete database is set aside as .*punchcard\.db\.interrupted-/m);
    expect(customers(database)).toBe(50);
    expect(readdirSync(data).some((name) => /^punchcard\.db\.interrupted-[^-]/.test(name))).toBe(true);
    await stopWith(second, 'SIGTERM');

    // A complete demo folder is reused as before, nothing set aside again.
    const third = launch(['demo', '--data', data, '--port', '0']);
    await waitFor('the demo banner', () => (/try: curl/.test(third.stdout()) ? true : undefined), third, 120_000);
    expect(third.stdout()).toContain('Demo data reused from the first run.');
    expect(third.stderr()).not.toContain('stopped before its data was complete');
    expect(readdirSync(data).filter((name) => /^punchcard\.db\.interrupted-/.test(name) && !/-(wal|shm)$/.test(name))).toHaveLength(1);
    await stopWith(third, 'SIGTERM');
  }, 300_000);
});
