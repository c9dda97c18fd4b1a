import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mainViewAfterSignOut } from '../../src/renderer/src/app/main-view-after-sign-out';
import { viewStore } from '../../src/renderer/src/app/view-store';
import { createSessionStore } from '../../src/renderer/src/session/session-store';
import { ServiceError } from '../../src/shared/errors';
import { startTestNode, type TestNode } from '../support/test-node';

// A screen whose event stream the node refuses asks again whether its key still works (App.tsx):
// a key the node no longer takes (a node restarted with new keys, a key revoked in the back office)
// signs the screen out with the node's message, instead of "retrying" for ever; a node that still
// takes it leaves the screen as it is. Against a real node over HTTP.

let node: TestNode;
beforeAll(async () => {
  // The language store marks the page's language (a browser's document) when the node suggests one.
  vi.stubGlobal('document', { documentElement: { lang: '' } });
  node = await startTestNode();
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await node?.close();
});

describe('the screen asks again when its event stream is refused', () => {
  it('stays ready while the key works, and signs out with the node’s message once the key is revoked', async () => {
    const v = await node.addVendor();
    const session = createSessionStore({ punchcard: { nodeUrl: node.url, role: 'cashier', credential: v.apiKey }, location: { origin: node.url } } as never, fetch);
    await session.getState().resume();
    expect(session.getState().phase).toBe('ready');

    await session.getState().recheck();
    expect(session.getState().phase).toBe('ready');

    await node.engine.db.updateTable('api_keys').set({ revoked_at: node.clock.now() }).where('vendor_id', '=', v.vendorId).where('role', '=', 'cashier').execute();
    await session.getState().recheck();
    expect(session.getState()).toMatchObject({ phase: 'signed-out', terminal: null, api: null, error: new ServiceError('invalid_api_key').message });
  });

  it('a screen the node signs out while on Settings starts on its own screen at the next sign-in', async () => {
    const v = await node.addVendor();
    const session = createSessionStore({ punchcard: { nodeUrl: node.url, role: 'cashier', credential: v.apiKey }, location: { origin: node.url } } as never, fetch);
    const stop = mainViewAfterSignOut(session);
    await session.getState().resume();
    viewStore.getState().show('settings');
    await session.getState().recheck();
    expect(viewStore.getState().view).toBe('settings');

    await node.engine.db.updateTable('api_keys').set({ revoked_at: node.clock.now() }).where('vendor_id', '=', v.vendorId).where('role', '=', 'cashier').execute();
    await session.getState().recheck();
    expect(session.getState().phase).toBe('signed-out');
    expect(viewStore.getState().view).toBe('main');
    stop();
  });
});
