import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './processes';

// The renderer the end-to-end tests (and the scan-to-panel bench) drive, built by electron-vite from
// the current sources into a folder of its own: not out/, which `npm start`, the health-screen test
// and people rebuild at any time. The folder is named after a hash of the sources, so the e2e files
// running side by side build it once and a changed screen is always rebuilt.

/** Everything that goes into the renderer bundle. */
const SOURCES = ['src/renderer', 'src/shared', 'electron.vite.config.ts', 'package-lock.json'];

function collect(path: string, into: string[]): void {
  const stat = statSync(path);
  if (!stat.isDirectory()) {
    into.push(path);
    return;
  }
  for (const name of readdirSync(path).sort()) collect(join(path, name), into);
}

/** A hash of the renderer's sources (paths and contents). */
export function rendererSourceHash(): string {
  const hash = createHash('sha256');
  const files: string[] = [];
  for (const source of SOURCES) if (existsSync(join(ROOT, source))) collect(join(ROOT, source), files);
  for (const file of files) {
    hash.update(file.slice(ROOT.length));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The built renderer's folder (index.html and assets) for the current sources, building it when no
 * build of these sources exists yet (about 1–2 s). Safe to call from test files running in parallel.
 */
export function builtRendererForTests(): string {
  const base = join(tmpdir(), 'punchcard-e2e-renderer');
  const done = join(base, rendererSourceHash());
  const renderer = join(done, 'renderer');
  if (existsSync(join(renderer, 'index.html'))) return renderer;
  mkdirSync(base, { recursive: true });
  const work = `${done}.${process.pid}.${Date.now()}`;
  const result = spawnSync(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build', '--outDir', work, '--logLevel', 'warn'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`electron-vite build failed:\n${result.stdout}\n${result.stderr}`);
  }
  try {
    renameSync(work, done);
  } catch {
    // Another file built the same sources first: use that one.
    rmSync(work, { recursive: true, force: true });
  }
  if (!existsSync(join(renderer, 'index.html'))) throw new Error(`no renderer in ${done}`);
  pruneOldBuilds(base, done);
  return renderer;
}

/** Builds of earlier sources, untouched for an hour, are removed (each is about 1 MB). */
function pruneOldBuilds(base: string, keep: string): void {
  const hourAgo = Date.now() - 3_600_000;
  for (const name of readdirSync(base)) {
    const path = join(base, name);
    if (path === keep) continue;
    try {
      if (statSync(path).mtimeMs < hourAgo) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by a parallel run.
    }
  }
}
