#!/usr/bin/env node
// The `punchcard` command. Runs the built command line, out/cli/punchcard.js (scripts/build-cli.js),
// building it first when it is missing or older than the sources — so `npx punchcard` works right
// after `npm install`, and every start after the first skips TypeScript altogether.
// PUNCHCARD_FROM_SOURCES=1 runs the TypeScript sources through tsx instead (debugging).
import { pathToFileURL } from 'node:url';

if (process.env.PUNCHCARD_FROM_SOURCES === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  const { runCli } = await import('../src/server/cli/main.ts');
  await runCli(process.argv);
} else {
  const { ensureBuiltCli } = await import('../scripts/build-cli.js');
  const { runCli } = await import(pathToFileURL(await ensureBuiltCli()).href);
  await runCli(process.argv);
}
