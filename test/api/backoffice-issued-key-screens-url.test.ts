import { afterAll, describe, expect, it } from 'vitest';
import { ownerOf } from '../support/backoffice';
import { http, startTestNode, type TestNode } from '../support/test-node';

// A key issued in the back office comes with where its screens are (screens_url): the node's public
// URL when it has one (behind a proxy), else the address the request reached — never its Host header.
describe('POST /backoffice/stores/{id}/keys says where the screens are', () => {
  const nodes: TestNode[] = [];
  afterAll(async () => {
    for (const node of nodes) await node.close();
  });

  async function issue(options: { publicUrl?: string }, headers: Record<string, string> = {}): Promise<{ node: TestNode; body: { screens_url: string; api_key: string } }> {
    const node = await startTestNode(options);
    nodes.push(node);
    const vendor = await node.addVendor('Screens Café');
    const owner = await ownerOf(node, vendor.vendorId);
    const reply = await http(`${node.url}/backoffice/stores/${vendor.storeId}/keys`, { method: 'POST', token: owner.token, headers, body: { role: 'cashier', label: 'Front till' } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return { node, body: reply.body };
  }

  it('is the address the request reached, whatever Host it named', async () => {
    const { node, body } = await issue({}, { host: 'attacker.example' });
    expect(body.screens_url).toBe(`${node.url}/`);
    expect(body.api_key).toMatch(/^pcak_/);
  });

  it('is the node’s public URL when it has one', async () => {
    const { body } = await issue({ publicUrl: 'https://loyalty.example.com' });
    expect(body.screens_url).toBe('https://loyalty.example.com/');
  });
});
