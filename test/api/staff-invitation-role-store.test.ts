import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerOf, staffCall } from '../support/backoffice';
import { type Mailbox, startMailbox } from '../support/mailbox';
import { startTestNode, type TestNode } from '../support/test-node';

// A staff invitation through a real SMTP server says the role it is for and, for a store manager,
// the store, in the program's language: it said only "invited you to manage Café Luna".

let node: TestNode;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  node = await startTestNode({ messaging: { smtpUrl: mailbox.url } });
});

afterAll(async () => {
  await node?.close();
  await mailbox?.close();
});

/** Invites `email` as `role` (a store manager to the program's first store); the mail's text and the store's name. */
async function invite(vendorName: string, language: string, email: string, role: string): Promise<{ text: string; store: string }> {
  const { vendorId } = await node.addVendor(vendorName);
  await node.engine.db.updateTable('vendors').set({ language }).where('id', '=', vendorId).execute();
  const owner = await ownerOf(node, vendorId);
  const store = await node.engine.db.selectFrom('stores').select(['id', 'name']).where('vendor_id', '=', vendorId).executeTakeFirstOrThrow();
  const invited = await staffCall(node, owner.token, 'POST', '/backoffice/staff', { email, name: 'Ana', role, store_id: role === 'store_manager' ? store.id : null });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  await node.messaging.drain();
  const mail = await mailbox.waitFor((m) => m.to.includes(email));
  return { text: mail.text.replace(/\s+/g, ' '), store: store.name };
}

describe('staff invitation: the role and the store', () => {
  it('a manager, in English', async () => {
    const { text } = await invite('Café Luna', 'en', `ana.m.${Date.now()}@cafeluna.test`, 'manager');
    expect(text).toContain('invited you to manage Café Luna as a manager.');
  });

  it('a store manager, in English, names the store', async () => {
    const { text, store } = await invite('Café Sol', 'en', `ana.s.${Date.now()}@cafesol.test`, 'store_manager');
    expect(text).toContain(`invited you to manage Café Sol as the store manager of ${store}.`);
  });

  it('a store manager, in Spanish, names the store', async () => {
    const { text, store } = await invite('Café Mar', 'es', `ana.e.${Date.now()}@cafemar.test`, 'store_manager');
    expect(text).toContain(`le invitó a administrar Café Mar como gerente de la tienda ${store}.`);
  });
});
