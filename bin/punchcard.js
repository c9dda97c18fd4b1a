#!/usr/bin/env node
// The `punchcard` command. Runs the TypeScript sources directly through tsx, so it works right
// after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/server/cli/main.ts');
await runCli(process.argv);
