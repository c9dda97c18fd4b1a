#!/usr/bin/env node
// `npm start`: the desktop terminal when this machine can show it, else the headless demo store node.
//
//   desktop:  fetches the Electron binary when the install could not (scripts/electron-binary.js),
//             builds better-sqlite3 for Electron into .native/ once (scripts/electron-native.js), then
//             electron-vite preview (builds main, preload and renderer into out/, launches Electron)
//   headless: builds the screens into out/ when never built (a fresh clone) or older than their sources, so the node
//             serves them at `/`, and the command line into out/cli when missing or older than the
//             sources (scripts/build-cli.js), then node bin/punchcard.js demo --data .data/demo
//
// `npm start -- --headless` (or PUNCHCARD_HEADLESS=1) skips the desktop even when it could open.
// The desktop app's switches (`--kiosk`, `--no-kiosk`, `--kiosk-display=N`, `--store=ID`,
// `--no-scanners`) are passed to Electron; other options to the headless node (`npm start -- --port
// 5000 --data ./shop`). Each path says what it does not use (scripts/start-args.js).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary, fetchElectronBinary } from './electron-binary.js';
import { ensureBuiltCli } from './build-cli.js';
import { buildScreens, builtScreens, screensAreStale } from './screens.js';
import { buildElectronSqlite } from './electron-native.js';
import { desktopIgnoredNote, headlessNotes, splitStartArgs } from './start-args.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function hasDisplay() {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/**
 * better-sqlite3 is compiled per ABI: node_modules keeps the Node build (tests, CLI, headless node),
 * and the desktop app loads a second build for Electron from .native/ (scripts/electron-native.js,
 * built here on first use; see "Native modules" in the README). Returns a problem to warn about, or null.
 */
function electronSqliteProblem(binary) {
  let path;
  try {
    path = buildElectronSqlite();
  } catch (error) {
    return error.message;
  }
  const probe = spawnSync(binary, ['-e', `new (require('better-sqlite3'))(':memory:', { nativeBinding: ${JSON.stringify(path)} }).close()`], {
    cwd: root,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (probe.status === 0) return null;
  const text = `${probe.stderr ?? ''}${probe.error?.message ?? ''}`;
  return text.split('\n').find((line) => /NODE_MODULE_VERSION|Error/.test(line))?.trim() ?? `exit code ${probe.status}`;
}

function electronViteCli() {
  const pkgFile = require.resolve('electron-vite/package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin['electron-vite'];
  return join(dirname(pkgFile), bin);
}

/**
 * Runs a child until it exits, then exits with its code. SIGINT/SIGTERM are forwarded exactly once:
 * on POSIX the child gets its own process group, so a Ctrl+C in the terminal reaches only this
 * process and not the child twice (a second SIGINT would cut the node's graceful shutdown short).
 */
function run(command, args, env = process.env) {
  const detached = process.platform !== 'win32';
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', detached, env });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on('SIGINT', () => forward('SIGINT'));
  process.on('SIGTERM', () => forward('SIGTERM'));
  process.on('SIGHUP', () => forward('SIGHUP'));
  // If this process dies some other way, do not leave the node behind.
  process.on('exit', () => forward('SIGTERM'));
  child.on('error', (error) => {
    console.error(`punchcard: could not start ${command}: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (code !== null) process.exit(code);
    const signals = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
    process.exit(128 + (signals[signal] ?? 1));
  });
}

/**
 * The renderer the headless node serves at `/` lives in out/renderer; a fresh clone has none, and a
 * pull may have changed its sources since the last build. Builds it (main, preload and renderer, as
 * the desktop would) and says so. Returns a problem, or null.
 */
async function buildScreensIfNeeded() {
  if (builtScreens(root) && !screensAreStale(root)) return null;
  const why = builtScreens(root) ? 'their sources changed since the last build' : 'out/renderer is missing';
  console.log(`punchcard: building the screens with \`electron-vite build\` (${why})…`);
  return buildScreens(root);
}

const startArgs = splitStartArgs(process.argv.slice(2));
if (startArgs.problems.length > 0) {
  for (const problem of startArgs.problems) console.error(`punchcard: ${problem}.`);
  process.exit(2);
}
const forceHeadless = startArgs.headless || process.env.PUNCHCARD_HEADLESS === '1';
const display = hasDisplay();
let binary = electronBinary();
let downloadProblem = null;
if (!forceHeadless && display && !binary) {
  // The install could not fetch it (offline, blocked host): try again now that the window would open.
  console.log('punchcard: fetching the Electron binary (not downloaded at install)…');
  downloadProblem = fetchElectronBinary({ timeoutMs: 180_000 });
  binary = electronBinary();
}

if (!forceHeadless && binary && display) {
  const problem = electronSqliteProblem(binary);
  if (problem) {
    console.warn(`punchcard: warning: better-sqlite3 for Electron is not usable (${problem}).`);
    console.warn('punchcard: retry with `node scripts/electron-native.js` once online, or run `npm start -- --headless`.');
  }
  const ignored = desktopIgnoredNote(startArgs.node);
  if (ignored) console.warn(`punchcard: ${ignored}`);
  // electron-vite finds Electron from its own real path, not this checkout's: name the binary probed above.
  const switches = startArgs.desktop.length > 0 ? ['--', ...startArgs.desktop] : [];
  run(process.execPath, [electronViteCli(), 'preview', ...switches], { ...process.env, ELECTRON_EXEC_PATH: binary });
} else {
  const reasons = [];
  if (forceHeadless) reasons.push('headless mode was asked for');
  if (!binary) {
    reasons.push(
      downloadProblem
        ? `the Electron binary could not be fetched: ${downloadProblem}`
        : 'the Electron binary is not installed (it is fetched on a start that has a display)',
    );
  }
  if (!display) reasons.push('no display (DISPLAY and WAYLAND_DISPLAY are unset)');
  // The folder given after `--` wins over the default, and the line says which one runs.
  const passThrough = startArgs.node;
  const givesData = passThrough.some((arg) => arg === '--data' || arg.startsWith('--data='));
  const args = ['demo', ...(givesData ? [] : ['--data', join('.data', 'demo')]), ...passThrough];
  console.log(`punchcard: the desktop window can't open: ${reasons.join('; ')}. Starting the headless store node instead (node bin/punchcard.js ${args.join(' ')}).`);
  for (const note of headlessNotes(startArgs.desktop)) console.log(`punchcard: ${note}`);
  const screens = await buildScreensIfNeeded();
  if (screens) console.warn(`punchcard: warning: the screens could not be built (${screens}); the node serves the API only. Retry with \`npm run build\`.`);
  // bin/punchcard.js would build it too; built here, a failure is reported before the node starts.
  await ensureBuiltCli();
  run(process.execPath, [join(root, 'bin', 'punchcard.js'), ...args]);
}
