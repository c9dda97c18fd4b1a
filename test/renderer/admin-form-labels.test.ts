import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { NodeApiError } from '../../src/renderer/src/api/client';
import { languageStore } from '../../src/renderer/src/i18n/language-store';
import { formLabels, refusalText, withoutHint } from '../../src/renderer/src/admin/node-refusal';
import { useAdminStrings } from '../../src/renderer/src/admin/strings';

// A refusal about a field names it as the form in front of the reader does: the customer page has
// three reasons ("Reason for the adjustment", "Reason to block", "Who asked, and how"), each said
// without its "(required)" hint.

const tooLong = new NodeApiError('reason must be at most 1000 characters.', { status: 400, code: 'validation_failed', field: 'reason' });

beforeAll(() => vi.stubGlobal('document', { documentElement: { lang: 'en' } }));
afterAll(() => vi.unstubAllGlobals());

describe("a refusal names the field as the reader's form labels it", () => {
  afterEach(() => languageStore.setState({ language: 'en' }));

  it("the balance adjustment's reason, in English and in Spanish", () => {
    const en = useAdminStrings.all.en;
    expect(refusalText(tooLong, formLabels({ reason: en.adjustReason }))).toBe('Reason for the adjustment must be at most 1000 characters.');
    languageStore.setState({ language: 'es' });
    const es = useAdminStrings.all.es;
    expect(refusalText(tooLong, formLabels({ reason: es.adjustReason }))).toBe('«Motivo del ajuste» debe tener como máximo 1000 caracteres.');
  });

  it("the block's and the removal's reasons; other fields keep the back office's labels", () => {
    const en = useAdminStrings.all.en;
    expect(refusalText(tooLong, formLabels({ reason: en.blockReason }))).toBe('Reason to block must be at most 1000 characters.');
    expect(refusalText(tooLong, formLabels({ reason: en.removeReason }))).toBe('Who asked, and how must be at most 1000 characters.');
    const name = new NodeApiError('name must not be empty.', { status: 400, code: 'validation_failed', field: 'name' });
    expect(refusalText(name, formLabels({ reason: en.blockReason }))).toBe('Name must not be empty.');
  });

  it('a missing required field is said without the label’s "(required)"', () => {
    for (const language of ['en', 'es'] as const) {
      const t = useAdminStrings.all[language];
      for (const label of [t.blockReason, t.adjustReason, t.removeReason, t.reason]) {
        const said = t.fieldRequired(withoutHint(label));
        expect(said).not.toMatch(/\((required|obligatorio)\)/);
        expect(said).toContain(withoutHint(label));
      }
    }
    expect(useAdminStrings.all.en.fieldRequired(withoutHint(useAdminStrings.all.en.blockReason))).toBe('Reason to block is required.');
  });
});
