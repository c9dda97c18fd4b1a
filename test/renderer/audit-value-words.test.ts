import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditChanges } from '../../src/renderer/src/admin/audit-lines';
import { type AuditCurrency, auditValueWriter } from '../../src/renderer/src/admin/audit-value-words';
import { languageStore } from '../../src/renderer/src/i18n/language-store';

// Sixteenth round: the audit log's values as a merchant reads them — money in the entry's currency
// in the screen's language, points by their currency's name, known codes in words — and what the
// screen cannot place (an unknown field or value, an amount whose entry names no currency) as recorded.

const CURRENCIES = new Map<string, AuditCurrency>([
  ['curr_usd', { code: 'USD', name: 'Quick pay (USD)' }],
  ['curr_eur', { code: 'EUR', name: 'Saldo (EUR)' }],
  ['curr_pts', { code: null, name: 'Stars' }],
]);

function lines(entry: { object_type: string; before: unknown; after: unknown }, language: 'en' | 'es'): string[] {
  // Amounts follow the language store (formatAmount), words the language given.
  languageStore.setState({ language });
  return auditChanges(entry.before, entry.after, auditValueWriter(entry, CURRENCIES, language)).map((c) => `${c.field}: ${c.before ?? '—'} → ${c.after ?? '—'}`);
}

beforeAll(() => vi.stubGlobal('document', { documentElement: { lang: 'en' } }));
afterEach(() => languageStore.setState({ language: 'en' }));
afterAll(() => vi.unstubAllGlobals());

describe('audit values in words', () => {
  it('writes a balance adjustment’s amounts as money in its currency, and points by name', () => {
    const adjust = { object_type: 'customer', before: { currency: 'curr_usd', balance: 0 }, after: { currency: 'curr_usd', balance: 1250, amount: 1250, reason: 'Goodwill', ledger_entry: 9 } };
    expect(lines(adjust, 'en')).toEqual(['balance: $0.00 → $12.50', 'amount: — → $12.50', 'reason: — → Goodwill', 'ledger_entry: — → 9']);
    const euros = { ...adjust, before: { currency: 'curr_eur', balance: 0 }, after: { currency: 'curr_eur', balance: 1250 } };
    expect(lines(euros, 'es')).toEqual(['balance: 0,00\u00a0€ → 12,50\u00a0€']);
    expect(lines(euros, 'en')).toEqual(['balance: €0.00 → €12.50']);
    const points = { object_type: 'customer', before: { currency: 'curr_pts', balance: 5 }, after: { currency: 'curr_pts', balance: -1200, amount: -1205 } };
    expect(lines(points, 'en')).toEqual(['balance: 5 Stars → −1,200 Stars', 'amount: — → −1,205 Stars']);
  });

  it('takes the currency a pay-back names before only, a charge’s ISO code, and a leaving member’s balances each in theirs', () => {
    const payBack = { object_type: 'customer', before: { currency: 'curr_usd', balance: 2000 }, after: { balance: 1200, amount: 800, method: 'cash' } };
    expect(lines(payBack, 'en')).toEqual(['currency: Quick pay (USD) → —', 'balance: $20.00 → $12.00', 'amount: — → $8.00', 'method: — → Cash']);
    expect(lines(payBack, 'es').at(-1)).toBe('method: — → Efectivo');
    const charge = { object_type: 'payment_exception', before: { status: 'open', kind: 'reload_refused', amount: 2500, currency: 'USD' }, after: { status: 'refunded', resolution: 'refund' } };
    expect(lines(charge, 'en')).toEqual(['status: Open → Refunded', 'kind: Reload refused after the charge → —', 'amount: $25.00 → —', 'currency: USD → —', 'resolution: — → Refunded']);
    const spanish = lines(charge, 'es');
    expect([spanish[0], spanish[1], spanish[4]]).toEqual(['status: Abierta → Devuelta', 'kind: Recarga rechazada tras el cobro → —', 'resolution: — → Reembolso']);
    expect(spanish[2]).toMatch(/^amount: .*25[.,]00.* → —$/);
    const removed = { object_type: 'customer', before: { member: true, balances: [{ currency: 'curr_usd', amount: 350 }, { currency: 'curr_pts', amount: 40 }] }, after: { member: false } };
    expect(lines(removed, 'en')).toEqual(['member: true → false', 'balances: $3.50, 40 Stars → —']);
  });

  it('writes roles and statuses in words in both languages, by the object they belong to', () => {
    const staff = { object_type: 'staff', before: { role: 'manager', status: 'active' }, after: { role: 'owner', status: 'disabled' } };
    expect(lines(staff, 'en')).toEqual(['role: Manager → Owner', 'status: Active → Disabled']);
    expect(lines(staff, 'es')).toEqual(['role: Gerente → Propietario', 'status: Activo → Desactivado']);
    expect(lines({ object_type: 'store', before: { status: 'active' }, after: { status: 'inactive' } }, 'es')).toEqual(['status: Activa → Inactiva']);
    expect(lines({ object_type: 'tier', before: { status: 'ACTIVE' }, after: { status: 'ARCHIVED' } }, 'es')).toEqual(['status: Activo → Archivado']);
    expect(lines({ object_type: 'sync_exception', before: { kind: 'offline_overdraft', resolved: false }, after: { resolved: true } }, 'en')[0]).toBe('kind: Offline overdraft → —');
  });

  it('leaves as recorded what it cannot place: no currency, an unknown currency, field or value', () => {
    // A pay-back finished before the node recorded its currency: minor units, as stored.
    expect(lines({ object_type: 'customer', before: { payback: 4, status: 'refunding' }, after: { payback: 4, status: 'paid', amount_paid: 800, returned: 0 } }, 'en')).toEqual([
      'status: Refunding → Paid',
      'amount_paid: — → 800',
      'returned: — → 0',
    ]);
    expect(lines({ object_type: 'customer', before: { currency: 'curr_gone', balance: 0 }, after: { currency: 'curr_gone', balance: 99 } }, 'en')).toEqual(['balance: 0 → 99']);
    expect(lines({ object_type: 'staff', before: { role: 'auditor', colour: 'red' }, after: { role: 'owner', colour: 'blue' } }, 'en')).toEqual(['role: auditor → Owner', 'colour: red → blue']);
    expect(lines({ object_type: 'webhook', before: { status: 'active' }, after: { status: 'paused' } }, 'en')).toEqual(['status: active → paused']);
  });
});
