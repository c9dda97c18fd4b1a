import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createRequester } from '../../src/renderer/src/api/client';
import { createTerminalApi } from '../../src/renderer/src/api/terminal-api';
import { languageStore } from '../../src/renderer/src/i18n/language-store';
import { ServiceError } from '../../src/shared/errors';
import { nodeApiFailureOf } from '../support/node-api-failure';
import { startTestNode, type TestNode } from '../support/test-node';

// A Spanish screen shows the Spanish of the refusals a counter meets when the node sent the code's
// own message, and a message the node wrote for the case as it came. Against a real node.

let node: TestNode;
beforeAll(async () => {
  vi.stubGlobal('document', { documentElement: { lang: 'en' } });
  node = await startTestNode();
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await node?.close();
});
afterEach(() => {
  languageStore.setState({ language: 'en' });
});

describe('the node’s refusals on a Spanish screen', () => {
  it('are in Spanish when the node sent the code’s own message, and as the node wrote them otherwise', async () => {
    const v = await node.addVendor();
    const api = createTerminalApi(createRequester({ baseUrl: node.url, credential: null }), v.apiKey);
    const stranger = () => nodeApiFailureOf(api.checkIn('nobody@nowhere.example'));
    expect((await stranger()).message).toBe(new ServiceError('customer_not_found').message);

    languageStore.setState({ language: 'es' });
    expect(await stranger()).toMatchObject({ code: 'customer_not_found', message: 'Ningún cliente coincide con esa tarjeta, teléfono, correo o código. Revíselo o registre al cliente.' });
    const badPhone = await nodeApiFailureOf(api.register({ phone_number: { number: '12' } }));
    expect(badPhone).toMatchObject({ code: 'invalid_phone', message: 'El número de teléfono no es válido.' });
    // A message written for the case (which field, what rule) is shown as the node wrote it.
    const written = await nodeApiFailureOf(api.register({ email: 'ana@example.com', first_name: 'x'.repeat(101) }));
    expect(written.code).toBe('validation_failed');
    expect(written.message).toMatch(/first_name/);
  });
});
