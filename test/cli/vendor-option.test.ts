import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// `--vendor` on the commands that act for one program (owner, stores, token, tokens), run as users
// run them (the built command). A folder with one vendor needs no --vendor; one with several is
// refused with the ids to choose from, since no command lists a folder's vendors.

const dirs: Array<{ remove(): void }> = [];
let data: string;
const vendors: Array<{ id: number; name: string }> = [];

beforeAll(async () => {
  const dir = makeTempDir('punchcard-vendor-option-');
  dirs.push(dir);
  data = dir.path;
  for (const name of ['Cafe Uno', 'Panaderia Dos']) {
    const init = await run(['init', '--data', data, '--vendor', name, '--json']);
    expect(init.code, init.stderr).toBe(0);
    vendors.push({ id: JSON.parse(init.stdout).vendor_id, name });
  }
}, 120_000);

afterAll(() => {
  for (const dir of dirs) dir.remove();
});

describe('--vendor', () => {
  it('is called a vendor id when it is not one, on every command that takes it', async () => {
    for (const args of [['stores', 'list'], ['tokens', 'list'], ['owner', '--email', 'o@example.com'], ['token']]) {
      const bad = await run([...args, '--data', data, '--vendor', 'abc']);
      expect(bad.code, args.join(' ')).toBe(1);
      expect(bad.stderr, args.join(' ')).toContain("option '--vendor <id>' argument 'abc' is invalid. the vendor id is a whole number (see `punchcard init`).");
      expect(bad.stderr, args.join(' ')).not.toContain('store id');
    }
  }, 120_000);

  it('names the vendors to choose from where the folder holds several, also for token', async () => {
    const choices = `(${vendors.map((v) => `${v.id} ${v.name}`).join(', ')})`;
    for (const args of [['stores', 'list'], ['token']]) {
      const refused = await run([...args, '--data', data]);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr.trim(), args.join(' ')).toBe(`punchcard: This data folder holds several vendors: name one with --vendor <id> ${choices}.`);
    }
    const token = await run(['token', '--data', data, '--vendor', String(vendors[1]!.id), '--json']);
    expect(token.code, token.stderr).toBe(0);
    expect(JSON.parse(token.stdout).access_token).toMatch(/^pcat_/);
    const unknown = await run(['token', '--data', data, '--vendor', '12']);
    expect(unknown.stderr.trim()).toBe('punchcard: There is no vendor 12 in this data folder.');
  }, 120_000);
});
