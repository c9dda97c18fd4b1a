#!/usr/bin/env node
// Builds better-sqlite3 for Electron's ABI into .native/electron-<version>-<platform>-<arch>/, leaving
// node_modules' copy (built for Node: tests, CLI, headless node) untouched. The desktop app loads it
// through better-sqlite3's `nativeBinding` option (src/main/native-binding.ts). `npm start` runs
// this before launching Electron; it does nothing when the build is already there.
//
//   node scripts/electron-native.js          build if missing, exit 1 with the reason on failure
//   node scripts/electron-native.js --path   print where the build goes
//
// How: copy better-sqlite3's sources to .native/build/, then in that copy try a prebuilt binary
// (prebuild-install --runtime electron), else compile it (node-gyp against Electron's headers).
// Both need the network once (GitHub releases / electronjs.org headers); node-hid needs nothing
// (N-API, one binary for Node and Electron).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** Same convention as src/main/native-binding.ts (test/main/native-binding.test.ts keeps them equal). */
export function electronBindingPath(rootDir, electronVersion, platform, arch) {
  return join(rootDir, '.native', `electron-${electronVersion}-${platform}-${arch}`, 'better_sqlite3.node');
}

export function electronVersion() {
  return JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
}

function bin(name) {
  const file = join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
  return existsSync(file) ? file : null;
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', shell: process.platform === 'win32' });
  return result.status === 0;
}

/** Builds the Electron copy if missing. Returns its path, or throws with the reason. */
export function buildElectronSqlite({ platform = process.platform, arch = process.arch } = {}) {
  const version = electronVersion();
  const target = electronBindingPath(root, version, platform, arch);
  if (existsSync(target)) return target;

  const source = dirname(require.resolve('better-sqlite3/package.json'));
  const work = join(root, '.native', 'build', 'better-sqlite3');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const part of ['package.json', 'binding.gyp', 'src', 'deps', 'lib']) cpSync(join(source, part), join(work, part), { recursive: true });

  const prebuild = bin('prebuild-install');
  const fetched = prebuild && run(prebuild, ['--runtime', 'electron', '--target', version, '--arch', arch, '--platform', platform], work);
  if (!fetched) {
    const gyp = bin('node-gyp');
    if (!gyp) throw new Error('node-gyp is not installed');
    const built = run(gyp, ['rebuild', '--release', `--target=${version}`, `--arch=${arch}`, '--dist-url=https://electronjs.org/headers'], work);
    if (!built) throw new Error('neither a prebuilt binary nor a compile against Electron headers worked (both need the network once)');
  }
  const produced = join(work, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(produced)) throw new Error(`the build did not produce ${produced}`);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(produced, target);
  rmSync(join(root, '.native', 'build'), { recursive: true, force: true });
  return target;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--path')) {
    console.log(electronBindingPath(root, electronVersion(), process.platform, process.arch));
  } else {
    try {
      console.log(`punchcard: better-sqlite3 for Electron: ${buildElectronSqlite()}`);
    } catch (error) {
      console.error(`punchcard: could not build better-sqlite3 for Electron: ${error.message}`);
      process.exit(1);
    }
  }
}
