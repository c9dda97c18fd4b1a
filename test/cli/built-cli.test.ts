import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/shared/version';
import { jsonLines, killLeftovers, launch, ROOT, stopWith, waitFor } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';
import { http } from '../support/test-node';

// `punchcard` runs built JavaScript (issue 13, item 4): in a checkout without out/cli, the first run
// builds the bundle and says so; later runs use it as it is; a changed source gets it rebuilt;
// PUNCHCARD_FROM_SOURCES=1 still runs the TypeScript sources through tsx. A copy of the project's
// sources (sharing node_modules) stands for a fresh checkout, so this test's builds never touch ours.

const project = makeTempDir('punchcard-cli-build-');
const data = makeTempDir('punchcard-cli-build-data-');
const bin = join(project.path, 'bin', 'punchcard.js');
const cache = join(project.path, 'out', 'cli', 'punchcard.cache');

/** `punchcard store` of the copied project on a free port: its URL from the "listening" log line. */
async function startStore() {
  const running = launch(['store', '--data', data.path, '--port', '0'], bin);
  const url = await waitFor(
    'the listening line',
    () => jsonLines(running.stdout()).map((line) => /listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(String(line.msg ?? ''))?.[1]).find(Boolean),
    running,
  );
  return { running, url: url! };
}

async function punchcard(args: string[], env: Record<string, string> = {}) {
  const running = launch(args, bin, env);
  const { code } = await running.exited;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

beforeAll(() => {
  for (const path of ['bin', 'src', 'scripts/build-cli.js', 'scripts/screens.js', 'package.json', 'package-lock.json']) cpSync(join(ROOT, path), join(project.path, path), { recursive: true });
  mkdirSync(join(project.path, 'out'));
  symlinkSync(join(ROOT, 'node_modules'), join(project.path, 'node_modules'));
});
afterAll(async () => {
  await killLeftovers();
  project.remove();
  data.remove();
});

describe('the built command line', () => {
  it('is built on the first run, reused after, and rebuilt when a source changes', async () => {
    const first = await punchcard(['--version']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(VERSION);
    expect(first.stderr).toContain('punchcard: building the command line into out/cli (first run)');
    // All ASCII (a dependency's comment with a dash made all 5 MB a two-byte string: slower starts).
    expect(readFileSync(join(project.path, 'out', 'cli', 'punchcard.cjs'), 'latin1')).not.toMatch(/[\u0080-\uffff]/);

    const second = await punchcard(['--version']);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe(VERSION);
    expect(second.stderr).toBe('');

    const later = new Date(Date.now() + 60_000);
    utimesSync(join(project.path, 'src', 'shared', 'version.ts'), later, later);
    const third = await punchcard(['--help']);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('Usage: punchcard');
    expect(third.stderr).toContain('punchcard: building the command line into out/cli (the sources changed)');
  });

  it("writes V8's code cache a few seconds into a server's run; the next start runs with it; a rebuild drops it", async () => {
    expect(existsSync(cache)).toBe(false);
    const first = await startStore();
    expect((await http(`${first.url}/health`)).status).toBe(200);
    await waitFor('the code cache', () => (existsSync(cache) ? true : undefined), first.running, 15_000);
    expect((await stopWith(first.running, 'SIGTERM')).code).toBe(0);

    const second = await startStore();
    expect((await http(`${second.url}/health`)).body).toMatchObject({ status: 'ok', role: 'store' });
    // Swagger UI, left out of the bundle and loaded at the first visit of /docs.
    const docs = await fetch(`${second.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger-ui-bundle/);
    // SIGHUP (a closed terminal, a log rotation's kill -HUP) stops it cleanly too: it was killed on the spot.
    expect((await stopWith(second.running, 'SIGHUP')).code).toBe(0);

    const later = new Date(Date.now() + 120_000);
    utimesSync(join(project.path, 'src', 'shared', 'version.ts'), later, later);
    const rebuilt = await punchcard(['--version']);
    expect(rebuilt.stderr).toContain('the sources changed');
    expect(existsSync(cache)).toBe(false);
  });

  it('runs the TypeScript sources through tsx with PUNCHCARD_FROM_SOURCES=1', async () => {
    const fromSources = await punchcard(['--version'], { PUNCHCARD_FROM_SOURCES: '1' });
    expect(fromSources.code, fromSources.stderr).toBe(0);
    expect(fromSources.stdout.trim()).toBe(VERSION);
    expect(fromSources.stderr).not.toContain('building');
  });
});
