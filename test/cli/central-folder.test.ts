import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startStoreNode } from '../../src/server/node/store-node';
import { createServerDatabase } from '../support/postgres';
import { killLeftovers, launch, listeningUrl, run, stopWith } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// A chain's central folder as a newcomer meets it from the command line: central sends its emails
// as the store does (--mail-from), the owner's sign-in link points at central's port, and a
// PostgreSQL central's folder worked on without PUNCHCARD_DATABASE_URL says so instead of making
// an empty SQLite program beside it.

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-cli-central-');
  dirs.push(dir);
  return dir.path;
}

const drops: Array<() => Promise<void>> = [];
afterEach(killLeftovers);
afterAll(async () => {
  await killLeftovers();
  for (const dir of dirs) dir.remove();
  for (const drop of drops) await drop();
});

const NO_DATABASE_URL = { PUNCHCARD_DATABASE_URL: undefined };
const STACK_TRACE = /\bat\s+\S+\s+\(|\bat\s+file:|\.ts:\d+|\.cjs:\d+|node_modules/;

function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.trim().length > 0 && !/^punchcard: (warning:|building)/.test(line));
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(STACK_TRACE);
  return lines[0]!;
}

async function eventually<T>(probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts `punchcard central` on the folder, runs `work` against it, and stops it. */
async function withCentral(dir: string, args: string[], env: Record<string, string | undefined>, work: (url: string) => Promise<void> = async () => undefined): Promise<void> {
  const central = launch(['central', '--data', dir, '--port', '0', ...args], undefined, env);
  await work(await listeningUrl(central, 'central'));
  expect((await stopWith(central, 'SIGTERM')).code, central.stderr()).toBe(0);
}

describe('an SQLite central folder', () => {
  it('central sends its emails from --mail-from, and its owner sign-in links point at port 4320', async () => {
    const dir = tempDir();
    const init = await run(['init', '--data', dir, '--vendor', 'Chain HQ', '--owner', 'boss@chain.test', '--json'], { ...NO_DATABASE_URL, PUNCHCARD_OWNER_PASSWORD: 'Summer2026!' });
    expect(init.code, init.stderr).toBe(0);

    await withCentral(dir, ['--mail-from', 'Chain HQ <hq@chain.test>'], { ...NO_DATABASE_URL, PUNCHCARD_SMTP_URL: undefined }, async (url) => {
      expect((await http(`${url}/backoffice/password-reset`, { method: 'POST', body: { email: 'boss@chain.test' } })).status).toBe(202);
      const outbox = join(dir, 'outbox');
      const email = await eventually(() => (existsSync(outbox) ? readdirSync(outbox).find((name) => name.endsWith('.eml')) : undefined));
      expect(readFileSync(join(outbox, email), 'utf8')).toMatch(/^From: Chain HQ <hq@chain\.test>\r?$/m);
    });

    const owner = await run(['owner', '--data', dir, '--email', 'second@chain.test', '--json'], { ...NO_DATABASE_URL, PUNCHCARD_OWNER_PASSWORD: undefined });
    expect(owner.code, owner.stderr).toBe(0);
    expect(JSON.parse(owner.stdout).owner_sign_in_link).toMatch(/^http:\/\/127\.0\.0\.1:4320\/admin#\/sign-in-link\?token=pcsl_/);

    // A folder central ran on before it recorded so: its database carries central's change capture.
    rmSync(join(dir, 'node.json'));
    const older = await run(['owner', '--data', dir, '--email', 'third@chain.test', '--json'], { ...NO_DATABASE_URL, PUNCHCARD_OWNER_PASSWORD: undefined });
    expect(older.code, older.stderr).toBe(0);
    expect(JSON.parse(older.stdout).owner_sign_in_link).toMatch(/^http:\/\/127\.0\.0\.1:4320\/admin#/);

    const told = await run(['owner', '--data', dir, '--email', 'fourth@chain.test', '--admin-url', 'https://hq.chain.test/admin', '--json'], { ...NO_DATABASE_URL, PUNCHCARD_OWNER_PASSWORD: undefined });
    expect(JSON.parse(told.stdout).owner_sign_in_link).toMatch(/^https:\/\/hq\.chain\.test\/admin#/);
  }, 120_000);

  it("a store's folder keeps the store's port, 4321", async () => {
    const { code, stdout, stderr } = await run(['init', '--data', tempDir(), '--vendor', 'Solo', '--owner', 'solo@shop.test', '--json'], { ...NO_DATABASE_URL, PUNCHCARD_OWNER_PASSWORD: undefined });
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout).owner_sign_in_link).toMatch(/^http:\/\/127\.0\.0\.1:4321\/admin#/);
  }, 60_000);
});

describe('a folder with no program', () => {
  it('is not given an empty database by a command that needs a program, and is told about PUNCHCARD_DATABASE_URL', async () => {
    const dir = tempDir();
    for (const args of [
      ['stores', 'list'],
      ['owner', '--email', 'boss@chain.test'],
      ['key'],
      ['token', '--vendor', '1'],
      ['pair-code', '--store', '1'],
    ]) {
      const { code, stderr } = await run([...args, '--data', dir], NO_DATABASE_URL);
      expect(code, args.join(' ')).toBe(1);
      expect(oneLine(stderr)).toBe('punchcard: This data folder has no vendor yet: run `punchcard init` first (for a central on PostgreSQL, set PUNCHCARD_DATABASE_URL to its database).');
    }
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);
});

describe.skipIf(!process.env.PG_URL)('a PostgreSQL central folder without PUNCHCARD_DATABASE_URL', () => {
  it('is refused before anything is opened, and works with it', async () => {
    const database = await createServerDatabase(process.env.PG_URL!, 'punchcard_cli_central');
    drops.push(database.drop);
    const withUrl = { PUNCHCARD_DATABASE_URL: database.url };
    const dir = tempDir();
    const init = await run(['init', '--data', dir, '--vendor', 'Chain', '--owner', 'first@chain.test', '--json'], { ...withUrl, PUNCHCARD_OWNER_PASSWORD: undefined });
    expect(init.code, init.stderr).toBe(0);
    const { store_id: storeId, vendor_id: vendorId, owner_sign_in_link: link } = JSON.parse(init.stdout) as { store_id: number; vendor_id: number; owner_sign_in_link: string };
    // Before central's first start: a PostgreSQL folder is a central's, so the link points at 4320.
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:4320\/admin#\/sign-in-link\?token=pcsl_/);

    // Set up, never started: the folder knows its database is PostgreSQL.
    const early = await run(['stores', 'list', '--data', dir], NO_DATABASE_URL);
    expect(early.code).toBe(1);
    expect(oneLine(early.stderr)).toBe("punchcard: this folder's database is on PostgreSQL: set PUNCHCARD_DATABASE_URL to it");

    await withCentral(dir, [], withUrl);
    for (const args of [
      ['stores', 'list'],
      ['owner', '--email', 'boss@chain.test'],
      ['pair-code', '--store', String(storeId)],
      ['key'],
      ['token', '--vendor', String(vendorId)],
      ['central', '--port', '0'],
    ]) {
      const { code, stderr } = await run([...args, '--data', dir], NO_DATABASE_URL);
      expect(code, args.join(' ')).toBe(1);
      expect(oneLine(stderr), args.join(' ')).toBe('punchcard: this folder is a central on PostgreSQL: set PUNCHCARD_DATABASE_URL to its database');
    }
    expect(existsSync(join(dir, 'punchcard.db'))).toBe(false);

    const listed = await run(['stores', 'list', '--data', dir, '--json'], withUrl);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout.trim()).id).toBe(storeId);
  }, 180_000);
});

describe('punchcard unpair on a running store that was never paired', () => {
  it('says there is nothing to unpair rather than to stop the node', async () => {
    const dir = tempDir();
    const node = await startStoreNode({ dataDir: dir, port: 0, rendererDir: tempDir() });
    try {
      const { code, stdout, stderr } = await run(['unpair', '--data', dir]);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(oneLine(stderr)).toBe(`punchcard: ${dir} is not paired with a central node: nothing to unpair.`);
    } finally {
      await node.close();
    }
  }, 60_000);
});
