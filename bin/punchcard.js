#!/usr/bin/env node
// The `punchcard` command. Runs the built command line, out/cli/punchcard.cjs (scripts/build-cli.js),
// building it first when it is missing or older than the sources — so `npx punchcard` works right
// after `npm install`, and every start after the first skips TypeScript altogether.
// PUNCHCARD_FROM_SOURCES=1 runs the TypeScript sources through tsx instead (debugging).
if (process.env.PUNCHCARD_FROM_SOURCES === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  const { runCli } = await import('../src/server/cli/main.ts');
  await runCli(process.argv);
} else {
  const { ensureBuiltCli, runBuiltCli } = await import('../scripts/build-cli.js');
  await ensureBuiltCli();
  // The commands that serve the screens serve them as the sources are: in a checkout whose renderer
  // changed since the last build, a person at a terminal gets them built again; anything else (tests
  // starting nodes side by side, services) is told, and served the last build; with none built,
  // the node's own log says so at its start.
  if (['store', 'demo', 'central'].includes(process.argv[2] ?? '')) {
    const { fileURLToPath, URL } = await import('node:url');
    const { buildScreens, screensAreMissing, screensAreStale } = await import('../scripts/screens.js');
    const root = fileURLToPath(new URL('..', import.meta.url));
    const missing = screensAreMissing(root);
    const stale = missing || screensAreStale(root);
    if (stale && process.stderr.isTTY) {
      process.stderr.write(`punchcard: building the screens into out/renderer (${missing ? 'none are built yet' : 'their sources changed since the last build'})…\n`);
      const problem = await buildScreens(root);
      if (problem) process.stderr.write(`punchcard: warning: the screens could not be built (${problem}); the last build is served.\n`);
    } else if (stale && !missing) {
      process.stderr.write('punchcard: warning: out/renderer is older than the screens\' sources: the last build is served (run `npm run build`).\n');
    }
  }
  await runBuiltCli(process.argv);
}
