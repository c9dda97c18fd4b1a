import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error a plain JavaScript build script, without types
import { builtScreens, screensAreMissing, screensAreStale } from '../../scripts/screens.js';
import { makeTempDir } from '../support/temp-dir';

// `npx punchcard demo` after a pull served the screens of the last build while the command line was
// rebuilt from the new sources: an exploratory tester signed off screens that were not the code's.
// scripts/screens.js says when out/renderer is older than the renderer's sources.

const dirs: Array<{ remove(): void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function checkout(): { root: string; file(path: string, at: number): void } {
  const dir = makeTempDir('punchcard-screens-');
  dirs.push(dir);
  const file = (path: string, at: number) => {
    const full = join(dir.path, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, 'x');
    utimesSync(full, at, at);
  };
  return { root: dir.path, file };
}

describe('the screens built in out/renderer', () => {
  it('are stale when a renderer or shared source (or the build config) is newer than the build, fresh otherwise', () => {
    const c = checkout();
    c.file('src/renderer/src/App.tsx', 1_000);
    c.file('src/shared/errors.ts', 1_000);
    expect([builtScreens(c.root), screensAreStale(c.root), screensAreMissing(c.root)]).toEqual([null, false, true]);
    c.file('out/renderer/index.html', 2_000);
    expect([screensAreStale(c.root), screensAreMissing(c.root)]).toEqual([false, false]);
    c.file('src/renderer/src/cashier/OrderForm.tsx', 3_000);
    expect(screensAreStale(c.root)).toBe(true);
    c.file('out/renderer/index.html', 4_000);
    expect(screensAreStale(c.root)).toBe(false);
    c.file('src/shared/schemas/orders.ts', 5_000);
    expect(screensAreStale(c.root)).toBe(true);
    c.file('out/renderer/index.html', 6_000);
    c.file('electron.vite.config.ts', 7_000);
    expect(screensAreStale(c.root)).toBe(true);
    // server sources are the command line's, not the screens'
    c.file('out/renderer/index.html', 8_000);
    c.file('src/server/app.ts', 9_000);
    expect(screensAreStale(c.root)).toBe(false);
  });

  it('are never stale in a package without the renderer’s sources', () => {
    const c = checkout();
    c.file('out/renderer/index.html', 1_000);
    c.file('src/shared/errors.ts', 2_000);
    expect([screensAreStale(c.root), screensAreMissing(c.root)]).toEqual([false, false]);
  });
});
