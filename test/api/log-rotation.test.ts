import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/server/http/logger';
import { makeTempDir } from '../support/temp-dir';

// The desktop app's node logs to a file on a till that may run for years (logger.ts, log-file-rotation.ts):
// the file is moved aside when it reaches its size, a few older ones are kept, and no line is lost or
// reordered across the move.

const messages = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg) : []);
const flushed = (logger: ReturnType<typeof createLogger>) => new Promise<void>((resolve, reject) => logger.flush((error) => (error ? reject(error) : resolve())));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
      // A file holds at most its size plus the batch that filled it.
      for (const name of files) expect(statSync(name).size, name).toBeLessThan(rotation.maxBytes + 12_000);
      const kept = files.flatMap(messages);
      const first = Number(kept[0]!.slice('line '.length));
      expect(first).toBeGreaterThan(0); // the oldest files were dropped
      expect(kept).toEqual(Array.from({ length: total - first }, (_, i) => `line ${first + i}`));
    } finally {
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
