import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNodeApi, createRequester } from '../../src/renderer/src/api/client';
import { languageStore } from '../../src/renderer/src/i18n/language-store';
import { nodeApiFailureOf } from '../support/node-api-failure';

// The screens show a failed call's message as is: the node's own words when it sent some, else
// ours — and ours must follow the screen's language like every other text.

vi.stubGlobal('document', { documentElement: { lang: 'en' } });

afterEach(() => {
  languageStore.setState({ language: 'en' });
});

const refused: typeof fetch = async () => {
  throw new TypeError('Failed to fetch');
};
const answering =
  (status: number, text: string): typeof fetch =>
  async () =>
    new Response(text, { status });

describe('client messages', () => {
  it('are in Spanish on a Spanish screen', async () => {
    languageStore.setState({ language: 'es' });
    const connection = { baseUrl: 'http://node', credential: null };
    const down = await nodeApiFailureOf(createRequester(connection, refused)('/x'));
    expect(down).toMatchObject({ unreachable: true, message: 'El nodo de la tienda no respondió (Failed to fetch).' });
    expect(await nodeApiFailureOf(createRequester(connection, answering(502, ''))('/x'))).toMatchObject({ status: 502, message: 'El nodo respondió HTTP 502.' });
    expect((await nodeApiFailureOf(createRequester(connection, answering(200, '<html>'))('/x'))).message).toBe('El nodo respondió algo que no es JSON.');
    expect((await nodeApiFailureOf(createNodeApi(connection, answering(200, '{}')).health())).message).toMatch(/forma inesperada/);
  });

  it('keep the node’s own message', async () => {
    languageStore.setState({ language: 'es' });
    const body = JSON.stringify({ code: 'customer_not_found', message: 'No customer matches.' });
    const error = await nodeApiFailureOf(createRequester({ baseUrl: 'http://node', credential: null }, answering(404, body))('/x'));
    expect(error).toMatchObject({ status: 404, code: 'customer_not_found', message: 'No customer matches.' });
  });
});
