import { existsSync, mkdirSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/core/storage/database';
import { createLogger } from '../../src/server/http/logger';
import { openDataDir } from '../../src/server/node/data-dir';
import { makeTempDir } from '../support/temp-dir';
import { startTestNode, type TestNode } from '../support/test-node';

// Issue 10, findings 6 and 7: replies Node's parser and the CORS plugin used to write themselves
// (431 for a URL over 16 KB, OPTIONS without Origin) now follow the interface's conventions, and a
// node's data folder and database files are readable by their owner only.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

function raw(path: string, method = 'GET', headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${node.url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('envelopes where the framework used to answer (finding 6)', () => {
  it('a legacy URL over 16 KB is 431 in the legacy envelope', async () => {
    const reply = await raw(`/onscreen/queue?api_key=${'k'.repeat(17_000)}`);
    expect(reply.status).toBe(431);
    expect(reply.type).toMatch(/^application\/json/);
    const body = JSON.parse(reply.text);
    expect(body.object).toBe('error');
    expect(body.error.code).toBe(431);
    expect(body.error.errors[0].reason).toBe('headers_too_large');
  });

  it('a resource URL over 16 KB is 431 in the resource envelope', async () => {
    const reply = await raw(`/currencies?query=${'q'.repeat(17_000)}`);
    expect(reply.status).toBe(431);
    expect(JSON.parse(reply.text)).toMatchObject({ code: 'headers_too_large', internal_code: null });
  });

  it('OPTIONS without Origin answers 204 with no text/plain error; a real preflight still gets its CORS headers', async () => {
    const plain = await raw('/currencies', 'OPTIONS');
    expect(plain.status).toBe(204);
    expect(plain.text).toBe('');
    const half = await raw('/onscreen', 'OPTIONS', { origin: 'https://shop.example' });
    expect(half.status).toBe(204);
    const preflight = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = httpRequest(`${node.url}/onscreen`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, allow: res.headers['access-control-allow-origin'] }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(preflight).toEqual({ status: 204, allow: '*' });
  });
});

describe('owner-only data (finding 7)', () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('the data folder is 0700 and the database with its WAL files 0600, also when they existed before', async () => {
    const dir = makeTempDir();
    try {
      const root = join(dir.path, 'node-data');
      mkdirSync(root, { mode: 0o755 });
      const dataDir = openDataDir(root);
      expect(mode(root)).toBe(0o700);
      const database = openSqlite(dataDir.database);
      await database.db.schema.createTable('t').addColumn('a', 'integer').execute();
      await database.db.insertInto('t' as never).values({ a: 1 } as never).execute();
      for (const suffix of ['', '-wal', '-shm']) expect(mode(`${dataDir.database}${suffix}`), suffix).toBe(0o600);
      await database.close();
      const logger = createLogger({ file: dataDir.logFile });
      logger.info('hello');
      // The log file opens asynchronously.
      for (let i = 0; i < 100 && !existsSync(dataDir.logFile); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(mode(dataDir.logFile)).toBe(0o600);
    } finally {
      dir.remove();
    }
  });

  it('a running test node keeps its database files 0600', () => {
    for (const suffix of ['', '-wal']) expect(mode(join(node.dataDir, `punchcard.db${suffix}`))).toBe(0o600);
  });
});
