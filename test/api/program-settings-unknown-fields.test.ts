import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestNode, type TestNode } from '../support/test-node';

// Unknown body fields are dropped by design (old clients send extras; docs/decisions.md), so
// PUT /program/settings {"bogus": 1} is a 200. What makes that safe to meet is that the reply is the
// settings as they stand (nothing changed shows as nothing changed) and that the docs say so.

let node: TestNode;

beforeAll(async () => {
  node = await startTestNode();
});

afterAll(async () => {
  await node?.close();
});

describe('PUT /program/settings with a field it does not know', () => {
  it('answers 200 with the settings unchanged', async () => {
    const { accessToken: token } = await node.addVendor('Unknown fields');
    const before = await http(`${node.url}/program/settings`, { token });
    expect(before.status).toBe(200);
    const reply = await http(`${node.url}/program/settings`, { method: 'PUT', token, body: { bogus: 1 } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toStrictEqual(before.body);
    expect((await http(`${node.url}/program/settings`, { token })).body).toStrictEqual(before.body);
  });

  it('the OpenAPI document says unknown fields are ignored, on the operation and for the whole interface', async () => {
    const doc = (await http(`${node.url}/openapi.json`)).body;
    expect(doc.paths['/program/settings'].put.description).toMatch(/Fields not listed here are ignored/);
    expect(doc.info.description).toMatch(/Fields an operation does not list are ignored/);
    expect(doc.info.description).toMatch(/415 `unsupported_media_type`/);
  });
});
