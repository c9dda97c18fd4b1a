import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAdminApi } from '../../src/renderer/src/admin/admin-api';
import { createRequester } from '../../src/renderer/src/api/client';
import { retryAfterSeconds } from '../../src/renderer/src/api/node-messages-es';
import { languageStore } from '../../src/renderer/src/i18n/language-store';
import { nodeApiFailureOf } from '../support/node-api-failure';
import { startTestNode, type TestNode } from '../support/test-node';

// A 429 rate_limited on a Spanish screen: the node's sentence carries the wait ("Please wait 408
// seconds"), so it is never the code's own message and the fixed table skipped it (English shown).
// The wait is the reply's Retry-After: the refusal is said in Spanish with it.

let node: TestNode;
beforeAll(async () => {
  vi.stubGlobal('document', { documentElement: { lang: 'en' } });
  // One sign-in per email in the window: the second is refused 429 with Retry-After.
  node = await startTestNode({ rateLimits: { staffSignIn: { perClient: 1, perAccount: 1, windowSeconds: 900 } } });
});
afterAll(async () => {
  vi.unstubAllGlobals();
  await node?.close();
});
afterEach(() => {
  languageStore.setState({ language: 'en' });
});

const answering =
  (status: number, body: unknown, headers: Record<string, string> = {}): typeof fetch =>
  async () =>
    new Response(JSON.stringify(body), { status, headers });

describe('too many requests on a Spanish screen', () => {
  it('the back office’s sign-in refused 429 says the wait in Spanish, as many seconds as the node’s Retry-After', async () => {
    const api = createAdminApi(node.url, null);
    await nodeApiFailureOf(api.signIn('nadie@example.com', 'wrong-password-1'));
    const english = await nodeApiFailureOf(api.signIn('nadie@example.com', 'wrong-password-2'));
    expect(english).toMatchObject({ status: 429, code: 'rate_limited' });
    const seconds = /Please wait (\d+) seconds/.exec(english.message)?.[1];
    expect(seconds, english.message).toBeDefined();

    languageStore.setState({ language: 'es' });
    const spanish = await nodeApiFailureOf(api.signIn('nadie@example.com', 'wrong-password-3'));
    expect(spanish).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(spanish.message).toMatch(/^Demasiadas solicitudes\. Espere \d+ segundos y vuelva a intentarlo\.$/);
    // The same wait as the node's (a second may have passed between the two calls).
    const wait = Number(/Espere (\d+)/.exec(spanish.message)?.[1]);
    expect(Math.abs(wait - Number(seconds))).toBeLessThanOrEqual(1);
  });

  it('uses the header, not the sentence; one second is singular; without a readable header it is the code’s Spanish', async () => {
    languageStore.setState({ language: 'es' });
    const connection = { baseUrl: 'http://node', credential: null };
    const body = { code: 'rate_limited', message: 'Too many requests. Please wait 408 seconds and try again.' };
    const withHeader = await nodeApiFailureOf(createRequester(connection, answering(429, body, { 'Retry-After': '408' }))('/x'));
    expect(withHeader.message).toBe('Demasiadas solicitudes. Espere 408 segundos y vuelva a intentarlo.');
    const one = await nodeApiFailureOf(createRequester(connection, answering(429, body, { 'Retry-After': '1' }))('/x'));
    expect(one.message).toBe('Demasiadas solicitudes. Espere 1 segundo y vuelva a intentarlo.');
    // Another origin's page cannot read Retry-After (not exposed by CORS): Spanish still, without the number.
    const noHeader = await nodeApiFailureOf(createRequester(connection, answering(429, body))('/x'));
    expect(noHeader.message).toBe('Demasiadas solicitudes. Espere un momento y vuelva a intentarlo.');
    // English screens keep the node's sentence.
    languageStore.setState({ language: 'en' });
    const english = await nodeApiFailureOf(createRequester(connection, answering(429, body, { 'Retry-After': '408' }))('/x'));
    expect(english.message).toBe(body.message);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterSeconds('408')).toBe(408);
    expect(retryAfterSeconds(' 12 ')).toBe(12);
    expect(retryAfterSeconds(null)).toBeNull();
    expect(retryAfterSeconds('soon')).toBeNull();
    const now = Date.parse('2026-12-05T18:00:00Z');
    expect(retryAfterSeconds('Sat, 05 Dec 2026 18:01:30 GMT', now)).toBe(90);
  });
});
