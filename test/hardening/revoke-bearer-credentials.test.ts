import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreNode } from '../../src/server/node/store-node';
import { runInProcess as run } from '../support/cli-in-process';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// Tenth round, an attacker's run: `punchcard init` prints an OAuth client and an admin token
// "valid until revoked" (README keeps them in a JSON file), and `punchcard token` issues more — yet
// nothing revoked a token or a client but SQL, so a leaked one stayed the program's administrator
// for good. `punchcard tokens list|revoke` does it, on the folder of a running node: the node
// (which keeps tokens in memory) refuses a revoked token at its next call; a revoked client mints
// no more tokens, and the tokens it minted die with it. Audited as `cli`.

const dirs: Array<{ remove(): void }> = [];
const tempDir = (): string => {
  const dir = makeTempDir('punchcard-tokens-');
  dirs.push(dir);
  return dir.path;
};

let data: string;
let init: { vendor_id: number; access_token: string; client_id: string; client_secret: string };
let node: Awaited<ReturnType<typeof startStoreNode>>;

beforeAll(async () => {
  data = tempDir();
  const made = await run(['init', '--data', data, '--vendor', 'Leaky Café', '--json']);
  expect(made.code, made.stderr).toBe(0);
  init = JSON.parse(made.stdout);
  node = await startStoreNode({ dataDir: data, port: 0, rendererDir: tempDir() });
});

afterAll(async () => {
  await node?.close();
  for (const dir of dirs) dir.remove();
});

const stores = (token: string) => http(`${node.url}/stores`, { token });
const exchange = () =>
  http(`${node.url}/oauth/access_token`, { method: 'POST', body: { grant_type: 'client_credentials', client_id: init.client_id, client_secret: init.client_secret } });

describe('punchcard tokens', () => {
  it('lists live tokens and clients without the secrets, and revokes a token the running node then refuses', async () => {
    const second = await run(['token', '--data', data, '--vendor', String(init.vendor_id), '--label', 'pos-integration']);
    expect(second.code, second.stderr).toBe(0);
    const other = second.stdout.trim();
    expect((await stores(init.access_token)).status).toBe(200);
    expect((await stores(other)).status).toBe(200);

    const listed = await run(['tokens', 'list', '--data', data, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(init.access_token);
    expect(listed.stdout).not.toContain(other);
    const { tokens, clients } = JSON.parse(listed.stdout);
    expect(clients).toEqual([expect.objectContaining({ client_id: init.client_id })]);
    const leaked = tokens.find((t: any) => t.label === 'pos-integration');
    expect(leaked).toMatchObject({ client_id: null, expires_at: null });

    const revoked = await run(['tokens', 'revoke', '--data', data, '--id', String(leaked.id), '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ tokens_revoked: 1, clients_revoked: 0 });
    expect((await stores(other)).status).toBe(401);
    expect((await stores(init.access_token)).status).toBe(200);

    // Nothing left to revoke under that id: refused, exit code 1.
    const again = await run(['tokens', 'revoke', '--data', data, '--id', String(leaked.id)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No live token/);
  });

  it('revokes an OAuth client: its secret mints no more tokens, and the tokens it minted are refused', async () => {
    const minted = await exchange();
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    expect((await stores(minted.body.access_token)).status).toBe(200);

    const revoked = await run(['tokens', 'revoke', '--data', data, '--client', init.client_id, '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ tokens_revoked: 1, clients_revoked: 1 });
    expect((await stores(minted.body.access_token)).status).toBe(401);
    expect((await exchange()).status).toBe(401);
  });

  it('asks for exactly one of --id, --label, --client, and writes each revocation to the audit log', async () => {
    const neither = await run(['tokens', 'revoke', '--data', data]);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/one of --id/);
    const both = await run(['tokens', 'revoke', '--data', data, '--id', '1', '--label', 'cli']);
    expect(both.code).toBe(1);

    const byLabel = await run(['tokens', 'revoke', '--data', data, '--label', 'init', '--json']);
    expect(byLabel.code, byLabel.stderr).toBe(0);
    expect((await stores(init.access_token)).status).toBe(401);
    const audit = await node.engine.db.selectFrom('audit_log').select(['actor', 'action', 'object_type']).where('vendor_id', '=', init.vendor_id).where('object_type', 'in', ['access_token', 'oauth_client']).execute();
    expect(audit).toEqual(
      expect.arrayContaining([
        { actor: 'cli', action: 'access_token.revoke', object_type: 'access_token' },
        { actor: 'cli', action: 'oauth_client.revoke', object_type: 'oauth_client' },
      ]),
    );
    expect(audit).toHaveLength(3);
  });
});
