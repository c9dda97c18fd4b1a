import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useAdminStrings } from '../../src/renderer/src/admin/strings';
import { auditChanges, auditVerb } from '../../src/renderer/src/admin/audit-lines';

// An audit entry read field by field (AuditScreen), as the node records changes: each object's
// fields before and after, null before a creation and after a removal.
describe('audit entries in words', () => {
  it('lists only the fields a change moved, in the node’s order, values as text', () => {
    expect(auditChanges({ name: 'Harbour', city: 'Springfield', open: true }, { name: 'Harbour', city: 'Quito', open: false })).toEqual([
      { field: 'city', before: 'Springfield', after: 'Quito' },
      { field: 'open', before: 'true', after: 'false' },
    ]);
    expect(auditChanges({ caps: { quick_pay: 5000 } }, { caps: { quick_pay: 2500 } })).toEqual([{ field: 'caps', before: '{"quick_pay":5000}', after: '{"quick_pay":2500}' }]);
  });

  it('a creation lists what it set, a removal what it took, a field set to null or added says so', () => {
    expect(auditChanges(null, { role: 'cashier', label: 'Till 1', store_id: null })).toEqual([
      { field: 'role', before: null, after: 'cashier' },
      { field: 'label', before: null, after: 'Till 1' },
    ]);
    expect(auditChanges({ url: 'https://hooks.example/a' }, null)).toEqual([{ field: 'url', before: 'https://hooks.example/a', after: null }]);
    expect(auditChanges({ reason: 'fraud' }, { reason: null, note: 'cleared' })).toEqual([
      { field: 'reason', before: 'fraud', after: null },
      { field: 'note', before: null, after: 'cleared' },
    ]);
  });

  it('leaves out the row’s bookkeeping the entry already says: ids, the program, when it was made and changed', () => {
    const reward = { id: 4795064698011671, publicId: 'rwd_py14', vendorId: 4795064698011649, currencyPublicId: 'curr_2fpp', name: 'Pastry box', cost: 120, createdAt: 1796598575595, updatedAt: 1796598575595 };
    expect(auditChanges(null, reward)).toEqual([
      { field: 'currencyPublicId', before: null, after: 'curr_2fpp' },
      { field: 'name', before: null, after: 'Pastry box' },
      { field: 'cost', before: null, after: '120' },
    ]);
    expect(auditChanges({ status: 'ACTIVE', updatedAt: 1796598563798 }, { status: 'INACTIVE', updatedAt: 1796598572305 })).toEqual([{ field: 'status', before: 'ACTIVE', after: 'INACTIVE' }]);
    expect(auditChanges({ id: 7, created_at: 1, updated_at: 1, vendor_id: 2, store_id: 9 }, { id: 7, created_at: 1, updated_at: 5, vendor_id: 2, store_id: 10 })).toEqual([{ field: 'store_id', before: '9', after: '10' }]);
  });

  it('a change that moved nothing lists nothing; values that are not objects are one line', () => {
    expect(auditChanges({ a: 1 }, { a: 1 })).toEqual([]);
    expect(auditChanges(null, null)).toEqual([]);
    expect(auditChanges(3, 4)).toEqual([{ field: '', before: '3', after: '4' }]);
  });

  it('says every action the node records in words, in English and Spanish; an unknown one keeps its code', () => {
    for (const action of ['store.update', 'api_key.revoke', 'customer.block', 'payment_exception.refund', 'staff.reinvite', 'program.update_offline_caps', 'access_token.revoke']) {
      for (const language of ['en', 'es'] as const) {
        const said = useAdminStrings.all[language].auditAction(auditVerb(action), action);
        expect(said, `${language} ${action}`).not.toBe(action);
      }
    }
    // Seventeenth round: member imports and downloads showed their codes. Every action the core
    // writes as a literal is read from the sources, so a new one without words fails here.
    const sources = readdirSync('src/core', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const written = new Set(sources.flatMap((f) => [...readFileSync(`src/core/${f}`, 'utf8').matchAll(/\baction: '([a-z_]+\.[a-z_]+)'/g)].map((m) => m[1]!)));
    expect(written.size).toBeGreaterThan(20);
    for (const action of written) {
      for (const language of ['en', 'es'] as const) expect(useAdminStrings.all[language].auditAction(auditVerb(action), action), `${language} ${action}`).not.toBe(action);
    }
    expect(useAdminStrings.all.en.auditAction(auditVerb('store.update'), 'store.update')).toBe('Changed');
    expect(useAdminStrings.all.es.auditAction(auditVerb('api_key.issue'), 'api_key.issue')).toBe('Emisión');
    expect(useAdminStrings.all.en.auditAction(auditVerb('thing.frobnicate'), 'thing.frobnicate')).toBe('thing.frobnicate');
    expect(useAdminStrings.all.en.auditObject('earning_rule')).toBe('Earning rule');
    expect(useAdminStrings.all.es.auditObject('store')).toBe('Tienda');
  });
});
