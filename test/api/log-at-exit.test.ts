import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir';

// Eighteenth round: the log writer at exit (log-destination.ts), each case a real child process.
// - Standard output read by no one (a pipe whose reader stopped): the exit's last write waited for
//   room for ever, and a node told to stop never stopped. Now the lines that do not fit are dropped.
// - A write still under way at exit: the last lines were written before it (or it was lost), so the
//   log's last lines were out of order. Now the file holds the lines in the order they were logged.

const source = (path: string) => JSON.stringify(new URL(`../../src/${path}`, import.meta.url).pathname);

function start(script: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Its output is read only after it exits: a 'readable' listener takes the pipe's first 64 KB and
  // waits (unlistened, Node would resume the stream at the exit and drop what it held).
  child.stdout!.on('readable', () => undefined);
  return child;
}

/** The child's exit code, or null when it had not exited within 10 s (then killed). `onSaid` runs once it says `said` on stderr. */
function exitCode(child: ChildProcess, said = 'ready', onSaid: () => void = () => undefined): Promise<number | null> {
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk;
    if (!stderr.includes(`${said}\n`)) return;
    onSaid();
    onSaid = () => undefined;
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, 10_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe.runIf(process.platform !== 'win32')('a process logging to standard output that nobody reads', () => {
  // ~5 MB of lines, far past a pipe's 64 KB (or a socket's few hundred KB), which the parent does
  // not read while the child runs (start).
  const logMuch = `
    const { createLogger } = await import(${source('server/http/logger.ts')});
    const { runUntilSignal } = await import(${source('server/cli/run-until-signal.ts')});
    const logger = createLogger();
    const padding = 'x'.repeat(200);
    const pause = () => new Promise((resolve) => setTimeout(resolve, 200));
    // Two rounds: the second's lines wait behind the first's write, which waits for room.
    for (let i = 0; i < 20000; i++) logger.info({ padding }, 'line ' + i);
    await pause();
    for (let i = 20000; i < 20100; i++) logger.info({ padding }, 'line ' + i);
    await pause();`;

  it('exits when it calls process.exit', async () => {
    const child = start(`${logMuch}
      process.exit(0);`);
    expect(await exitCode(child)).toBe(0);
    await expectLinesInOrder(child);
  }, 20_000);

  it('stops on SIGTERM as a node does (runUntilSignal, then process.exit as the command line does)', async () => {
    const child = start(`${logMuch}
      const server = setInterval(() => undefined, 1_000); // a node's server keeps its loop alive
      const stopped = runUntilSignal({ close: async () => clearInterval(server) }, (line) => logger.info(line));
      process.stderr.write('ready\\n');
      await stopped;
      process.exit(0);`);
    expect(await exitCode(child, 'ready', () => child.kill('SIGTERM'))).toBe(0);
    await expectLinesInOrder(child);
  }, 20_000);

  /** What the pipe holds once the child is gone: its first lines in order (the rest dropped; the last perhaps cut). */
  async function expectLinesInOrder(child: ChildProcess): Promise<void> {
    let printed = '';
    for await (const chunk of child.stdout!) printed += chunk;
    const messages = printed.split('\n').slice(0, -1).map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages.length).toBeGreaterThan(100);
    expect(messages).toEqual(Array.from({ length: messages.length }, (_, i) => `line ${i}`));
  }

  it('calls a flush back once the reader reads again, the script waiting for it (was: the script ended unflushed)', async () => {
    const child = start(`${logMuch}
      await new Promise((resolve) => logger.flush(resolve));
      process.stderr.write('flushed\\n');`);
    // Read only after half a second: meanwhile the flush waits on the full pipe.
    setTimeout(() => {
      child.stdout!.removeAllListeners('readable');
      child.stdout!.resume();
    }, 500);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
    expect(await exitCode(child, 'never said')).toBe(0);
    expect(stderr).toContain('flushed');
  }, 20_000);

  it('exits when its loop ends', async () => {
    const child = start(logMuch);
    expect(await exitCode(child)).toBe(0);
    await expectLinesInOrder(child);
  }, 20_000);
});

const python = (() => {
  try {
    execFileSync('python3', ['-c', 'import pty'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// A terminal (a pty from Python's standard library) that nobody reads: Ctrl-S, a stalled ssh session.
describe.runIf(process.platform !== 'win32' && python)('a process logging to a terminal that nobody reads', () => {
  it('keeps its event loop turning (was: held in a blocking write)', async () => {
    const dir = makeTempDir();
    try {
      const beats = `${dir.path}/beats`;
      const child = `
        import { appendFileSync } from 'node:fs';
        const { createLogger } = await import(${source('server/http/logger.ts')});
        const logger = createLogger();
        const padding = 'x'.repeat(200);
        setInterval(() => { for (let k = 0; k < 200; k++) logger.info({ padding }, 'line'); }, 20);
        setInterval(() => appendFileSync(${JSON.stringify(beats)}, Date.now() + '\\n'), 100);`;
      const driver = `
import os, pty, subprocess, sys, time
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=slave, stderr=subprocess.DEVNULL)
os.close(slave)
time.sleep(3)
p.kill()
`;
      execFileSync('python3', ['-c', driver, process.execPath, '--import', 'tsx', '--input-type=module', '-e', child], { stdio: 'ignore', timeout: 15_000 });
      const times = readFileSync(beats, 'utf8').trim().split('\n').map(Number);
      // A beat every 100 ms for about 3 s, less start-up: never a stall of a second.
      expect(times.length).toBeGreaterThan(5);
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      expect(Math.max(...gaps)).toBeLessThan(1_000);
    } finally {
      dir.remove();
    }
  }, 30_000);
});

describe.runIf(process.platform !== 'win32')('a process exiting while its log file is being written', () => {
  it('leaves the lines in the file in the order they were logged', async () => {
    const dir = makeTempDir();
    try {
      const file = `${dir.path}/node.log`;
      const fifo = `${dir.path}/pool`;
      execFileSync('mkfifo', [fifo]);
      // libuv's only thread held in an open() of a FIFO nobody writes to: the disk falls behind, and
      // the batch of 'early' lines is still waiting in its write when the process exits. Once the
      // exit's handlers have run the FIFO is opened, and the waiting write goes ahead (libuv's thread
      // finishes its queue before the process ends), as a slow disk's would.
      const child = start(
        `
        import { open } from 'node:fs';
        const { createLogger } = await import(${source('server/http/logger.ts')});
        const logger = createLogger({ file: ${JSON.stringify(file)} });
        logger.info('first');
        await new Promise((resolve, reject) => logger.flush((error) => (error ? reject(error) : resolve())));
        open(${JSON.stringify(fifo)}, 'r', () => undefined);
        for (let i = 0; i < 100; i++) logger.info('early ' + i);
        await new Promise((resolve) => setTimeout(resolve, 100));
        for (let i = 0; i < 100; i++) logger.info('late ' + i);
        process.on('exit', () => process.stderr.write('exiting\\n')); // after the log's own handler
        process.exit(0);`,
        { UV_THREADPOOL_SIZE: '1' },
      );
      expect(await exitCode(child, 'exiting', () => closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)))).toBe(0);
      const messages = readFileSync(file, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toEqual(['first', ...Array.from({ length: 100 }, (_, i) => `early ${i}`), ...Array.from({ length: 100 }, (_, i) => `late ${i}`)]);
    } finally {
      dir.remove();
    }
  }, 20_000);
});
