import { describe, expect, it } from 'vitest';
import { useAdminStrings } from '../../src/renderer/src/admin/strings';
import { SYNC_EXCEPTION_KINDS } from '../../src/shared/sync-exception-kinds';

// Every kind of sync exception central records (recordSyncException takes only these) has words in
// the back office, in both languages: a kind without them showed its code to the owner.

describe('sync exception kinds in the back office', () => {
  it.each(['en', 'es'] as const)('are named in words (%s)', (language) => {
    const strings = useAdminStrings.all[language] as unknown as Record<string, unknown>;
    const missing = SYNC_EXCEPTION_KINDS.filter((kind) => typeof strings[`exceptionKind_${kind}`] !== 'string' || strings[`exceptionKind_${kind}`] === '');
    expect(missing).toEqual([]);
  });

  // Thirteenth round, a store's day offline played: the chain page named each kind and quoted
  // central's sentence, and never said what staff should do about it (or that nothing is needed).
  it.each(['en', 'es'] as const)('say what to do about each kind (%s)', (language) => {
    const strings = useAdminStrings.all[language] as unknown as Record<string, unknown>;
    const missing = SYNC_EXCEPTION_KINDS.filter((kind) => typeof strings[`exceptionAdvice_${kind}`] !== 'string' || strings[`exceptionAdvice_${kind}`] === '');
    expect(missing).toEqual([]);
  });
});
