import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, open, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/server/http/logger';
import { makeTempDir } from '../support/temp-dir';

// The desktop app's node logs to a file on a till that may run for years (logger.ts, log-file-rotation.ts):
// the file is moved aside when it reaches its size, a few older ones are kept, and no line is lost or
// reordered across the move. A file never passes its size: lines that would go past it wait for the
// next file, and lines gathered while a write is still in flight wait for it (under load the disk's
// writes fall behind the 10 ms batches; batches queued in pino's destination used to land in the new
// file uncounted, 58 KB in a file of 20 KB).

const messages = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg) : []);
const flushed = (logger: ReturnType<typeof createLogger>) => new Promise<void>((resolve, reject) => logger.flush((error) => (error ? reject(error) : resolve())));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Opens `fifo` for writing once a reader is waiting in its open() (which then returns). */
async function writerOf(fifo: string): Promise<number> {
  for (let tries = 0; ; tries++) {
    try {
      return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO' || tries > 1_000) throw error;
      await pause(5);
    }
  }
}

describe('the log file at its size', () => {
  it('is moved aside, keeps the newest older files, and every kept line stays in order', async () => {
    const dir = makeTempDir();
    try {
      const file = `${dir.path}/logs/node.log`;
      const rotation = { maxBytes: 20_000, keep: 3 };
      const logger = createLogger({ file, rotation });
      const padding = 'x'.repeat(100);
      const total = 1_500;
      // Batches of 50 lines (~9 KB), each handed to the file on its own (lines gather for 10 ms).
      for (let i = 0; i < total; i++) {
        logger.info({ padding }, `line ${i}`);
        if (i % 50 === 49) await pause(20);
      }
      await flushed(logger);

      expect(existsSync(`${file}.4`)).toBe(false);
      const files = [`${file}.3`, `${file}.2`, `${file}.1`, file];
      for (const name of files) expect(existsSync(name), name).toBe(true);
      for (const name of files) expect(statSync(name).size, name).toBeLessThanOrEqual(rotation.maxBytes);
      const kept = files.flatMap(messages);
      const first = Number(kept[0]!.slice('line '.length));
      expect(first).toBeGreaterThan(0); // the oldest files were dropped
      expect(kept).toEqual(Array.from({ length: total - first }, (_, i) => `line ${first + i}`));
    } finally {
      dir.remove();
    }
  });

  // Every thread of libuv's pool held in an open() of a FIFO nobody writes to: the file's writes wait,
  // as they do on a loaded till, while the logger goes on gathering batches.
  it.skipIf(process.platform === 'win32')('holds its size when the disk falls behind the batches', async () => {
    const dir = makeTempDir();
    const fifos = Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }, (_, i) => `${dir.path}/pool-${i}`);
    const readers: Array<Promise<number>> = [];
    try {
      const file = `${dir.path}/node.log`;
      const rotation = { maxBytes: 20_000, keep: 10 };
      const logger = createLogger({ file, rotation });
      logger.info('opened');
      await flushed(logger);
      execFileSync('mkfifo', fifos);
      for (const fifo of fifos) readers.push(new Promise((resolve, reject) => open(fifo, 'r', (error, fd) => (error ? reject(error) : resolve(fd)))));
      const padding = 'x'.repeat(100);
      const total = 1_000;
      for (let i = 0; i < total; i++) {
        logger.info({ padding }, `line ${i}`);
        if (i % 50 === 49) await pause(20);
        if (i === 249) for (const fifo of fifos) closeSync(await writerOf(fifo)); // five batches waited
      }
      await flushed(logger);

      const files = [...Array.from({ length: rotation.keep }, (_, i) => `${file}.${rotation.keep - i}`).filter(existsSync), file];
      for (const name of files) expect(statSync(name).size, name).toBeLessThanOrEqual(rotation.maxBytes);
      expect(files.length).toBeGreaterThanOrEqual(8); // ~193 KB of lines
      expect(files.flatMap(messages)).toEqual(['opened', ...Array.from({ length: total }, (_, i) => `line ${i}`)]);
    } finally {
      for (const fd of await Promise.all(readers)) closeSync(fd);
      dir.remove();
    }
  });

  it('starts a new file when the last run left it full, and leaves a smaller one to grow', async () => {
    const dir = makeTempDir();
    try {
      const full = `${dir.path}/full.log`;
      writeFileSync(full, `${JSON.stringify({ msg: 'last run' })}\n`.repeat(2_000));
      const small = `${dir.path}/small.log`;
      writeFileSync(small, `${JSON.stringify({ msg: 'last run' })}\n`);
      const rotation = { maxBytes: 20_000, keep: 2 };
      const toFull = createLogger({ file: full, rotation });
      const toSmall = createLogger({ file: small, rotation });
      toFull.info('this run');
      toSmall.info('this run');
      await Promise.all([flushed(toFull), flushed(toSmall)]);
      expect(messages(full)).toEqual(['this run']);
      expect(messages(`${full}.1`)).toHaveLength(2_000);
      expect(messages(small)).toEqual(['last run', 'this run']);
      expect(existsSync(`${small}.1`)).toBe(false);
    } finally {
      dir.remove();
    }
  });
});
