import { createElement, Fragment } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EventRefused } from '../../src/core/sync/central/event-refused';
import { englishMessage } from '../../src/core/sync/central/exception-english';
import { type SaidNames, saidInWords, subjectInWords } from '../../src/renderer/src/admin/ExceptionSaid';
import { useAdminStrings } from '../../src/renderer/src/admin/strings';
import { languageStore } from '../../src/renderer/src/i18n/language-store';
import { type EventRefusal, REFUSAL_WHYS, type RefusalWhy, SYNC_EXCEPTION_SAID_KEYS, type SyncExceptionSaid, type SyncExceptionSaidKey } from '../../src/shared/sync-exception-said';

// Fourteenth round: the chain page writes each exception's message in the screen's language from what
// central recorded it says. Every sentence central writes (each key) has a template in both languages
// with the same values in it, and the English one reads as central's own English text.

/** One of each sentence (the type makes a new key fail here until it has one). */
const SAMPLES: { [K in SyncExceptionSaidKey]: Extract<SyncExceptionSaid, { key: K }> } = {
  contact_of_other_program: { key: 'contact_of_other_program', params: { customer: 7 } },
  contact_kept: { key: 'contact_kept', params: { contact: 'phone', added: '+593991234567', customer: 7, held: '+593997654321' } },
  contact_held: { key: 'contact_held', params: { contact: 'passport', value: 'X123', holder: 8, customer: 7 } },
  node_restored: { key: 'node_restored', params: { from: 12, last: 40 } },
  void_repeated: { key: 'void_repeated', params: { receipt: 'R-9' } },
  offline_overdraft: { key: 'offline_overdraft', params: { currency: 'Stars', code: null, balance: -6, believed: 10, paid_back: null } },
  receipt_reused: { key: 'receipt_reused', params: { receipt: 'R-9', order: 5, renamed: 'R-9~3' } },
  sale_repeated: { key: 'sale_repeated', params: { receipt: 'R-9', order: 5, renamed: 'R-9~3' } },
  repeat_voided: { key: 'repeat_voided', params: { order: 6, receipt: 'R-9~3', node: 3 } },
  sale_in_other_currency: { key: 'sale_in_other_currency', params: { receipt: 'R-1', sold: null, digits: 2, subtotal: 1250, central: 'JPY' } },
  event_rejected: { key: 'event_rejected', params: { code: 'apply_failed', reason: 'central could not apply the event' } },
  customer_merged: { key: 'customer_merged', params: { contact: 'email', customer: 7 } },
  card_linked_twice: { key: 'card_linked_twice', params: { customer: 7, holder: 8 } },
  card_number_twice: { key: 'card_number_twice', params: { card: 4 } },
};

function written(said: SyncExceptionSaid, language: 'en' | 'es', names: Partial<SaidNames> = {}): string {
  // Amounts follow the language store (formatAmount); the sentence, the strings given.
  languageStore.setState({ language });
  const html = renderToStaticMarkup(createElement(Fragment, null, ...saidInWords(useAdminStrings.all[language], said, { customer: (id) => String(id), ...names })));
  return html.replaceAll('&#x27;', "'").replaceAll('&amp;', '&');
}

// The language store sets the page's lang attribute: a stand-in page for it here.
beforeAll(() => vi.stubGlobal('document', { documentElement: { lang: 'en' } }));
afterEach(() => languageStore.setState({ language: 'en' }));
afterAll(() => vi.unstubAllGlobals());

describe('sync exception messages in the screen’s language', () => {
  it('every key has a template in English and Spanish with the same values in it', () => {
    const en = useAdminStrings.all.en as unknown as Record<string, unknown>;
    const es = useAdminStrings.all.es as unknown as Record<string, unknown>;
    const names = (template: unknown) => [...new Set(String(template).match(/\{\w+\}/g) ?? [])].sort();
    for (const key of SYNC_EXCEPTION_SAID_KEYS) {
      expect(typeof en[`exceptionSaid_${key}`], key).toBe('string');
      expect(typeof es[`exceptionSaid_${key}`], key).toBe('string');
      expect(names(es[`exceptionSaid_${key}`]), key).toEqual(names(en[`exceptionSaid_${key}`]));
    }
    expect(Object.keys(SAMPLES).sort()).toEqual([...SYNC_EXCEPTION_SAID_KEYS].sort());
  });

  it.each(SYNC_EXCEPTION_SAID_KEYS.filter((key) => key !== 'offline_overdraft'))('%s reads in English as central wrote it', (key) => {
    expect(written(SAMPLES[key], 'en')).toBe(englishMessage(SAMPLES[key]));
  });

  it('in Spanish, every value is filled in and no English sentence is left', () => {
    for (const key of SYNC_EXCEPTION_SAID_KEYS) {
      const text = written(SAMPLES[key], 'es');
      expect(text, key).not.toMatch(/\{\w+\}/);
      if (key !== 'event_rejected') expect(text, key).not.toBe(englishMessage(SAMPLES[key]));
    }
    expect(written(SAMPLES.customer_merged, 'es')).toBe('registrado sin conexión con el correo del cliente 7; fusionado con él (ahora es un solo cliente, con los puntos y las visitas de ambos)');
    // Amounts as the back office writes them: a negative balance with its minus sign, points by the currency's name.
    expect(written(SAMPLES.offline_overdraft, 'es')).toBe('lo gastado en Stars antes de que los nodos se enteraran el uno del otro dejó un saldo de −6 Stars (la tienda creía que había 10 Stars disponible); se salda con los próximos abonos');
    expect(written({ key: 'offline_overdraft', params: { currency: 'Quick Pay', code: 'USD', balance: -1250, believed: null, paid_back: 500 } }, 'en')).toBe(
      'Quick Pay spent before the nodes heard of each other left a balance of −$12.50; settled from the next credits; central paid $5.00 back to the customer in the last 7 days, which the store may not have heard of when it sold: the customer may hold both',
    );
  });
});

// Seventeenth round: a sale a message names by central's id ("already used by order 8589934598")
// told a chain operator nothing; where the page knows its customer it reads "the sale to Bo" (the
// customer linked), and a node by its label. Without them, central's words stay.
describe('the sales and nodes a message names', () => {
  const names: Partial<SaidNames> = { order: (id) => (id === 5 ? 'the sale to Bo' : undefined), node: (id) => (id === 3 ? 'Till 2' : undefined) };
  it('names a sale by its customer and a node by its label where the page knows them', () => {
    expect(written(SAMPLES.receipt_reused, 'en', names)).toBe('receipt R-9 was already used by the sale to Bo; kept as R-9~3');
    expect(written(SAMPLES.sale_repeated, 'en', names)).toBe(
      'receipt R-9 came again with the sale to Bo (same customer, amounts and rewards within 12 hours: a till that sent it to two nodes); kept as R-9~3 and voided; the sale to Bo stands',
    );
    expect(written(SAMPLES.repeat_voided, 'en', names)).toBe('voided because its repeat, order 6 (R-9~3), was voided at Till 2: the cashier voided the sale');
    expect(written(SAMPLES.receipt_reused, 'es', { order: () => 'la venta a Bo' })).toBe('el recibo R-9 ya lo había usado la venta a Bo; se guardó como R-9~3');
  });

  it('keeps central’s id where it does not, in both languages', () => {
    expect(written(SAMPLES.receipt_reused, 'es')).toBe('el recibo R-9 ya lo había usado el pedido 5; se guardó como R-9~3');
    expect(written(SAMPLES.repeat_voided, 'es')).toBe('anulado porque su repetición, el pedido 6 (R-9~3), se anuló en el nodo 3: el cajero anuló la venta');
    expect(written(SAMPLES.sale_repeated, 'en', { order: () => undefined })).toBe(englishMessage(SAMPLES.sale_repeated));
  });
});

// Fifteenth round: a refused event's reason stayed central's English on the Spanish page ("foreign_store:
// orders 12 names another store"), and subjects ("order 12") too. Each refusal central writes has a
// sentence in both languages, the English one as central writes it; subjects read in the screen's words.
const REFUSALS: { [W in RefusalWhy]: Extract<EventRefusal, { why: W }> } = {
  table_not_accepted: { why: 'table_not_accepted', table: 'staff_accounts' },
  not_whole_number: { why: 'not_whole_number' },
  row_without_id: { why: 'row_without_id', table: 'orders' },
  invalid_entry: { why: 'invalid_entry', id: 41 },
  unknown_row: { why: 'unknown_row', table: 'cards', id: 42 },
  other_vendor_row: { why: 'other_vendor_row', table: 'user_vendors', id: 43 },
  other_store_row: { why: 'other_store_row', table: 'orders', id: 44 },
  names_other_store: { why: 'names_other_store', table: 'pos_sessions', id: 45 },
  other_program_currency: { why: 'other_program_currency', id: 46 },
  other_program_customer: { why: 'other_program_customer', id: 47 },
  not_applied: { why: 'not_applied', detail: 'disk I/O error' },
};

/** The exception central records for a refusal (apply-push.ts rejectEvent). */
function rejected(refusal: EventRefusal): SyncExceptionSaid {
  const refused = new EventRefused(refusal);
  return { key: 'event_rejected', params: { code: refused.code, reason: refused.message, ...refusal } };
}

describe('a refused event’s reason and the subjects, in the screen’s language', () => {
  it('every refusal reads in English as central wrote it, and in Spanish with no English left', () => {
    expect(Object.keys(REFUSALS).sort()).toEqual([...REFUSAL_WHYS].sort());
    for (const why of REFUSAL_WHYS) {
      const said = rejected(REFUSALS[why]);
      expect(written(said, 'en'), why).toBe(englishMessage(said));
      const spanish = written(said, 'es');
      expect(spanish, why).not.toMatch(/\{\w+\}/);
      expect(spanish, why).not.toBe(englishMessage(said));
    }
    expect(written(rejected(REFUSALS.other_store_row), 'es')).toBe('foreign_store: el pedido 44 es de otra tienda');
    expect(written(rejected(REFUSALS.unknown_row), 'es')).toBe('foreign_id: la central no conoce la tarjeta 42, que no se creó en este nodo');
    // A database's own words cannot be translated: they stay inside the Spanish sentence.
    expect(written(rejected(REFUSALS.not_applied), 'es')).toBe('apply_failed: la central no pudo aplicar el evento: disk I/O error');
  });

  it('keeps central’s English for a refusal recorded before, or one the screen does not know', () => {
    const before: SyncExceptionSaid = { key: 'event_rejected', params: { code: 'foreign_store', reason: 'orders 44 names another store' } };
    expect(written(before, 'es')).toBe('foreign_store: orders 44 names another store');
    const newer: SyncExceptionSaid = { key: 'event_rejected', params: { code: 'future_code', reason: 'something new', why: 'future_why' } };
    expect(written(newer, 'es')).toBe('future_code: something new');
  });

  it('writes subjects in the screen’s words, and one it does not know as stored', () => {
    const subject = (text: string, language: 'en' | 'es') => renderToStaticMarkup(createElement(Fragment, null, subjectInWords(useAdminStrings.all[language], text)));
    expect(subject('order 12', 'es')).toBe('pedido 12');
    expect(subject('card 4', 'es')).toBe('tarjeta 4');
    expect(subject('event 7 (local.write)', 'es')).toBe('evento 7 (local.write)');
    expect(subject('event 7', 'es')).toBe('evento 7');
    expect(subject('order 12', 'en')).toBe('order 12');
    expect(subject('event 7 (local.write)', 'en')).toBe('event 7 (local.write)');
    expect(subject('node 3', 'es')).toBe('node 3');
  });
});

