import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStoreNode } from '../../src/server/node/store-node';
import { runInProcess as run } from '../support/cli-in-process';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `punchcard init --owner`: the back office's first owner, with a password from the environment or
// a one-time sign-in link, used against the node that serves that data folder.

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-init-owner-');
  dirs.push(dir);
  return dir.path;
}

afterAll(() => {
  for (const dir of dirs) dir.remove();
});

async function withNode<T>(dataDir: string, work: (url: string) => Promise<T>): Promise<T> {
  const node = await startStoreNode({ dataDir, port: 0, rendererDir: tempDir() });
  try {
    return await work(node.url);
  } finally {
    await node.close();
  }
}

describe('punchcard init --owner', () => {
  it('prints a one-time sign-in link that signs the owner in once', async () => {
    const dir = tempDir();
    const { code, stdout, stderr } = await run(['init', '--data', dir, '--vendor', 'Acme', '--owner', 'boss@acme.test', '--admin-url', 'http://shop.local:4321/admin', '--json']);
    expect(code, stderr).toBe(0);
    const out = JSON.parse(stdout.trim()) as Record<string, string>;
    expect(out.owner_email).toBe('boss@acme.test');
    const match = /^http:\/\/shop\.local:4321\/admin#\/sign-in-link\?token=(pcsl_\S+)$/.exec(out.owner_sign_in_link ?? '');
    expect(match, out.owner_sign_in_link).not.toBeNull();
    await withNode(dir, async (url) => {
      const first = await http(`${url}/backoffice/sign-in/link`, { method: 'POST', body: { token: match![1] } });
      expect(first.status).toBe(200);
      expect(first.body.staff).toMatchObject({ email: 'boss@acme.test', role: 'owner', status: 'active' });
      const again = await http(`${url}/backoffice/sign-in/link`, { method: 'POST', body: { token: match![1] } });
      expect(again.body.code).toBe('invalid_code');
    });
  });

  it('takes the password from PUNCHCARD_OWNER_PASSWORD and prints no link', async () => {
    const dir = tempDir();
    process.env.PUNCHCARD_OWNER_PASSWORD = 'owner password 123';
    try {
      const { code, stdout, stderr } = await run(['init', '--data', dir, '--vendor', 'Acme', '--owner', 'pw@acme.test', '--json']);
      expect(code, stderr).toBe(0);
      const out = JSON.parse(stdout.trim()) as Record<string, string>;
      expect(out.owner_sign_in_link).toBeUndefined();
    } finally {
      delete process.env.PUNCHCARD_OWNER_PASSWORD;
    }
    await withNode(dir, async (url) => {
      const reply = await http(`${url}/backoffice/sign-in`, { method: 'POST', body: { email: 'pw@acme.test', password: 'owner password 123' } });
      expect(reply.status).toBe(200);
    });
  });

  it('refuses a bad owner email with one clear line before creating anything', async () => {
    const dir = tempDir();
    const { code, stderr } = await run(['init', '--data', dir, '--vendor', 'Acme', '--owner', 'not-an-email']);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('punchcard: The email address is not valid.');
    expect(existsSync(join(dir, 'punchcard.db'))).toBe(false);
  });
});

// `punchcard owner`: init --owner makes the first owner of a vendor it creates only, so a program
// set up without it (the README's chain example) had no way into the back office.
describe('punchcard owner', () => {
  it('says, set up without an owner, how to add one: the printed command works as printed', async () => {
    const dir = tempDir();
    const init = await run(['init', '--data', dir, '--vendor', 'Lupe’s Bakery']);
    expect(init.code, init.stderr).toBe(0);
    const said = /^The back office \(\/admin\) has no owner yet: `(punchcard owner --data \S+ --email EMAIL)` adds one and prints a sign-in link\.$/m.exec(init.stdout);
    expect(said, init.stdout).not.toBeNull();
    const args = said![1]!.replace('EMAIL', 'lupe@bakery.test').split(' ').slice(1);
    expect(args).toEqual(['owner', '--data', dir, '--email', 'lupe@bakery.test']);
    const owner = await run(args);
    expect(owner.code, owner.stderr).toBe(0);
    expect(owner.stdout).toMatch(/owner_sign_in_link +http:\/\/127\.0\.0\.1:4321\/admin#\/sign-in-link\?token=pcsl_/);

    // With --owner, the link is there and the hint is not.
    const withOwner = await run(['init', '--data', tempDir(), '--vendor', 'Acme', '--owner', 'boss@acme.test']);
    expect(withOwner.code, withOwner.stderr).toBe(0);
    expect(withOwner.stdout).toMatch(/owner_sign_in_link/);
    expect(withOwner.stdout).not.toMatch(/no owner yet/);
  });

  it('gives a program set up without an owner one, with a one-time link; another with a password; refuses a taken email and an unknown vendor', async () => {
    const dir = tempDir();
    const init = await run(['init', '--data', dir, '--vendor', 'No Owner Yet', '--json']);
    expect(init.code, init.stderr).toBe(0);
    const vendorId = (JSON.parse(init.stdout.trim()) as { vendor_id: number }).vendor_id;

    const first = await run(['owner', '--data', dir, '--email', 'late@acme.test', '--name', 'Late Owner', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout.trim()) as Record<string, unknown>;
    expect(out).toMatchObject({ vendor_id: vendorId, owner_email: 'late@acme.test' });
    const token = /#\/sign-in-link\?token=(pcsl_\S+)$/.exec(String(out.owner_sign_in_link))?.[1];
    expect(token, String(out.owner_sign_in_link)).toBeDefined();

    process.env.PUNCHCARD_OWNER_PASSWORD = 'second owner 123';
    try {
      const second = await run(['owner', '--data', dir, '--email', 'second@acme.test', '--json']);
      expect(second.code, second.stderr).toBe(0);
      expect(JSON.parse(second.stdout.trim()).owner_sign_in_link).toBeUndefined();
    } finally {
      delete process.env.PUNCHCARD_OWNER_PASSWORD;
    }
    const taken = await run(['owner', '--data', dir, '--email', 'LATE@acme.test']);
    expect([taken.code, taken.stderr.trim()]).toEqual([1, 'punchcard: A staff account with that email address already exists.']);
    const unknown = await run(['owner', '--data', dir, '--email', 'x@acme.test', '--vendor', '999']);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'punchcard: There is no vendor 999 in this data folder.']);

    await withNode(dir, async (url) => {
      const signedIn = await http(`${url}/backoffice/sign-in/link`, { method: 'POST', body: { token } });
      expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
      expect(signedIn.body.staff).toMatchObject({ email: 'late@acme.test', name: 'Late Owner', role: 'owner', status: 'active' });
      const withPassword = await http(`${url}/backoffice/sign-in`, { method: 'POST', body: { email: 'second@acme.test', password: 'second owner 123' } });
      expect(withPassword.status).toBe(200);
    });
  });
});
