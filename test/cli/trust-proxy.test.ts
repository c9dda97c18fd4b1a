import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, launch, listeningUrl, run, type Running, stopWith } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `punchcard store|central --trust-proxy` and PUNCHCARD_TRUST_PROXY as users run them: real
// processes, real HTTP. A bad value stops the command with a clear message; a good one makes the
// node count per-client limits by the address its proxy forwarded (test/api/trust-proxy.test.ts
// has the rules).

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-cli-proxy-');
  dirs.push(dir);
  return dir.path;
}

afterEach(killLeftovers);
afterAll(async () => {
  await killLeftovers();
  for (const dir of dirs) dir.remove();
});

const unset = { PUNCHCARD_TRUST_PROXY: undefined };

describe('a bad --trust-proxy or PUNCHCARD_TRUST_PROXY', () => {
  it('stops store and central with a usage error that says what is wrong, before anything starts', async () => {
    const flag = await run(['store', '--data', tempDir(), '--port', '0', '--trust-proxy', 'proxy.example'], unset);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toContain("option '--trust-proxy <addresses|hops>' argument 'proxy.example' is invalid");
    expect(flag.stderr).toContain('is not an IP address or CIDR range');
    const everyone = await run(['central', '--data', tempDir(), '--port', '0', '--trust-proxy', '0.0.0.0/0'], unset);
    expect(everyone.code).not.toBe(0);
    expect(everyone.stderr).toContain('the prefix length after "/" is a whole number from 1 to 32');
    const env = await run(['store', '--data', tempDir(), '--port', '0'], { PUNCHCARD_TRUST_PROXY: 'yes' });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('punchcard: PUNCHCARD_TRUST_PROXY: "yes" is not an IP address or CIDR range (e.g. 10.0.0.5, 192.168.1.0/24, fd00::/8, loopback).');
    expect(env.stdout).not.toContain('listening');
  });
});

describe('--trust-proxy 127.0.0.1', () => {
  /** A wrong back-office sign-in from the client `forwardedFor` (20 per client in 15 minutes). */
  const signIn = async (url: string, forwardedFor: string, i: number) =>
    (await http(`${url}/backoffice/sign-in`, { method: 'POST', body: { email: `staff.${forwardedFor}.${i}@example.com`, password: 'Summer2026!' }, headers: { 'x-forwarded-for': forwardedFor } })).status;

  async function expectSeparateCounts(url: string): Promise<void> {
    for (let i = 0; i < 20; i++) expect(await signIn(url, '203.0.113.1', i)).toBe(401);
    expect(await signIn(url, '203.0.113.1', 20)).toBe(429);
    expect(await signIn(url, '203.0.113.2', 0)).toBe(401);
  }

  it('punchcard store --trust-proxy: two clients of the proxy, two counts', async () => {
    const running: Running = launch(['store', '--data', tempDir(), '--port', '0', '--trust-proxy', '127.0.0.1'], undefined, unset);
    await expectSeparateCounts(await listeningUrl(running, 'store'));
    expect((await stopWith(running, 'SIGTERM')).code).toBe(0);
  });

  it('PUNCHCARD_TRUST_PROXY on punchcard central: the same', async () => {
    const running: Running = launch(['central', '--data', tempDir(), '--port', '0'], undefined, { PUNCHCARD_TRUST_PROXY: '127.0.0.1', PUNCHCARD_DATABASE_URL: undefined });
    await expectSeparateCounts(await listeningUrl(running, 'central'));
    expect((await stopWith(running, 'SIGTERM')).code).toBe(0);
  });
});
