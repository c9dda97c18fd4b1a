import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createServerDatabase } from '../support/postgres';
import { jsonLines, killLeftovers, launch, listeningUrl, run, stopWith } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// A node's folder and its settings as a newcomer's run of the README met them (real processes):
// a PostgreSQL central's folder knows which database is its own, `sync status` says what `store`
// says of a lost pairing, bad scanner settings and a taken port stop `store` in one line before
// anything is made, and a folder never set up says so when it starts.

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-cli-folder-');
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

const NO_DATABASE_URL = { PUNCHCARD_DATABASE_URL: undefined, PUNCHCARD_SCANNER_KEY: undefined };
const STACK_TRACE = /\bat\s+\S+\s+\(|\bat\s+file:|\.ts:\d+|\.cjs:\d+|node_modules/;

/** The one line a refused command printed (the launcher's notes about builds aside), exit 1. */
function refusal(result: { code: number | null; stdout: string; stderr: string }): string {
  expect(result.code, result.stdout + result.stderr).toBe(1);
  const lines = result.stderr.split('\n').filter((line) => line.trim().length > 0 && !/^punchcard: (warning:|building)/.test(line));
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(STACK_TRACE);
  return lines[0]!;
}

async function initFolder(env: Record<string, string | undefined> = NO_DATABASE_URL): Promise<{ dir: string; storeId: number; vendorId: number }> {
  const dir = join(tempDir(), 'node');
  const init = await run(['init', '--data', dir, '--vendor', 'Cafe Uno', '--json'], env);
  expect(init.code, init.stderr).toBe(0);
  const { store_id: storeId, vendor_id: vendorId } = JSON.parse(init.stdout) as { store_id: number; vendor_id: number };
  return { dir, storeId, vendorId };
}

async function tableCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query("select count(*)::int as n from information_schema.tables where table_schema = 'public'")).rows[0].n as number;
  } finally {
    await client.end();
  }
}

const nodeJson = (dir: string) => JSON.parse(readFileSync(join(dir, 'node.json'), 'utf8')) as Record<string, unknown>;

describe.skipIf(!process.env.PG_URL)("a PostgreSQL central's folder and its database", () => {
  it('records which database it is, and refuses another before writing to it, password unprinted', async () => {
    const own = await createServerDatabase(process.env.PG_URL!, 'punchcard_folder_own');
    const typo = await createServerDatabase(process.env.PG_URL!, 'punchcard_folder_typo');
    const other = await createServerDatabase(process.env.PG_URL!, 'punchcard_folder_other');
    drops.push(own.drop, typo.drop, other.drop);
    // A password in the URL (trust authentication ignores it) must never be printed.
    const withPassword = (url: string) => Object.assign(new URL(url), { password: 'Sekret-42' }).toString();
    const typoUrl = withPassword(typo.url);

    const { dir, storeId } = await initFolder({ ...NO_DATABASE_URL, PUNCHCARD_DATABASE_URL: own.url });
    const id = nodeJson(dir).database_id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(nodeJson(dir).database).toBe('postgresql');

    const wrong = `punchcard: PUNCHCARD_DATABASE_URL (${new URL(typo.url).toString()}) is not the database of ${dir}, which records database ${String(id)} (node.json): it holds no Punchcard program. Set PUNCHCARD_DATABASE_URL to the folder's database. Nothing was changed.`;
    for (const args of [['key'], ['stores', 'list'], ['central', '--port', '0'], ['init', '--vendor', 'Second']]) {
      const result = await run([...args, '--data', dir], { ...NO_DATABASE_URL, PUNCHCARD_DATABASE_URL: typoUrl });
      expect(refusal(result), args.join(' ')).toBe(wrong);
      expect(result.stdout + result.stderr).not.toContain('Sekret-42');
      expect(result.stdout).not.toMatch(/listening on/);
    }
    // --database names the same, as where it came from.
    const flagged = await run(['central', '--port', '0', '--data', dir, '--database', typoUrl], NO_DATABASE_URL);
    expect(refusal(flagged)).toBe(wrong.replaceAll('PUNCHCARD_DATABASE_URL', '--database'));
    expect(await tableCount(typo.url)).toBe(0);

    // Another program's database is not the folder's either.
    await initFolder({ ...NO_DATABASE_URL, PUNCHCARD_DATABASE_URL: other.url });
    expect(refusal(await run(['key', '--data', dir], { ...NO_DATABASE_URL, PUNCHCARD_DATABASE_URL: other.url }))).toMatch(/is not the database of .*: it is another Punchcard database \([0-9a-f-]{36}\)\./);

    // Its own database works; a second folder set up on it (another vendor) records the same database.
    const key = await run(['key', '--data', dir, '--json'], { ...NO_DATABASE_URL, PUNCHCARD_DATABASE_URL: own.url });
    expect(key.code, key.stderr).toBe(0);
    expect(JSON.parse(key.stdout).store_id).toBe(storeId);
    // (with the node key that sealed the database's values, as today)
    const nodeKey = readFileSync(join(dir, 'node.key'), 'utf8').trim();
    const second = await initFolder({ ...NO_DATABASE_URL, PUNCHCARD_DATABASE_URL: own.url, PUNCHCARD_NODE_KEY: nodeKey });
    expect(second.vendorId).not.toBe(JSON.parse(key.stdout).vendor_id);
    expect(nodeJson(second.dir).database_id).toBe(id);
  }, 240_000);

  it('a folder recorded before identities: refuses an empty database, and central records its own (and says so)', async () => {
    const own = await createServerDatabase(process.env.PG_URL!, 'punchcard_folder_old');
    const typo = await createServerDatabase(process.env.PG_URL!, 'punchcard_folder_oldtypo');
    drops.push(own.drop, typo.drop);
    const { dir } = await initFolder({ ...NO_DATABASE_URL, PUNCHCARD_DATABASE_URL: own.url });
    writeFileSync(join(dir, 'node.json'), '{"database":"postgresql"}\n');

    for (const args of [['key'], ['central', '--port', '0']]) {
      const line = refusal(await run([...args, '--data', dir], { ...NO_DATABASE_URL, PUNCHCARD_DATABASE_URL: typo.url }));
      expect(line, args.join(' ')).toBe(`punchcard: PUNCHCARD_DATABASE_URL (${typo.url}) holds no Punchcard program, while ${dir} was set up on a PostgreSQL database: set PUNCHCARD_DATABASE_URL to the folder's database. Nothing was changed.`);
    }
    expect(await tableCount(typo.url)).toBe(0);

    const central = launch(['central', '--data', dir, '--port', '0'], undefined, { ...NO_DATABASE_URL, PUNCHCARD_DATABASE_URL: own.url });
    await listeningUrl(central, 'central');
    const id = nodeJson(dir).database_id;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(jsonLines(central.stdout()).some((line) => String(line.msg).includes(`now records this folder's database (${String(id)})`)), central.stdout()).toBe(true);
    expect((await stopWith(central, 'SIGTERM')).code).toBe(0);
    expect(nodeJson(dir)).toMatchObject({ role: 'central', database: 'postgresql', database_id: id });
  }, 180_000);
});

describe('a store folder whose central.json was lost', () => {
  it('sync status says it is paired and its pairing lost, in the words store refuses it with', async () => {
    const { dir } = await initFolder();
    // The chain's data: central numbered this node (below 2^20) when it paired.
    const db = new BetterSqlite3(join(dir, 'punchcard.db'));
    db.prepare("update node_meta set value = '7' where key = 'node_id'").run();
    db.close();

    const status = await run(['sync', 'status', '--data', dir, '--json'], NO_DATABASE_URL);
    expect(status.code, status.stderr).toBe(0);
    const said = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(said).toMatchObject({ paired: true, pairing_lost: true, node_id: 7, central: null, link: 'down' });
    const store = refusal(await run(['store', '--data', dir, '--port', '0'], NO_DATABASE_URL));
    expect(store).toBe(`punchcard: ${String(said.last_error)}`);
    expect(said.last_error).toContain(`punchcard unpair --data ${dir}`);
  }, 120_000);
});

describe("punchcard store's scanner settings", () => {
  it('a store or key the program does not have, or scanner flags without --scanners hid, stop it in one line', async () => {
    const { dir, storeId } = await initFolder();
    const refusedStore = await run(['store', '--data', dir, '--port', '0', '--scanners', 'hid', '--scanner-store', '42'], NO_DATABASE_URL);
    expect(refusal(refusedStore)).toBe("punchcard: --scanner-store 42: this node has no store 42: choose one `punchcard stores list` lists, or leave it out for the node's first store.");
    expect(refusedStore.stdout).not.toMatch(/listening on/);

    const badKey = await run(['store', '--data', dir, '--port', '0', '--scanners', 'hid'], { ...NO_DATABASE_URL, PUNCHCARD_SCANNER_KEY: 'pcak_not-a-key' });
    expect(refusal(badKey)).toMatch(/^punchcard: PUNCHCARD_SCANNER_KEY is not an API key this node accepts/);

    const withoutHid = await run(['store', '--data', dir, '--port', '0', '--scanner-store', String(storeId)], NO_DATABASE_URL);
    expect(refusal(withoutHid)).toBe("punchcard: --scanner-store chooses for the node's scanners, which it reads only with --scanners hid: add it, or leave it out.");
  }, 180_000);

  it('a folder never set up still starts with them (a till to pair from its Settings), and says it holds no program', async () => {
    const dir = join(tempDir(), 'till');
    const node = launch(['store', '--data', dir, '--port', '0', '--scanners', 'hid', '--scanner-store', '42'], undefined, NO_DATABASE_URL);
    await listeningUrl(node, 'store');
    const warning = jsonLines(node.stdout()).filter((line) => line.level === 40 && String(line.msg).startsWith('this folder holds no program yet'));
    expect(warning.map((line) => line.msg)).toEqual([
      `this folder holds no program yet: set one up with \`punchcard init --data ${dir} --vendor NAME\`, or pair it with a central node (\`--central URL --pair CODE\`, or from the screens' Settings)`,
    ]);
    expect((await stopWith(node, 'SIGTERM')).code).toBe(0);
  }, 120_000);
});

describe('a taken port', () => {
  let holder: Server | undefined;
  afterEach(() => holder?.close());

  it.each(['store', 'central'])('%s: one line, nothing on stdout, nothing made in the folder', async (command) => {
    holder = createServer();
    const port = await new Promise<number>((resolve) => holder!.listen(0, '127.0.0.1', () => resolve((holder!.address() as { port: number }).port)));
    const dir = join(tempDir(), 'node');
    const result = await run([command, '--data', dir, '--port', String(port)], NO_DATABASE_URL);
    expect(refusal(result)).toBe(`punchcard: port ${port} on 127.0.0.1 is in use: stop what holds it, or choose another with --port.`);
    expect(result.stdout).toBe('');
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  }, 120_000);
});
