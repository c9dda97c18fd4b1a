#!/usr/bin/env node
// The `punchcard` command built like main, preload and renderer: src/server/cli/main.ts and everything
// it imports bundled by esbuild (already installed: tsx runs on it) into one CommonJS file,
// out/cli/punchcard.cjs, so `punchcard store` and `punchcard central` start from JavaScript instead of
// compiling TypeScript through tsx at every start, and load one file instead of ~1,500 modules.
// CommonJS, so bin/punchcard.js can run it through vm.Script with V8's code cache
// (out/cli/punchcard.cache), which spares each start most of the compiling.
//
//   node scripts/build-cli.js          build (npm run build does it too)
//   ensureBuiltCli()                   bin/punchcard.js: build when missing or older than the sources
//   runBuiltCli(argv)                  bin/punchcard.js: run it, with V8's code cache
//
// Left out of the bundle (loaded from node_modules at run time): native addons, and packages that
// read files next to their own code (swagger-ui's assets, pino's transport workers) or are big and rarely used (bwip-js, imported when a barcode is drawn; stdnum, required at
// the first national id checked).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_DIR = join(root, 'out', 'cli');
export const CLI_FILE = join(CLI_DIR, 'punchcard.cjs');
/** V8's code cache of the bundle, written by bin/punchcard.js after a start; removed by every build. */
export const CACHE_FILE = join(CLI_DIR, 'punchcard.cache');
const STAMP_FILE = join(CLI_DIR, 'stamp.json');

/** What goes into the bundle: the node's sources, the lock file (dependency versions) and this script. */
const SOURCES = ['src/server', 'src/core', 'src/shared', 'src/devices', 'package-lock.json', 'scripts/build-cli.js'];

export const EXTERNAL = ['better-sqlite3', 'node-hid', '@node-rs/argon2', 'pg-native', '@fastify/swagger-ui', 'pino', 'bwip-js', 'stdnum', 'yaml'];

/**
 * @fastify/swagger requires `yaml` (~50 ms to load) for /docs/yaml only: in the bundle it gets a
 * stand-in that requires the real package (from node_modules) at its first call.
 */
const lazyYaml = {
  name: 'punchcard:lazy-yaml',
  setup(build) {
    build.onResolve({ filter: /^yaml$/ }, (args) => (/@fastify[\\/]swagger[\\/]/.test(args.importer) ? { path: 'yaml', namespace: 'lazy-yaml' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'lazy-yaml' }, () => ({
      contents: "const load = () => require('yaml');\nmodule.exports = { parse: (...args) => load().parse(...args), stringify: (...args) => load().stringify(...args) };\n",
      loader: 'js',
    }));
  },
};

/**
 * esbuild escapes every character beyond ASCII in code, but the comments it keeps (a dependency's
 * JSDoc) carry a few dashes and ellipses, and one such character makes the whole 5 MB source a
 * two-byte string: slower to read (~40 ms) and to compile at every start. Escaped as \uXXXX, which
 * also reads right in a string, template or regular expression.
 */
function asciiOnly(text) {
  return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The newest modification time and the number of files among the sources (a deletion changes the count). */
function sourceState() {
  let newest = 0;
  let files = 0;
  const visit = (path) => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
      return;
    }
    files++;
    if (stat.mtimeMs > newest) newest = stat.mtimeMs;
  };
  for (const source of SOURCES) if (existsSync(join(root, source))) visit(join(root, source));
  return { newest, files };
}

/** True when out/cli/punchcard.cjs was built from the sources as they are now. */
export function cliIsFresh() {
  if (!existsSync(CLI_FILE) || !existsSync(STAMP_FILE)) return false;
  try {
    const stamp = JSON.parse(readFileSync(STAMP_FILE, 'utf8'));
    const now = sourceState();
    return stamp.newest === now.newest && stamp.files === now.files;
  } catch {
    return false;
  }
}

/**
 * Bundles the CLI into out/cli/punchcard.cjs. Several processes may build at once (test files starting
 * the CLI side by side): each writes its own temporary file and renames it into place, which is
 * atomic, so a reader never sees half a file.
 */
export async function buildCli() {
  const state = sourceState();
  const { build } = await import('esbuild');
  mkdirSync(CLI_DIR, { recursive: true });
  const temporary = join(CLI_DIR, `punchcard.${process.pid}.${Date.now()}.tmp.cjs`);
  const { outputFiles } = await build({
    entryPoints: [join(root, 'src/server/cli/main.ts')],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20.19',
    // import() of packages left out becomes require(): vm.Script runs no dynamic imports.
    supported: { 'dynamic-import': false },
    // The sources' `import.meta.url` (createRequire, finding out/renderer): the bundle's own URL.
    define: { 'import.meta.url': '__punchcardUrl' },
    external: EXTERNAL,
    plugins: [lazyYaml],
    logLevel: 'warning',
    legalComments: 'none',
    banner: { js: "const __punchcardUrl = require('node:url').pathToFileURL(__filename).href;" },
    write: false,
  });
  writeFileSync(temporary, asciiOnly(outputFiles[0].text));
  renameSync(temporary, CLI_FILE);
  rmSync(CACHE_FILE, { force: true });
  writeFileSync(STAMP_FILE, `${JSON.stringify(state)}\n`);
  return CLI_FILE;
}

/** The built CLI, built first when missing or older than the sources (says so on stderr). */
export async function ensureBuiltCli() {
  if (cliIsFresh()) return CLI_FILE;
  process.stderr.write(`punchcard: building the command line into out/cli (${existsSync(CLI_FILE) ? 'the sources changed' : 'first run'})…\n`);
  return buildCli();
}

/** Written after the start (and the route warm-up) so the cache holds the functions a start compiles. */
const CACHE_AFTER_MS = 3_000;

/**
 * Runs the built CLI: out/cli/punchcard.cjs through vm.Script with the code cache when there is one.
 * A missing or rejected cache (another build, another Node) is written anew once the command has
 * run a few seconds (a server starting); short commands exit before and leave it to the next start.
 */
export async function runBuiltCli(argv) {
  const source = readFileSync(CLI_FILE, 'utf8');
  const cachedData = existsSync(CACHE_FILE) ? readFileSync(CACHE_FILE) : undefined;
  const script = new vm.Script(Module.wrap(source), { filename: CLI_FILE, ...(cachedData ? { cachedData } : {}) });
  if (!cachedData || script.cachedDataRejected) {
    setTimeout(() => {
      try {
        const temporary = `${CACHE_FILE}.${process.pid}.tmp`;
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, CACHE_FILE);
      } catch {
        // Read-only checkout, or out/cli rebuilt meanwhile: the next start tries again.
      }
    }, CACHE_AFTER_MS).unref();
  }
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(CLI_FILE), module, CLI_FILE, CLI_DIR);
  await module.exports.runCli(argv);
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const started = Date.now();
  await buildCli();
  console.log(`punchcard: built ${CLI_FILE.slice(root.length + 1)} in ${Date.now() - started} ms`);
}
