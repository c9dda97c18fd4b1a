import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { NodeApiError } from '../../src/renderer/src/api/client';
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
    ['per_amount must be greater than 0.', 'Per amount spent must be more than 0.', '«Por monto gastado» debe ser mayor que 0.'],
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
      '«Monto» debe ser como máximo 10.000.000,00 USD, en más o en menos.',
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
    expect(refusalText(refused('per_amount must be greater than 0.'))).toBe('«Por monto gastado» debe ser mayor que 0.');
  });
});
