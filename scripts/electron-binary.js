#!/usr/bin/env node
// The Electron binary, fetched by us instead of by electron's own install script.
//
// electron's postinstall downloads the binary from GitHub and fails the whole `npm install` where
// that host cannot be reached. package.json denies that script (allowScripts: electron false) and
// runs this file as the project's postinstall instead: the same download (electron's install.js),
// whose failure is reported and never fails the install. `npm start` calls fetchElectronBinary()
// again on a start that could open the desktop window, so the binary arrives once the machine can
// reach the download. Everything except the desktop window works without it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** Path of the Electron executable, or null. The electron package throws when its binary was never downloaded. */
export function electronBinary() {
  try {
    const path = require('electron');
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

function electronInstaller() {
  try {
    return require.resolve('electron/install.js');
  } catch {
    return null;
  }
}

/**
 * Runs electron's own download (node_modules/electron/install.js) once, within `timeoutMs`.
 * Returns null when the binary is there afterwards, else why not (one line).
 */
export function fetchElectronBinary({ timeoutMs = 300_000 } = {}) {
  if (electronBinary()) return null;
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) return 'ELECTRON_SKIP_BINARY_DOWNLOAD is set';
  const installer = electronInstaller();
  if (!installer) return 'the electron package is not installed (npm install without dev dependencies?)';
  const result = spawnSync(process.execPath, [installer], { cwd: dirname(installer), encoding: 'utf8', timeout: timeoutMs });
  if (electronBinary()) return null;
  if (result.error?.code === 'ETIMEDOUT') return `the download did not finish within ${Math.round(timeoutMs / 1000)} s`;
  const lines = `${result.stderr ?? ''}\n${result.error?.message ?? ''}`.split('\n').map((line) => line.trim());
  const cause = lines.find((line) => /Error|ENOTFOUND|ECONN|ETIMEDOUT|EAI_AGAIN|status code/.test(line)) ?? lines.find(Boolean);
  return `the download failed${cause ? ` (${cause})` : ` (exit code ${result.status})`}`;
}

// `node scripts/electron-binary.js`: the project's postinstall. Never fails the install.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!electronInstaller() || process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) process.exit(0);
  const problem = fetchElectronBinary();
  if (problem) {
    console.warn(`punchcard: the Electron binary was not installed: ${problem}.`);
    console.warn('punchcard: everything but the desktop window works without it; `npm start` tries again when a display is available.');
  }
}
