#!/usr/bin/env node
// `npm run dist`: packages the desktop app for this OS (electron-builder.yml) with the maintainer and
// homepage from configuration (scripts/packaging-metadata.js), then gives Node its better-sqlite3
// back (electron-builder rebuilt the checkout's copy for Electron). Extra arguments go to
// electron-builder (`npm run dist -- --linux deb`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBuilderArgs, packagingMetadata } from './packaging-metadata.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const configFile = join(root, 'packaging.json');
const meta = packagingMetadata({ env: process.env, file: existsSync(configFile) ? JSON.parse(readFileSync(configFile, 'utf8')) : null });
if (!meta.ok) {
  console.error(`punchcard dist: cannot package yet:\n  - ${meta.problems.join('\n  - ')}`);
  process.exit(1);
}

function step(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
step(npx, ['electron-vite', 'build']);
step(npx, ['electron-builder', ...electronBuilderArgs(meta), ...process.argv.slice(2)]);
step(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['rebuild', 'better-sqlite3']);
