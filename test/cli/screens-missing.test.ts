import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startStoreNode } from '../../src/server/node/store-node';
import { http } from '../support/test-node';
import { makeTempDir } from '../support/temp-dir';

// A checkout that was never built served no screens, and said nothing: / answered "There is no GET
// / endpoint". The node says so at its start, in its log.
const dirs = [makeTempDir('punchcard-no-screens-'), makeTempDir('punchcard-no-screens-data-')];
afterAll(() => {
  for (const dir of dirs) dir.remove();
});

describe('a node whose screens are not built', () => {
  it('warns at its start, naming the folder and the command that builds them', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const node = await startStoreNode({ dataDir: dirs[1]!.path, port: 0, rendererDir: dirs[0]!.path, logger: pino({ level: 'warn' }, stream) });
    try {
      expect((await http(`${node.url}/`)).status).toBe(404);
      const warned = lines.map((line) => JSON.parse(line) as { level: number; msg: string; dir?: string }).find((line) => line.msg.startsWith('no screens are built here'));
      expect(warned).toMatchObject({ level: 40, dir: dirs[0]!.path, msg: expect.stringContaining('npm run build') });
    } finally {
      await node.close();
    }
  });
});
