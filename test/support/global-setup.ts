// @ts-expect-error plain JavaScript script without types
import { ensureBuiltCli } from '../../scripts/build-cli.js';

// Once per test run: the tests start `punchcard` (bin/punchcard.js) as users do, from the built
// command line; building it here, before test files run side by side, spares each a build of its own.
export default async function setup(): Promise<void> {
  await (ensureBuiltCli as () => Promise<string>)();
}
