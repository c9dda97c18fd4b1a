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
  await runBuiltCli(process.argv);
}
