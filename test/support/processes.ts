import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { makeTempDir } from './temp-dir';

// Real processes of the project (the punchcard CLI, npm start's script), started from the
// repository root and always reaped, even when a test fails half-way.

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'punchcard.js');
// Generous: the CLI is built JavaScript (out/cli, built once by test/support/global-setup.ts), but a
// busy 2-core machine running several test files can still be slow.
const RUN_TIMEOUT_MS = 60_000;

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();

function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.PUNCHCARD_NODE_KEY;
  return env;
}

/** Starts `node <script> <args>` from the repository root; `env` adds to (or, undefined, removes from) the environment. */
export function launch(args: string[], script = BIN, env: Record<string, string | undefined> = {}): Running {
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env: { ...childEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs a command to completion (killed after RUN_TIMEOUT_MS). */
export async function run(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = RUN_TIMEOUT_MS): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = launch(args, BIN, env);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), timeoutMs);
  const { code } = await running.exited;
  clearTimeout(timer);
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

export async function waitFor<T>(what: string, probe: () => T | undefined, running: Running, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (running.child.exitCode !== null || running.child.signalCode !== null) {
      throw new Error(`process ended before ${what}\nstdout: ${running.stdout()}\nstderr: ${running.stderr()}`);
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nstdout: ${running.stdout()}\nstderr: ${running.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function jsonLines(text: string): Array<Record<string, any>> {
  return text
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, any>];
      } catch {
        return [];
      }
    });
}

export async function stopWith(running: Running, signal: NodeJS.Signals): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  running.child.kill(signal);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 10_000);
  const { code } = await running.exited;
  clearTimeout(timer);
  return { code, ms: Date.now() - started };
}

/** Kills whatever a test left running. */
export async function killLeftovers(): Promise<void> {
  const left = [...children];
  for (const child of left) child.kill('SIGKILL');
  await Promise.all(left.map((child) => (child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((r) => child.once('close', r)))));
}

/** The address a started `punchcard store` or `central` logs once it listens ("Punchcard <kind> node listening on URL"). */
export function listeningUrl(running: Running, kind: 'store' | 'central', timeoutMs = 60_000): Promise<string> {
  const pattern = new RegExp(`^Punchcard ${kind} node listening on (http://127\\.0\\.0\\.1:\\d+)$`);
  return waitFor(`the ${kind} listening line`, () => jsonLines(running.stdout()).map((line) => pattern.exec(String(line.msg ?? ''))?.[1]).find(Boolean), running, timeoutMs);
}

/**
 * For a file of tests that run nodes: fresh data folders (`tempDir`, named by the file's prefix or
 * one of their own) and started `punchcard store` or `central` processes with their address
 * (`start`; `env` as for `launch`), all killed and removed after the file. Vitest runs after-hooks
 * last-registered first: a file that drops a database its nodes use registers that afterAll before
 * calling this, so the nodes are gone first.
 */
export function nodesOfThisFile(prefix: string): {
  tempDir(ownPrefix?: string): string;
  start(args: string[], kind: 'store' | 'central', env?: Record<string, string | undefined>): Promise<{ process: Running; url: string }>;
} {
  const dirs: Array<{ remove(): void }> = [];
  afterAll(async () => {
    await killLeftovers();
    for (const dir of dirs) dir.remove();
  });
  return {
    tempDir: (ownPrefix = prefix) => {
      const dir = makeTempDir(ownPrefix);
      dirs.push(dir);
      return dir.path;
    },
    start: async (args, kind, env = {}) => {
      const process = launch(args, BIN, env);
      return { process, url: await listeningUrl(process, kind) };
    },
  };
}

/**
 * A node's stderr without the warning a dev tree's stale screens bring (`out/renderer` older than the
 * screens' sources: edited, not rebuilt); a clean clone builds them, so CI never sees it.
 */
export const withoutScreensWarning = (stderr: string): string => stderr.replace(/^punchcard: warning: out\/renderer is older than the screens' sources.*\n/m, '');
