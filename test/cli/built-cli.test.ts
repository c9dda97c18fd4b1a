import { cpSync, existsSync, mkdirSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/shared/version';
import { killLeftovers, launch, ROOT } from '../support/processes';
import { makeTempDir } from '../support/temp-dir';

// `punchcard` runs built JavaScript (issue 13, item 4): in a checkout without out/cli, the first run
// builds the bundle and says so; later runs use it as it is; a changed source gets it rebuilt;
// PUNCHCARD_FROM_SOURCES=1 still runs the TypeScript sources through tsx. A copy of the project's
// sources (sharing node_modules) stands for a fresh checkout, so this test's builds never touch ours.

const project = makeTempDir('punchcard-cli-build-');
const bin = join(project.path, 'bin', 'punchcard.js');

async function punchcard(args: string[], env: Record<string, string> = {}) {
  const running = launch(args, bin, env);
  const { code } = await running.exited;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

beforeAll(() => {
  for (const path of ['bin', 'src', 'scripts/build-cli.js', 'package.json', 'package-lock.json']) cpSync(join(ROOT, path), join(project.path, path), { recursive: true });
  mkdirSync(join(project.path, 'out'));
  symlinkSync(join(ROOT, 'node_modules'), join(project.path, 'node_modules'));
});
afterAll(async () => {
  await killLeftovers();
  project.remove();
});

describe('the built command line', () => {
  it('is built on the first run, reused after, and rebuilt when a source changes', async () => {
    const first = await punchcard(['--version']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(VERSION);
    expect(first.stderr).toContain('punchcard: building the command line into out/cli (first run)');
    expect(existsSync(join(project.path, 'out', 'cli', 'punchcard.js'))).toBe(true);

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

  it('runs the TypeScript sources through tsx with PUNCHCARD_FROM_SOURCES=1', async () => {
    const fromSources = await punchcard(['--version'], { PUNCHCARD_FROM_SOURCES: '1' });
    expect(fromSources.code, fromSources.stderr).toBe(0);
    expect(fromSources.stdout.trim()).toBe(VERSION);
    expect(fromSources.stderr).not.toContain('building');
  });
});
