import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/server/http/logger';
import { makeTempDir } from '../support/temp-dir';

// The node's log gathers lines for a few milliseconds into one write (log-destination.ts): a line
// must still reach the file on its own, and none may be lost when the process exits right after it.

const readLines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string }) : []);

describe('the log file', () => {
  it('receives a line without a flush, in order with the lines around it', async () => {
    const dir = makeTempDir();
    try {
      const file = `${dir.path}/node.log`;
      const logger = createLogger({ file });
      for (let i = 0; i < 50; i++) logger.info(`line ${i}`);
      let lines = readLines(file);
      for (let waited = 0; lines.length < 50 && waited < 10_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        lines = readLines(file);
      }
      expect(lines.map((line) => line.msg)).toEqual(Array.from({ length: 50 }, (_, i) => `line ${i}`));
    } finally {
      dir.remove();
    }
  });

  it('starts again at the top of a file emptied from outside, and writes after lines appended to it', async () => {
    const dir = makeTempDir();
    try {
      const file = `${dir.path}/node.log`;
      const logger = createLogger({ file });
      const flushed = () => new Promise<void>((resolve, reject) => logger.flush((error) => (error ? reject(error) : resolve())));
      for (let i = 0; i < 100; i++) logger.info(`before ${i}`);
      await flushed();
      // An operator's `: > node.log` (or logrotate's copytruncate): the writer wrote on where the old end was, after NUL bytes.
      truncateSync(file, 0);
      logger.info('after emptying');
      await flushed();
      expect(readFileSync(file).includes(0)).toBe(false);
      expect(readLines(file).map((line) => line.msg)).toEqual(['after emptying']);
      appendFileSync(file, `${JSON.stringify({ msg: 'a note by hand' })}\n`);
      logger.info('after the note');
      await flushed();
      expect(readLines(file).map((line) => line.msg)).toEqual(['after emptying', 'a note by hand', 'after the note']);
    } finally {
      dir.remove();
    }
  });

  it('opens a fresh file at its size when the file was deleted from outside', async () => {
    const dir = makeTempDir();
    try {
      const file = `${dir.path}/node.log`;
      const logger = createLogger({ file, rotation: { maxBytes: 20_000, keep: 2 } });
      const flushed = () => new Promise<void>((resolve, reject) => logger.flush((error) => (error ? reject(error) : resolve())));
      logger.info('first');
      await flushed();
      rmSync(file);
      // Past a file's size: the deleted file's descriptor grew without limit, and no new file came.
      const padding = 'x'.repeat(200);
      for (let i = 0; i < 300; i++) logger.info({ padding }, `line ${i}`);
      await flushed();
      expect(existsSync(file)).toBe(true);
      expect(readLines(file).at(-1)!.msg).toBe('line 299');
    } finally {
      dir.remove();
    }
  });

  it('calls a flush back only once every line is in the file, however long the write', async () => {
    const dir = makeTempDir();
    try {
      const file = `${dir.path}/node.log`;
      const logger = createLogger({ file });
      const padding = 'x'.repeat(200);
      // ~4 MB: the sink writes it in 16 KB steps through libuv's pool, long after this turn.
      for (let i = 0; i < 20_000; i++) logger.info({ padding }, `line ${i}`);
      await new Promise<void>((resolve, reject) => logger.flush((error) => (error ? reject(error) : resolve())));
      const lines = readLines(file);
      expect(lines).toHaveLength(20_000);
      expect(lines.at(-1)!.msg).toBe('line 19999');
    } finally {
      dir.remove();
    }
  });

  it('keeps a large last batch of a process whose loop ends, on standard output and in a file', () => {
    const dir = makeTempDir();
    try {
      const file = `${dir.path}/node.log`;
      // No process.exit: the loop simply ends with the lines still gathered (as a stopped node's do).
      const script = `import { createLogger } from ${JSON.stringify(new URL('../../src/server/http/logger.ts', import.meta.url).pathname)};
        const toFile = createLogger({ file: ${JSON.stringify(file)} });
        const toStdout = createLogger();
        const padding = 'x'.repeat(200);
        setTimeout(() => { for (let i = 0; i < 20000; i++) { toFile.info({ padding }, 'line ' + i); toStdout.info({ padding }, 'line ' + i); } }, 100);`;
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      expect(run.status, run.stderr).toBe(0);
      const expected = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
      expect(readLines(file).map((line) => line.msg)).toEqual(expected);
      const printed = run.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(printed).toEqual(expected);
    } finally {
      dir.remove();
    }
  });

  it('keeps the lines of a process that exits in the same turn', () => {
    const dir = makeTempDir();
    try {
      const file = `${dir.path}/node.log`;
      const script = `import { createLogger } from ${JSON.stringify(new URL('../../src/server/http/logger.ts', import.meta.url).pathname)};
        const logger = createLogger({ file: ${JSON.stringify(file)} });
        logger.info('started');
        setTimeout(() => { logger.error('last words'); process.exit(3); }, 100);`;
      const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(3);
      expect(readLines(file).map((line) => line.msg)).toEqual(['started', 'last words']);
    } finally {
      dir.remove();
    }
  });
});
