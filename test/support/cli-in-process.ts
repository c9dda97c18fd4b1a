import { vi } from 'vitest';
import { runCli } from '../../src/server/cli/main';

// The `punchcard` command run in-process (runCli, as bin/punchcard.js calls it), for tests of a
// command's behaviour: test/cli/cli.test.ts proves the binary itself starts, and each extra
// process costs seconds on a loaded machine.

/** Runs `punchcard …args` and returns its exit code and what it printed. */
export async function runInProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(console, 'error').mockImplementation((line) => void (stderr += `${String(line)}\n`));
  process.exitCode = undefined;
  try {
    await runCli(['node', 'punchcard', ...args]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
  }
}

/** Leaves out the settings a developer's shell may carry, for this test (vi.unstubAllEnvs restores them). */
export function withoutPunchcardEnv(): void {
  for (const name of ['PUNCHCARD_NODE_KEY', 'PUNCHCARD_DATABASE_URL', 'PUNCHCARD_PUBLIC_URL', 'PUNCHCARD_PAYMENT_GATEWAY', 'PUNCHCARD_SMTP_URL']) vi.stubEnv(name, '');
}
