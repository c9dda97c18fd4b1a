import type { LanguageCode } from '../../shared/languages';
import { type Engine, transact, type VendorScope } from '../engine';
import { parseProgramLanguage } from './set-up-vendor';

/**
 * The program's language, set at `punchcard init` (from its country unless told), changed: what
 * customers' mail and content pages default to when a customer chose none, and the language the
 * screens open in. Customers who chose theirs keep it; what init named (currencies, tiers, the
 * counter) keeps its names, which the merchant renames where they are edited.
 */
export function changeProgramLanguage(engine: Engine, scope: VendorScope, input: string): Promise<{ before: string; after: LanguageCode }> {
  const language = parseProgramLanguage(input);
  return transact(engine, async (trx) => {
    const vendor = await trx.selectFrom('vendors').select('language').where('id', '=', scope.vendorId).executeTakeFirstOrThrow();
    if (vendor.language !== language) await trx.updateTable('vendors').set({ language, updated_at: engine.clock.now() }).where('id', '=', scope.vendorId).execute();
    return { before: vendor.language, after: language };
  });
}
