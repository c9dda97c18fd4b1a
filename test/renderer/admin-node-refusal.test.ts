import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../../src/shared/errors';
import { legacyEnvelope, resourceEnvelope } from '../../src/server/errors/envelopes';
import { createRequester, NodeApiError } from '../../src/renderer/src/api/client';
import { createOrdersApi } from '../../src/renderer/src/api/orders-api';
import { nodeApiFailureOf } from '../support/node-api-failure';
import { languageStore } from '../../src/renderer/src/i18n/language-store';
import { adminFieldLabels, describeNodeSentence, refusalText } from '../../src/renderer/src/admin/node-refusal';

// The node's validation sentences (src/server/errors/validation-message.ts and the use cases'
// checks) as the back office's forms show them: the form's label, the screen's language.

const en = adminFieldLabels('en');
const es = adminFieldLabels('es');
const refused = (message: string) => new NodeApiError(message, { status: 400, code: 'validation_failed' });

beforeAll(() => vi.stubGlobal('document', { documentElement: { lang: 'en' } }));
afterAll(() => vi.unstubAllGlobals());

describe('admin refusal sentences', () => {
  afterEach(() => languageStore.setState({ language: 'en' }));

  const cases: Array<[string, string, string]> = [
    ['per_amount must be greater than 0.', 'Per amount spent must be more than 0.', '«Por importe gastado» debe ser mayor que 0.'],
    ['name must not be empty.', 'Name must not be empty.', '«Nombre» no puede estar vacío.'],
    ['country is required.', 'Country is required.', '«País» es obligatorio.'],
    ['label must be at most 100 characters.', 'Label must be at most 100 characters.', '«Etiqueta» debe tener como máximo 100 caracteres.'],
    ['window_days must be at least 1.', 'Window must be at least 1.', '«Ventana» debe ser al menos 1.'],
    ['cost must be at most 1000000.', 'Cost must be at most 1000000.', '«Costo» debe ser como máximo 1000000.'],
    ['events must have at least 1 item.', 'Events must have at least 1 item.', '«Eventos» debe tener al menos 1 elemento.'],
    ['status must be one of: active, inactive.', 'Status must be one of: active, inactive.', '«Estado» debe ser uno de: active, inactive.'],
    ['points must be an integer.', 'Points must be a whole number.', '«Puntos» debe ser un número entero.'],
    [
      'amount must be at most 10,000,000.00 USD either way.',
      'Amount must be at most 10,000,000.00 USD either way.',
      '«Importe» debe ser como máximo 10.000.000,00 USD, en más o en menos.',
    ],
    [
      'hours.mon must be "closed" or ranges like "08:00-12:00,14:00-18:00".',
      'Opening hours: Monday must be “closed” or ranges like 08:00-12:00,14:00-18:00.',
      '«Horario: Lunes» debe ser «closed» o franjas como 08:00-12:00,14:00-18:00.',
    ],
  ];
  it.each(cases)('%s', (node, english, spanish) => {
    expect(describeNodeSentence(node, en, 'en')).toBe(english);
    expect(describeNodeSentence(node, es, 'es')).toBe(spanish);
  });

  it('leaves a sentence of another shape, an unknown field and other refusals as they came', () => {
    expect(describeNodeSentence('name takes the days mon, tue; "x" is not one.', en, 'en')).toBeNull();
    expect(describeNodeSentence('widget must not be empty.', en, 'en')).toBeNull();
    languageStore.setState({ language: 'es' });
    expect(refusalText(refused('Store 9 has no such thing.'))).toBe('Store 9 has no such thing.');
    expect(refusalText(new NodeApiError('name must not be empty.', { status: 409, code: 'conflict' }))).toBe('name must not be empty.');
    expect(refusalText(refused('per_amount must be greater than 0.'))).toBe('«Por importe gastado» debe ser mayor que 0.');
  });

  // The node's envelopes as the server builds them (src/server/errors/envelopes.ts), answered over a fetch.
  const refusal = new ServiceError('validation_failed', 'per_amount must be greater than 0.', 'per_amount');
  const answering =
    (status: number, body: unknown): typeof fetch =>
    async () =>
      new Response(JSON.stringify(body), { status });
  const failureOf = (status: number, body: unknown) => nodeApiFailureOf(createRequester({ baseUrl: 'http://node', credential: null }, answering(status, body))('/x'));

  it('keeps the field the reply names, from either envelope and from a success-false order reply', async () => {
    expect(await failureOf(400, resourceEnvelope(refusal, 'r1'))).toMatchObject({ code: 'validation_failed', field: 'per_amount' });
    expect(await failureOf(400, legacyEnvelope(refusal, 'r1'))).toMatchObject({ code: 'validation_failed', field: 'per_amount' });
    // A reply that names no field (or a field that is not text) leaves it null.
    expect((await failureOf(400, resourceEnvelope(new ServiceError('validation_failed'), 'r1'))).field).toBeNull();
    expect((await failureOf(400, { code: 'validation_failed', message: 'x', field: 7 })).field).toBeNull();
    const orders = createOrdersApi(createRequester({ baseUrl: 'http://node', credential: null }, answering(200, { success: false, error: { code: 'insufficient_balance', message: 'Not enough.', field: 'quick_pay' } })), 'k');
    expect(await nodeApiFailureOf(orders.place({ receipt_number: 'R-1', subtotal: 1 }))).toMatchObject({ status: 422, code: 'insufficient_balance', field: 'quick_pay' });
  });

  it('labels the field the reply names, not a word guessed from the sentence', async () => {
    expect(refusalText(await failureOf(400, resourceEnvelope(refusal, null)))).toBe('Per amount spent must be more than 0.');
    languageStore.setState({ language: 'es' });
    expect(refusalText(await failureOf(400, legacyEnvelope(refusal, null)))).toBe('«Por importe gastado» debe ser mayor que 0.');
    languageStore.setState({ language: 'en' });
    // A field no word pattern would take for one (a header's name) is labelled all the same.
    expect(describeNodeSentence('Idempotency-Key must not be empty.', { 'Idempotency-Key': 'Retry key' }, 'en', 'Idempotency-Key')).toBe('Retry key must not be empty.');
    // A sentence about another input than the field named is left as the node wrote it.
    expect(refusalText(new NodeApiError('name must not be empty.', { status: 400, code: 'validation_failed', field: 'label' }))).toBe('name must not be empty.');
    expect(refusalText(new NodeApiError('constructor must not be empty.', { status: 400, code: 'validation_failed', field: 'constructor' }))).toBe('constructor must not be empty.');
    // With no field (no reply of this kind comes without one today), the sentence's first word stands in for it.
    expect(refusalText(refused('name must not be empty.'))).toBe('Name must not be empty.');
  });
});
