import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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
