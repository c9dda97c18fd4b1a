import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forgetDraft, keepDraft, keptDraft } from '../../src/renderer/src/cashier/draft-keeper';
import { emptyDraft } from '../../src/renderer/src/cashier/order-draft';

// The kept order drafts' rules (draft-keeper.ts) beside the browser run of
// test/e2e/cashier-order-draft-kept: a tab's sessionStorage as Chromium's behaves (strings in,
// strings out; setItem may throw when full).
class TabStorage {
  readonly items = new Map<string, string>();
  full = false;
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    if (this.full) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    this.items.set(key, String(value));
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

const HOUR = 3_600_000;
const typed = { ...emptyDraft('261206-101500-ABCDEF'), subtotal: '12.50' };
let storage: TabStorage;

beforeEach(() => {
  storage = new TabStorage();
  (globalThis as { sessionStorage?: unknown }).sessionStorage = storage;
});
afterEach(() => {
  delete (globalThis as { sessionStorage?: unknown }).sessionStorage;
});

describe('order drafts kept in the tab', () => {
  it('keeps a typed draft per session, and none for a form with nothing typed', () => {
    keepDraft('s1', typed, 0);
    keepDraft('s2', emptyDraft('261206-101500-XYZXYZ'), 0);
    expect(keptDraft('s1', 1)).toEqual(typed);
    expect(keptDraft('s2', 1)).toBeNull();
    keepDraft('s1', emptyDraft(typed.receiptNumber), 2);
    expect(storage.items.size).toBe(0);
  });

  it('forgets a draft after 12 hours, and drops such drafts at the next write', () => {
    keepDraft('old', typed, 0);
    expect(keptDraft('old', 12 * HOUR - 1)).toEqual(typed);
    expect(keptDraft('old', 12 * HOUR)).toBeNull();
    keepDraft('new', typed, 13 * HOUR);
    expect(Object.keys(JSON.parse(storage.items.get('punchcard.order-drafts')!) as object)).toEqual(['new']);
  });

  it('forgets one session’s draft and keeps the others’', () => {
    keepDraft('s1', typed, 0);
    keepDraft('s2', typed, 0);
    forgetDraft('s1', 1);
    expect(keptDraft('s1', 1)).toBeNull();
    expect(keptDraft('s2', 1)).toEqual(typed);
  });

  it('reads damaged or foreign storage as nothing kept, and a full storage as nothing to keep', () => {
    storage.items.set('punchcard.order-drafts', '{not json');
    expect(keptDraft('s1')).toBeNull();
    storage.items.set('punchcard.order-drafts', JSON.stringify({ s1: { draft: { subtotal: '5', items: 'latte' }, at: Date.now() } }));
    expect(keptDraft('s1')).toBeNull();
    storage.items.clear();
    storage.full = true;
    expect(() => keepDraft('s1', typed)).not.toThrow();
    expect(keptDraft('s1')).toBeNull();
  });
});
