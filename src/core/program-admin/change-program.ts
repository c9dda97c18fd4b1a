import { ServiceError } from '../../shared/errors';
import { auditedChange } from '../audit/audited-change';
import type { AuditEntry } from '../audit/record-audit';
import { parseLanguage, parseSlug } from '../content/content-page';
import { setVendorContent, type ContentChange } from '../content/set-content';
import { loadVendor } from '../customers/customer-store';
import { createCurrency, type NewCurrency } from '../currencies/create-currency';
import { changeCurrency, type CurrencyChanges } from '../currencies/update-currency';
import { type Engine, ownsProgramData } from '../engine';
import { createEarningRule, type NewEarningRule } from '../rules/earning/create-earning-rule';
import { getEarningRule } from '../rules/earning/get-earning-rule';
import { type EarningRuleChanges, updateEarningRule } from '../rules/earning/update-earning-rule';
import { getProgramSettings } from '../rules/settings/get-program-settings';
import { type ProgramSettingsChanges, updateProgramSettings } from '../rules/settings/update-program-settings';
import { createSpendingRule, type NewSpendingRule } from '../rules/spending/create-spending-rule';
import { getSpendingRule } from '../rules/spending/get-spending-rule';
import { type SpendingRuleChanges, updateSpendingRule } from '../rules/spending/update-spending-rule';
import { createTier, type NewTier } from '../rules/tiers/create-tier';
import { getTier } from '../rules/tiers/get-tier';
import { type TierChanges, updateTier } from '../rules/tiers/update-tier';
import { actorOf } from '../staff/authorize';
import { lockKey } from '../storage/dialect';
import type { StaffPrincipal } from '../staff/staff-sessions';
import { getOfflinePolicy, type OfflinePolicy, setOfflinePolicy } from '../sync/central/offline-policy';
import { changeProgramCountry } from '../tenancy/change-program-country';
import { changeProgramLanguage } from '../tenancy/change-program-language';

// The program as the back office changes it: the same use cases as the bearer API (same checks,
// same messages), each change with its audit record (who, before, after) in the same transaction.
// A paired store's program is central's: it is changed at central's back office.

function programOwnedHere(engine: Engine): void {
  if (!ownsProgramData(engine)) throw new ServiceError('program_managed_by_central');
}

async function change<T>(engine: Engine, staff: StaffPrincipal, work: (within: Engine) => Promise<{ result: T; audit: AuditEntry }>): Promise<T> {
  programOwnedHere(engine);
  return auditedChange(engine, actorOf(staff), work);
}

const scopeOf = (staff: StaffPrincipal) => ({ vendorId: staff.vendorId });

/**
 * The page a content change replaces, as its audit shows it (null: not written in that language
 * yet), locked until the change commits. Without the lock two first writes at once both insert on
 * PostgreSQL, and the use case's retry after the unique index refuses one cannot run in the audited
 * change's transaction, which that refusal aborted.
 */
async function lockedStoredPage(engine: Engine, vendorId: number, input: ContentChange): Promise<{ title: string; version: number } | null> {
  const slug = parseSlug(input.slug);
  // The language the write goes to: the one given, else the vendor's (as setVendorContent decides).
  const language = input.language === undefined || input.language.trim() === '' ? (await loadVendor(engine.db, vendorId)).language : parseLanguage(input.language);
  await lockKey(engine.db, engine.dialect, `content:${vendorId}:${slug}:${language}`);
  const row = await engine.db.selectFrom('vendor_content').select(['title', 'version']).where('vendor_id', '=', vendorId).where('slug', '=', slug).where('language', '=', language).executeTakeFirst();
  return row ? { title: row.title, version: Number(row.version) } : null;
}

export const programChanges = {
  createCurrency: (engine: Engine, staff: StaffPrincipal, input: NewCurrency) =>
    change(engine, staff, async (e) => {
      const made = await createCurrency(e, scopeOf(staff), input);
      return { result: made, audit: { action: 'currency.create', objectType: 'currency', objectId: made.publicId, before: null, after: made } };
    }),
  updateCurrency: (engine: Engine, staff: StaffPrincipal, id: string, changes: CurrencyChanges) =>
    change(engine, staff, async (e) => {
      const { before, currency: after, restated } = await changeCurrency(e, scopeOf(staff), id, changes);
      // A new quick-pay code restates the program's settings counted in it: the record lists them, each side in its own code's minor units.
      const audit = restated ? { before: { ...before, program_money: restated.before }, after: { ...after, program_money: restated.after } } : { before, after };
      return { result: after, audit: { action: 'currency.update', objectType: 'currency', objectId: id, ...audit } };
    }),
  createEarningRule: (engine: Engine, staff: StaffPrincipal, input: NewEarningRule) =>
    change(engine, staff, async (e) => {
      const made = await createEarningRule(e, scopeOf(staff), input);
      return { result: made, audit: { action: 'earning_rule.create', objectType: 'earning_rule', objectId: made.publicId, before: null, after: made } };
    }),
  updateEarningRule: (engine: Engine, staff: StaffPrincipal, id: string, changes: EarningRuleChanges) =>
    change(engine, staff, async (e) => {
      const before = await getEarningRule(e, scopeOf(staff), id);
      const after = await updateEarningRule(e, scopeOf(staff), id, changes);
      return { result: after, audit: { action: 'earning_rule.update', objectType: 'earning_rule', objectId: id, before, after } };
    }),
  createReward: (engine: Engine, staff: StaffPrincipal, input: NewSpendingRule) =>
    change(engine, staff, async (e) => {
      const made = await createSpendingRule(e, scopeOf(staff), input);
      return { result: made, audit: { action: 'reward.create', objectType: 'reward', objectId: made.publicId, before: null, after: made } };
    }),
  updateReward: (engine: Engine, staff: StaffPrincipal, id: string, changes: SpendingRuleChanges) =>
    change(engine, staff, async (e) => {
      const before = await getSpendingRule(e, scopeOf(staff), id);
      const after = await updateSpendingRule(e, scopeOf(staff), id, changes);
      return { result: after, audit: { action: 'reward.update', objectType: 'reward', objectId: id, before, after } };
    }),
  createTier: (engine: Engine, staff: StaffPrincipal, input: NewTier) =>
    change(engine, staff, async (e) => {
      const made = await createTier(e, scopeOf(staff), input);
      return { result: made, audit: { action: 'tier.create', objectType: 'tier', objectId: made.publicId, before: null, after: made } };
    }),
  updateTier: (engine: Engine, staff: StaffPrincipal, id: string, changes: TierChanges) =>
    change(engine, staff, async (e) => {
      const before = await getTier(e, scopeOf(staff), id);
      const after = await updateTier(e, scopeOf(staff), id, changes);
      return { result: after, audit: { action: 'tier.update', objectType: 'tier', objectId: id, before, after } };
    }),
  updateSettings: (engine: Engine, staff: StaffPrincipal, changes: ProgramSettingsChanges) =>
    change(engine, staff, async (e) => {
      const before = await getProgramSettings(e, scopeOf(staff));
      const after = await updateProgramSettings(e, scopeOf(staff), changes);
      return { result: after, audit: { action: 'program.update_settings', objectType: 'program', objectId: staff.vendorId, before, after } };
    }),
  changeCountry: (engine: Engine, staff: StaffPrincipal, country: string) =>
    change(engine, staff, async (e) => {
      const { before, after } = await changeProgramCountry(e, scopeOf(staff), country);
      return { result: after, audit: { action: 'program.change_country', objectType: 'program', objectId: staff.vendorId, before: { country: before }, after: { country: after } } };
    }),
  changeLanguage: (engine: Engine, staff: StaffPrincipal, language: string) =>
    change(engine, staff, async (e) => {
      const { before, after } = await changeProgramLanguage(e, scopeOf(staff), language);
      return { result: after, audit: { action: 'program.change_language', objectType: 'program', objectId: staff.vendorId, before: { language: before }, after: { language: after } } };
    }),
  /** Offline caps matter only to a chain: they are set at its central node. */
  updateOfflinePolicy: async (engine: Engine, staff: StaffPrincipal, role: 'central' | 'store', changes: Partial<OfflinePolicy>) => {
    if (role !== 'central') throw new ServiceError('offline_caps_at_central');
    return change(engine, staff, async (e) => {
      const before = await getOfflinePolicy(e, scopeOf(staff));
      const after = await setOfflinePolicy(e, scopeOf(staff), changes);
      return { result: after, audit: { action: 'program.update_offline_caps', objectType: 'program', objectId: staff.vendorId, before, after } };
    });
  },
  setContent: (engine: Engine, staff: StaffPrincipal, input: ContentChange) =>
    change(engine, staff, async (e) => {
      const before = await lockedStoredPage(e, staff.vendorId, input);
      const after = await setVendorContent(e, scopeOf(staff), input);
      return {
        result: after,
        audit: { action: 'content.update', objectType: 'content', objectId: `${after.slug}/${after.language}`, before, after: { title: after.title, version: after.version } },
      };
    }),
};
