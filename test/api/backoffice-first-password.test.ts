import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOwner } from '../../src/core/staff/add-owner';
import { ownerOf, signIn, staffCall } from '../support/backoffice';
import { http, startTestNode, type TestNode } from '../support/test-node';

// An owner signed in by `punchcard init`'s one-time link has no password: GET /backoffice/me says so
// (has_password) and POST /backoffice/me/password sets the first one, keeping the session. Once set,
// or for staff who have one, it is refused (the emailed reset changes a password).
describe('POST /backoffice/me/password', () => {
  let node: TestNode;
  let vendorId: number;

  beforeAll(async () => {
    node = await startTestNode();
    vendorId = (await node.addVendor('First Password Café')).vendorId;
  });

  afterAll(async () => {
    await node?.close();
  });

  async function linkSession(email: string): Promise<string> {
    const { signInToken } = await addOwner(node.engine, { vendorId, email });
    const reply = await http(`${node.url}/backoffice/sign-in/link`, { method: 'POST', body: { token: signInToken } });
    expect(reply.status).toBe(200);
    return reply.body.token as string;
  }

  it('sets the first password of an owner signed in by the link, who then signs in with it', async () => {
    const token = await linkSession('link.owner@example.com');
    expect((await staffCall(node, token, 'GET', '/backoffice/me')).body.has_password).toBe(false);

    const short = await staffCall(node, token, 'POST', '/backoffice/me/password', { password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.code).toBe('weak_password');
    expect((await staffCall(node, token, 'GET', '/backoffice/me')).body.has_password).toBe(false);

    const set = await staffCall(node, token, 'POST', '/backoffice/me/password', { password: 'a long enough secret' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const me = await staffCall(node, token, 'GET', '/backoffice/me');
    expect(me.status).toBe(200);
    expect(me.body.has_password).toBe(true);
    expect(await signIn(node, 'link.owner@example.com', 'a long enough secret')).toMatch(/\S/);

    const again = await staffCall(node, token, 'POST', '/backoffice/me/password', { password: 'another secret here' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('password_already_set');
    expect(await signIn(node, 'link.owner@example.com', 'a long enough secret')).toMatch(/\S/);
  });

  it('refuses staff who have a password (409) and callers not signed in (401)', async () => {
    const owner = await ownerOf(node, vendorId);
    expect((await staffCall(node, owner.token, 'GET', '/backoffice/me')).body.has_password).toBe(true);
    const reply = await staffCall(node, owner.token, 'POST', '/backoffice/me/password', { password: 'a long enough secret' });
    expect(reply.status).toBe(409);
    expect(reply.body.code).toBe('password_already_set');
    expect((await staffCall(node, null, 'POST', '/backoffice/me/password', { password: 'a long enough secret' })).status).toBe(401);
  });
});
