import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabaseUrl } from '../../src/core/storage/database';
import { buildCli } from '../../src/server/cli/main';
import { LOG_LEVELS } from '../../src/server/cli/serve-settings';
import { openDataDir } from '../../src/server/node/data-dir';
import { writePairing } from '../../src/server/sync/pairing-file';
import { runInProcess, withoutPunchcardEnv } from '../support/cli-in-process';
import { killLeftovers, launch, listeningUrl, stopWith } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// What a newcomer's walk through the README met, each refused in one line `punchcard: …`, exit 1,
// no stack trace: a bad --host, a database URL that is not PostgreSQL's, a store on a central's
// folder (and central on a store's), pairing codes issued where no store can use them, output cut
// by `| head`, and help that did not say what the commands read.

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-cli-refusals-');
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

const STACK_TRACE = /\bat\s+\S+\s+\(|\bat\s+file:|\.ts:\d+|\.cjs:\d+|node_modules/;

/** The one line a refused command printed (launcher notes about stale builds aside). */
function oneLine(result: { code: number | null; stderr: string }): string {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr.split('\n').filter((line) => line.trim().length > 0 && !/^punchcard: (warning:|building)/.test(line));
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(STACK_TRACE);
  return lines[0]!;
}


async function initFolder(): Promise<{ data: string; storeId: number }> {
  withoutPunchcardEnv();
  const data = join(tempDir(), 'node');
  const init = await runInProcess(['init', '--data', data, '--vendor', 'Cafe Uno', '--json']);
  expect(init.code, init.stderr).toBe(0);
  return { data, storeId: (JSON.parse(init.stdout) as { store_id: number }).store_id };
}

const HOST_ADVICE = "listen on one of this machine's addresses (127.0.0.1 for this machine only, 0.0.0.0 for every interface, or one of its network addresses).";

describe('--host that is not an address of this machine', () => {
  it.each(['store', 'central', 'demo'])('%s: a name that does not resolve, an address it does not have', async (command) => {
    withoutPunchcardEnv();
    const data = join(tempDir(), 'node');
    expect(oneLine(await runInProcess([command, '--data', data, '--port', '0', '--host', '999.1.1.1']))).toBe(`punchcard: --host 999.1.1.1: no such host name or address: ${HOST_ADVICE}`);
    expect(oneLine(await runInProcess([command, '--data', data, '--port', '0', '--host', '10.255.255.1']))).toBe(`punchcard: --host 10.255.255.1: this machine has no such address: ${HOST_ADVICE}`);
    expect(existsSync(data), 'the folder was made').toBe(false);
  });
});

describe('a database URL that is not PostgreSQL', () => {
  it.each([
    { what: '--database mysql://', args: ['store', '--port', '0', '--database', 'mysql://x'], env: {}, says: 'punchcard: --database: "mysql://x" is not a PostgreSQL URL' },
    { what: 'central --database, a file path', args: ['central', '--port', '0', '--database', '/tmp/other.db'], env: {}, says: 'punchcard: --database: "/tmp/other.db" is not a PostgreSQL URL' },
    { what: 'PUNCHCARD_DATABASE_URL mysql://', args: ['init', '--vendor', 'X'], env: { PUNCHCARD_DATABASE_URL: 'mysql://x' }, says: 'punchcard: PUNCHCARD_DATABASE_URL: "mysql://x" is not a PostgreSQL URL' },
    { what: 'PUNCHCARD_DATABASE_URL, a file path', args: ['stores', 'list'], env: { PUNCHCARD_DATABASE_URL: 'shop.db' }, says: 'punchcard: PUNCHCARD_DATABASE_URL: "shop.db" is not a PostgreSQL URL' },
  ])('$what is refused, nothing made', async ({ args, env, says }) => {
    withoutPunchcardEnv();
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const data = join(tempDir(), 'node');
    expect(oneLine(await runInProcess([...args, '--data', data]))).toBe(
      `${says}: give postgres://USER@HOST:PORT/NAME, or leave it unset for the SQLite file in the data folder.`,
    );
    expect(existsSync(data), 'the folder was made').toBe(false);
  });

  it('openDatabaseUrl opens no other URL as a SQLite file', () => {
    expect(() => openDatabaseUrl('mysql://x')).toThrow('mysql:// is not a database Punchcard opens: use postgres:// (or postgresql://), or an SQLite file path.');
    expect(existsSync('mysql:')).toBe(false);
  });
});

describe("a central's folder and a store's", () => {
  it('store is refused on a central folder (while central runs on it and after); pair-code works there', async () => {
    const { data, storeId } = await initFolder();
    const central = launch(['central', '--data', data, '--port', '0'], undefined, { PUNCHCARD_DATABASE_URL: undefined });
    await listeningUrl(central, 'central');
    const says = `punchcard: ${data} is a central node's folder: \`punchcard store\` is a store's. Run \`punchcard central\` on it, or give the store a folder of its own.`;
    expect(oneLine(await runInProcess(['store', '--data', data, '--port', '0']))).toBe(says);
    const code = await runInProcess(['pair-code', '--data', data, '--store', String(storeId), '--json']);
    expect(code.code, code.stderr).toBe(0);
    expect(JSON.parse(code.stdout)).toMatchObject({ code: expect.stringMatching(/^\w{4}-\w{4}$/) });
    expect((await stopWith(central, 'SIGTERM')).code, central.stderr()).toBe(0);
    expect(oneLine(await runInProcess(['store', '--data', data, '--port', '0']))).toBe(says);
    expect(readdirSync(data)).not.toContain('node.pid');
  }, 120_000);

  it("central is refused on a paired store's folder, and on one a store node runs on", async () => {
    const paired = await initFolder();
    writePairing(openDataDir(paired.data), { central: 'http://127.0.0.1:4320', node_id: 7, vendor_id: 1, store_id: paired.storeId, credential: 'x', paired_at: new Date().toISOString() });
    expect(oneLine(await runInProcess(['central', '--data', paired.data, '--port', '0']))).toBe(
      `punchcard: ${paired.data} is the folder of a store node paired with http://127.0.0.1:4320: give central a folder of its own.`,
    );

    const { data } = await initFolder();
    const store = launch(['store', '--data', data, '--port', '0'], undefined, { PUNCHCARD_DATABASE_URL: undefined });
    await listeningUrl(store, 'store');
    expect(oneLine(await runInProcess(['central', '--data', data, '--port', '0']))).toMatch(
      new RegExp(`^punchcard: A Punchcard node \\(process ${store.child.pid}\\) is running on ${data}: stop it first\\.`),
    );
    expect(readdirSync(data)).not.toContain('node.json');
  }, 120_000);

  it("pair-code is refused on a store's folder, plain or paired: no code is issued that no store could use", async () => {
    const plain = await initFolder();
    expect(oneLine(await runInProcess(['pair-code', '--data', plain.data, '--store', String(plain.storeId)]))).toBe(
      `punchcard: ${plain.data} is not a central node's folder: a store pairs with the central that issues its code. Run \`punchcard central --data ${plain.data}\` once to make it a chain's central, or issue the code on central's folder.`,
    );
    const paired = await initFolder();
    writePairing(openDataDir(paired.data), { central: 'http://central.example:4320', node_id: 7, vendor_id: 1, store_id: paired.storeId, credential: 'x', paired_at: new Date().toISOString() });
    expect(oneLine(await runInProcess(['pair-code', '--data', paired.data, '--store', String(paired.storeId)]))).toBe(
      `punchcard: ${paired.data} is a store node paired with http://central.example:4320: issue the code on central's folder (or in its back office).`,
    );
  });
});

describe('output read by a program that stops reading', () => {
  it('sync status | head: ends quietly, no EPIPE stack trace', async () => {
    const data = tempDir();
    const status = launch(['sync', 'status', '--data', data]);
    // The reader is gone before the command writes a line.
    status.child.stdout!.destroy();
    const { code } = await status.exited;
    expect(status.stderr()).not.toContain('EPIPE');
    expect(status.stderr()).not.toMatch(STACK_TRACE);
    expect(code).toBe(0);
  }, 60_000);
});

describe('help', () => {
  const help = (...path: string[]) => {
    let command = buildCli();
    for (const name of path) command = command.commands.find((c) => c.name() === name)!;
    return command.helpInformation();
  };

  it('stores list has a description', () => {
    expect(help('stores')).toMatch(/^\s+list \[options\]\s+\S.+$/m);
  });

  it.each(['init', 'key', 'token', 'owner', 'stores', 'stores list', 'stores add', 'stores update'])('%s mentions PUNCHCARD_DATABASE_URL', (path) => {
    expect(help(...path.split(' ')).replace(/\s+/g, ' ')).toContain('PUNCHCARD_DATABASE_URL');
  });

  it.each(['store', 'central', 'demo'])('%s --log-level lists the levels the check accepts', (command) => {
    expect(help(command).replace(/\s+/g, ' ')).toContain(LOG_LEVELS.join(', '));
  });
});
