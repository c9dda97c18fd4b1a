#!/usr/bin/env node
// The `punchcard` command built like main, preload and renderer: src/server/cli/main.ts and everything
// it imports bundled by esbuild (already installed: tsx runs on it) into one ES module,
// out/cli/punchcard.js, so `punchcard store` and `punchcard central` start from JavaScript instead of
// compiling TypeScript through tsx at every start, and load one file instead of ~1,500 modules.
//
//   node scripts/build-cli.js          build (npm run build does it too)
//   ensureBuiltCli()                   bin/punchcard.js: build when missing or older than the sources
//
// Left out of the bundle (loaded from node_modules at run time): native addons, and packages that
// read files next to their own code (swagger-ui's assets, pino's transport workers) or are big and rarely used (bwip-js, imported when a barcode is drawn; stdnum, required at
// the first national id checked).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_DIR = join(root, 'out', 'cli');
export const CLI_FILE = join(CLI_DIR, 'punchcard.js');
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

/** True when out/cli/punchcard.js was built from the sources as they are now. */
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
 * Bundles the CLI into out/cli/punchcard.js. Several processes may build at once (test files starting
 * the CLI side by side): each writes its own temporary file and renames it into place, which is
 * atomic, so a reader never sees half a file.
 */
export async function buildCli() {
  const state = sourceState();
  const { build } = await import('esbuild');
  mkdirSync(CLI_DIR, { recursive: true });
  const temporary = join(CLI_DIR, `punchcard.${process.pid}.${Date.now()}.tmp.js`);
  await build({
    entryPoints: [join(root, 'src/server/cli/main.ts')],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    external: EXTERNAL,
    plugins: [lazyYaml],
    logLevel: 'warning',
    legalComments: 'none',
    // CommonJS packages in the bundle call require() for Node's built-ins.
    banner: { js: "import { createRequire as __punchcardRequire } from 'node:module';\nconst require = __punchcardRequire(import.meta.url);" },
  });
  renameSync(temporary, CLI_FILE);
  writeFileSync(STAMP_FILE, `${JSON.stringify(state)}\n`);
  return CLI_FILE;
}

/** The built CLI, built first when missing or older than the sources (says so on stderr). */
export async function ensureBuiltCli() {
  if (cliIsFresh()) return CLI_FILE;
  process.stderr.write(`punchcard: building the command line into out/cli (${existsSync(CLI_FILE) ? 'the sources changed' : 'first run'})…\n`);
  return buildCli();
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const started = Date.now();
  await buildCli();
  console.log(`punchcard: built ${CLI_FILE.slice(root.length + 1)} in ${Date.now() - started} ms`);
}
