import { randomBytes } from 'node:crypto';
import { startEngine } from '../../src/core/engine';
import { openSqlite } from '../../src/core/storage/database';
import { buildApp } from '../../src/server/app';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_DOCS, SECTIONS } from '../../src/server/http/operation-docs';
import { launchChromium } from '../support/browser';
import { http, startTestNode, type TestNode } from '../support/test-node';

// The API documentation (issue 12): every operation of /openapi.json has a summary and a
// description from src/server/http/operation-docs.ts, sits in one of the interface's sections, and
// /docs (Swagger UI, in Chromium) shows the sections in the interface's order.

let node: TestNode;
let browser: Browser | undefined;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await browser?.close();
  await node?.close();
});

const SECTION_NAMES: string[] = SECTIONS.map((s) => s.name);

async function operations(): Promise<Array<{ key: string; op: any }>> {
  const spec = await http(`${node.url}/openapi.json`);
  expect(spec.status).toBe(200);
  return Object.entries(spec.body.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );
}

/** The operations of a central node's document (its sync endpoints are central's alone). */
async function centralOperations(): Promise<string[]> {
  const engine = await startEngine({ database: openSqlite(':memory:'), nodeKey: randomBytes(32), role: 'central' });
  const app = await buildApp({ engine, role: 'central', version: 'test' });
  try {
    const spec = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    return Object.entries(spec.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
  } finally {
    await app.close();
    await engine.close();
  }
}

describe('versioning (docs/decisions.md, "Interface versioning")', () => {
  it('keeps paths unversioned and names the node’s release in the document and /health alike', async () => {
    const spec = await http(`${node.url}/openapi.json`);
    const paths = Object.keys(spec.body.paths as Record<string, unknown>);
    expect(paths.length).toBeGreaterThan(100);
    expect(paths.filter((path) => /^\/v\d+(\/|$)/i.test(path))).toEqual([]);
    expect(spec.body.info.version).toBe((await http(`${node.url}/health`)).body.version);
    // Nothing is deprecated today; a deprecated operation must say what replaces it.
    for (const { key, op } of await operations()) if (op.deprecated) expect(String(op.description), key).toMatch(/instead/);
  });
});

describe('/openapi.json', () => {
  it('gives every operation a summary, a description and one section of the interface', async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(90);
    const undocumented = ops.filter(({ op }) => !op.summary?.trim() || !op.description?.trim()).map(({ key }) => key);
    expect(undocumented).toEqual([]);
    for (const { key, op } of ops) {
      expect(op.tags, key).toHaveLength(1);
      expect(SECTION_NAMES, key).toContain(op.tags[0]);
      expect(op.summary, key).toBe(OPERATION_DOCS[key]!.summary);
      // A back-office operation's ends with the staff roles it takes (openapi-security.ts).
      expect(String(op.description).startsWith(OPERATION_DOCS[key]!.description), key).toBe(true);
    }
  });

  it('lists the sections in the interface’s order, and the table names no operation that does not exist', async () => {
    const spec = await http(`${node.url}/openapi.json`);
    expect(spec.body.tags.map((t: { name: string }) => t.name)).toEqual(SECTION_NAMES);
    expect(SECTION_NAMES.slice(0, 6)).toEqual(['Currencies', 'Cards', 'OnScreen', 'Countries and regions', 'Users', 'Billing profiles, reloads and eGifts']);
    // A central node serves the chain's sync endpoints too: the table documents both roles.
    const keys = new Set([...(await operations()).map(({ key }) => key), ...(await centralOperations())]);
    expect(Object.keys(OPERATION_DOCS).filter((key) => !keys.has(key))).toEqual([]);
    const used = new Set(Object.values(OPERATION_DOCS).map((d) => d.section));
    expect(SECTION_NAMES.filter((name) => !used.has(name as never))).toEqual([]);
  });
});

describe('/docs paths it does not have', () => {
  it("answer 404 route_not_found in the node's envelope, not Swagger UI's Fastify's own", async () => {
    for (const path of ['/docs/a/a/a', '/docs/..%2f..%2fpackage.json', '/docs/static/nope.js']) {
      const reply = await http(`${node.url}${path}`);
      expect(reply.status, path).toBe(404);
      expect(JSON.stringify(reply.body), path).toContain('route_not_found');
      expect(reply.body, path).not.toHaveProperty('statusCode');
    }
    expect((await http(`${node.url}/docs/json`)).status).toBe(200);
  });
});

describe('/docs in Chromium', () => {
  it('groups the operations by section, in the interface’s order, with their summaries', async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${node.url}/docs`);
    // With 130+ operations swagger-ui renders the list virtualized (only what is on screen): walk
    // down the page and collect the section headers and summaries as they appear.
    await page.locator('.opblock-tag').first().waitFor({ timeout: 30_000 });
    const groups: string[] = [];
    let ratePurchase = 0;
    for (let step = 0; step < 400; step += 1) {
      for (const tag of await page.locator('.opblock-tag').evaluateAll((els) => els.map((el) => el.getAttribute('data-tag') ?? ''))) {
        if (!groups.includes(tag)) groups.push(tag);
      }
      ratePurchase = Math.max(ratePurchase, await page.locator('.opblock-summary-description', { hasText: 'Rate a purchase' }).count());
      const atEnd = await page.evaluate(() => {
        window.scrollBy(0, window.innerHeight / 2);
        return window.innerHeight + window.scrollY >= document.body.scrollHeight - 2;
      });
      await page.waitForTimeout(30);
      if (atEnd && groups.length >= SECTION_NAMES.length) break;
    }
    expect(groups).toEqual(SECTION_NAMES);
    expect(ratePurchase).toBe(1);
  });
});
