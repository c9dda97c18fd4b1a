import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, run } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// A bad setting given to `punchcard store`, `central` or `demo` as a newcomer gives it: one line
// `punchcard: …` naming what was set, exit code 1, no stack trace — and, for a setting checked
// before the start, nothing made in the data folder.

const dirs: Array<{ remove(): void }> = [];
function tempDir(): string {
  const dir = makeTempDir('punchcard-cli-settings-');
  dirs.push(dir);
  return dir.path;
}

afterEach(killLeftovers);
afterAll(async () => {
  await killLeftovers();
  for (const dir of dirs) dir.remove();
});

const STACK_TRACE = /\bat\s+\S+\s+\(|\bat\s+file:|\.ts:\d+|\.cjs:\d+|node_modules/;
// Settings a test machine may carry, unset so each case sets only its own.
const CLEAN = { PUNCHCARD_NODE_KEY: undefined, PUNCHCARD_PAYMENT_GATEWAY: undefined, PUNCHCARD_STRIPE_SECRET_KEY: undefined, PUNCHCARD_PUBLIC_URL: undefined, PUNCHCARD_DATABASE_URL: undefined, PUNCHCARD_SMTP_URL: undefined };

/** What the command said, without the launcher's notes about stale builds (another checkout's edits). */
function problemLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim().length > 0 && !/^punchcard: (warning:|building)/.test(line));
}

const cases: Array<{ what: string; command: string; args?: string[]; env?: Record<string, string>; says: string }> = [
  { what: 'a node key that is not 64 hex characters', command: 'store', env: { PUNCHCARD_NODE_KEY: 'abc' }, says: 'punchcard: PUNCHCARD_NODE_KEY must be 64 hexadecimal characters (32 bytes).' },
  {
    what: 'the Stripe gateway without its key',
    command: 'central',
    env: { PUNCHCARD_PAYMENT_GATEWAY: 'stripe' },
    says: 'punchcard: PUNCHCARD_PAYMENT_GATEWAY=stripe needs PUNCHCARD_STRIPE_SECRET_KEY.',
  },
  { what: 'an unknown gateway', command: 'demo', env: { PUNCHCARD_PAYMENT_GATEWAY: 'paypal' }, says: 'punchcard: Unknown payment gateway "paypal": use test or stripe.' },
  {
    what: '--public-url that is not a URL',
    command: 'store',
    args: ['--public-url', 'notaurl'],
    says: 'punchcard: --public-url: "notaurl" is not an http(s) URL (e.g. https://loyalty.example.com).',
  },
  {
    what: 'PUNCHCARD_PUBLIC_URL that is not a URL, named as the variable',
    command: 'central',
    env: { PUNCHCARD_PUBLIC_URL: 'notaurl' },
    says: 'punchcard: PUNCHCARD_PUBLIC_URL: "notaurl" is not an http(s) URL (e.g. https://loyalty.example.com).',
  },
  {
    what: 'an unknown log level, with the accepted ones',
    command: 'demo',
    args: ['--log-level', 'loud'],
    says: 'punchcard: --log-level: "loud" is not a level: use one of fatal, error, warn, info, debug, trace, silent.',
  },
  { what: 'an unknown log level on central', command: 'central', args: ['--log-level', 'loud'], says: 'punchcard: --log-level: "loud" is not a level: use one of fatal, error, warn, info, debug, trace, silent.' },
  { what: "central's PUNCHCARD_SMTP_URL, checked as the store's is", command: 'central', env: { PUNCHCARD_SMTP_URL: 'http://mail.example' }, says: 'punchcard: PUNCHCARD_SMTP_URL: The SMTP URL must start with smtp:// or smtps://, not http://.' },
];

describe('a bad setting stops store, central and demo in one line', () => {
  it.each(cases)('$command: $what', async ({ command, args = [], env = {}, says }) => {
    const data = join(tempDir(), 'node');
    const { code, stdout, stderr } = await run([command, '--data', data, '--port', '0', ...args], { ...CLEAN, ...env });
    expect(code, stderr).toBe(1);
    const lines = problemLines(stderr);
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toBe(says);
    expect(stderr).not.toMatch(STACK_TRACE);
    expect(stdout).not.toContain('listening');
    // Refused before the start: no folder, no database, no key.
    expect(existsSync(data), `${data} was made`).toBe(false);
  });
});

describe('a port already in use', () => {
  let holder: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve())));

  it.each(['store', 'central', 'demo'])('%s says which port on which address, and what to do', async (command) => {
    holder = createServer();
    const port = await new Promise<number>((resolve) => holder!.listen(0, '127.0.0.1', () => resolve((holder!.address() as { port: number }).port)));
    const { code, stderr } = await run([command, '--data', tempDir(), '--port', String(port)], CLEAN);
    expect(code, stderr).toBe(1);
    expect(problemLines(stderr), stderr).toEqual([`punchcard: port ${port} on 127.0.0.1 is in use: stop what holds it, or choose another with --port.`]);
    expect(stderr).not.toMatch(STACK_TRACE);
  });
});
