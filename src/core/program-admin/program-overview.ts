import { CONTENT_SLUGS } from '../../shared/schemas/consumer';
import type { ContentPage } from '../content/content-page';
import { getVendorContent } from '../content/get-content';
import type { CurrencyRecord } from '../currencies/currency';
import { listCurrencies } from '../currencies/list-currencies';
import { type Engine, ownsProgramData } from '../engine';
import { programData } from '../program-cache/program-data';
import type { EarningRuleRecord } from '../rules/earning/earning-rule';
import { listEarningRules } from '../rules/earning/list-earning-rules';
import { getProgramSettings } from '../rules/settings/get-program-settings';
import type { ProgramSettingsRecord } from '../rules/settings/program-settings';
import type { SpendingRuleRecord } from '../rules/spending/spending-rule';
import { listSpendingRules } from '../rules/spending/list-spending-rules';
import type { TierRecord } from '../rules/tiers/tier';
import { listTiers } from '../rules/tiers/list-tiers';
import { getOfflinePolicy, type OfflinePolicy } from '../sync/central/offline-policy';

/** The languages the back office edits content pages in (the screens' own). */
export const CONTENT_LANGUAGES = ['en', 'es'] as const;

/**
 * Where offline caps stand on this node: set here (central), received from central and applied
 * while offline (a paired store), or not applicable (a standalone store never sells offline).
 */
export type OfflineCapsApply = 'set_here' | 'from_central' | 'not_applicable';

export interface ProgramOverview {
  editable: boolean;
  currencies: CurrencyRecord[];
  /** The currency quick pay is held in (its public id), so the screens can say what pausing it stops. */
  quickPayCurrency: string | null;
  /** The vendor's country (ISO 3166-1 alpha-2): amounts are written as it writes them. */
  country: string;
  /** The program's language (en, es): what customers' mail, pages and the screens default to. */
  language: string;
  earningRules: EarningRuleRecord[];
  rewards: SpendingRuleRecord[];
  tiers: TierRecord[];
  settings: ProgramSettingsRecord;
  offlineCaps: OfflinePolicy & { apply: OfflineCapsApply };
  content: ContentPage[];
}

/** Everything the program screens show, read with the bearer API's own use cases (100 of each at most). */
export async function programOverview(engine: Engine, vendorId: number, role: 'central' | 'store'): Promise<ProgramOverview> {
  const scope = { vendorId };
  const all = { limit: 100, sort: 'date_created', order: 'asc' };
  const content: ContentPage[] = [];
  for (const slug of CONTENT_SLUGS) for (const language of CONTENT_LANGUAGES) content.push(await getVendorContent(engine, { vendorId, slug, language }));
  const apply: OfflineCapsApply = role === 'central' ? 'set_here' : ownsProgramData(engine) ? 'not_applicable' : 'from_central';
  const currencies = (await listCurrencies(engine, scope, all)).items;
  const { vendor } = await programData(engine.db, vendorId);
  return {
    editable: ownsProgramData(engine),
    currencies,
    quickPayCurrency: currencies.find((c) => c.id === vendor.quick_pay_currency_id)?.publicId ?? null,
    country: vendor.country,
    language: vendor.language,
    earningRules: (await listEarningRules(engine, scope, all)).items,
    rewards: (await listSpendingRules(engine, scope, all)).items,
    tiers: (await listTiers(engine, scope, all)).items,
    settings: await getProgramSettings(engine, scope),
    offlineCaps: { ...(await getOfflinePolicy(engine, scope)), apply },
    content,
  };
}
