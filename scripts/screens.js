// The screens a node serves at `/` are out/renderer, built by electron-vite (`npm start`, `npm run
// build`). In a checkout they went stale silently: `npx punchcard demo` after a pull served the
// screens of the last build while the command line itself was rebuilt from the new sources. Both
// `npm start` and `bin/punchcard.js` now build them again when a renderer source is newer.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What the renderer's build reads (src/shared holds the wire types it imports). */
const SOURCES = ['src/renderer', 'src/shared', 'electron.vite.config.ts'];

/** The built screens' entry in `root`, or null when they were never built. */
export function builtScreens(root) {
  const index = join(root, 'out', 'renderer', 'index.html');
  return existsSync(index) ? index : null;
}

/** True in a checkout whose screens were never built (a package without the sources ships them). */
export function screensAreMissing(root) {
  return !builtScreens(root) && existsSync(join(root, 'src', 'renderer'));
}

/** True when screens were built and a source of theirs changed since (never for a package without its sources). */
export function screensAreStale(root) {
  const index = builtScreens(root);
  if (!index || !existsSync(join(root, 'src', 'renderer'))) return false;
  const builtAt = statSync(index).mtimeMs;
  const newer = (path) => {
    const stat = statSync(path);
    if (!stat.isDirectory()) return stat.mtimeMs > builtAt;
    return readdirSync(path).some((name) => newer(join(path, name)));
  };
  return SOURCES.some((source) => existsSync(join(root, source)) && newer(join(root, source)));
}

async function electronViteCli(root) {
  // Loaded only to build: every start of a node checks freshness, few build.
  const { createRequire } = await import('node:module');
  const require = createRequire(join(root, 'package.json'));
  const pkgFile = require.resolve('electron-vite/package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin['electron-vite'];
  return join(dirname(pkgFile), bin);
}

/** Builds main, preload and the screens into out/ (as the desktop would). Returns a problem, or null. */
export async function buildScreens(root) {
  const { spawnSync } = await import('node:child_process');
  const build = spawnSync(process.execPath, [await electronViteCli(root), 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (build.status === 0 && builtScreens(root)) return null;
  return build.error?.message ?? `electron-vite build exited with ${build.status ?? build.signal}`;
}
