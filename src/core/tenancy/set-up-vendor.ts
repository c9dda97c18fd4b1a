import { minorUnitDigits } from '../../shared/currency-codes';
import { ServiceError } from '../../shared/errors';
import { addCurrency } from '../currencies/create-currency';
import { cleanCurrencyCode } from '../currencies/currency';
import { findCountryByCode } from '../geo/countries';
import { checkTimeZone } from '../stores/opening-hours';
import { LANGUAGES, type LanguageCode, languageByCode } from '../../shared/languages';
import { firstProgramNames } from './first-program-names';
import { addAccessToken } from '../credentials/access-tokens';
import { addApiKey } from '../credentials/api-keys';
import { addOauthClient } from '../credentials/oauth-clients';
import { type Engine, transact } from '../engine';
import { countryListColumn } from '../geo/vendor-countries';
import { newPublicId, nextObjectId } from '../storage/ids';

export interface VendorSetUp {
  name: string;
  /** ISO 4217 code of the quick-pay (stored value) currency. */
  currency: string;
  /** ISO 3166-1 alpha-2 country of the vendor and its first store. */
  country: string;
  language?: string;
  /** ISO 3166-1 alpha-2 codes the vendor serves (GET /countries); leave out for every country. */
  countries?: string[] | null;
  /** `timeZone`: the IANA zone the store's hours and days are read in (UTC when left out). */
  store: { name: string; address1: string; city: string; region?: string | null; postalCode?: string | null; phone?: string | null; timeZone?: string | null };
}

export interface VendorCredentials {
  vendorId: number;
  storeId: number;
  posId: number;
  loyaltyCurrencyId: number;
  quickPayCurrencyId: number;
  apiKey: string;
  kioskApiKey: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
}

/**
 * Refuses what setUpVendor would refuse, before anything is written: `punchcard init` checks its
 * options first, so a typo makes no data folder (it used to leave a database and `node.key`).
 */
export function checkVendorSetUp(input: VendorSetUp): { name: string; country: string; countries: string | null; language: LanguageCode; timeZone: string | null } {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100) throw new ServiceError('validation_failed', 'The vendor needs a name of 1 to 100 characters.', 'name');
  const country = parseProgramCountry(input.country);
  cleanCurrencyCode(input.currency);
  const timeZone = input.store.timeZone ? checkTimeZone(input.store.timeZone) : null;
  return { name, country, countries: countryListColumn(input.countries), language: parseProgramLanguage(input.language), timeZone };
}

/** The program's language (what customers' mail and pages default to): en or es, any case; English when left out. */
export function parseProgramLanguage(input: string | undefined): LanguageCode {
  if (input === undefined) return 'en';
  const language = languageByCode(input.trim().toLowerCase());
  if (!language) throw new ServiceError('validation_failed', `language must be one of ${LANGUAGES.map((l) => l.code).join(', ')} ("${input}" is none).`, 'language');
  return language.code;
}

/** A program's country as ISO 3166-1 alpha-2 in upper case; anything else: 400 validation_failed on `country`. */
export function parseProgramCountry(input: string): string {
  const country = input.trim().toUpperCase();
  if (!findCountryByCode(country)) throw new ServiceError('validation_failed', `country must be an ISO 3166-1 two-letter code ("${input}" is none).`, 'country');
  return country;
}

/**
 * A ready-to-sell program in one transaction: vendor, first store and point of sale, a "Points"
 * loyalty currency earning 1 point per whole unit of subtotal, a quick-pay currency, a cashier and a
 * kiosk API key, an OAuth client and a long-lived admin token. Secrets are returned once.
 */
export function setUpVendor(engine: Engine, input: VendorSetUp): Promise<VendorCredentials> {
  const { name, country, countries, language, timeZone } = checkVendorSetUp(input);
  const names = firstProgramNames(language);

  return transact(engine, async (trx) => {
    const now = engine.clock.now();
    const vendorId = await nextObjectId(trx, engine.nodeId);
    await trx
      .insertInto('vendors')
      .values({ id: vendorId, name, country, language, quick_pay_currency_id: null, countries, created_at: now, updated_at: now })
      .execute();
    const scope = { vendorId };
    const points = await addCurrency(trx, engine, scope, { name: names.points, code: null });
    const quickPay = await addCurrency(trx, engine, scope, { name: names.quickPay(input.currency.toUpperCase()), code: input.currency });
    await trx.updateTable('vendors').set({ quick_pay_currency_id: quickPay.id }).where('id', '=', vendorId).execute();

    await trx
      .insertInto('earning_rules')
      .values({
        id: await nextObjectId(trx, engine.nodeId),
        public_id: newPublicId('erul'),
        vendor_id: vendorId,
        currency_id: points.id,
        name: names.earningRule,
        points: 1,
        per_amount: 10 ** minorUnitDigits(quickPay.code ?? 'USD'),
        rounding: 'floor',
        max_award: null,
        starts_at: null,
        ends_at: null,
        status: 'ACTIVE',
        created_at: now,
        updated_at: now,
      })
      .execute();

    // Every member starts in the entry tier; the in-store issue adds the rules that move them up.
    await trx
      .insertInto('tiers')
      .values({
        id: await nextObjectId(trx, engine.nodeId),
        public_id: newPublicId('tier'),
        vendor_id: vendorId,
        name: names.entryTier.name,
        summary: names.entryTier.summary,
        description: names.entryTier.description,
        threshold: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();

    const storeId = await nextObjectId(trx, engine.nodeId);
    await trx
      .insertInto('stores')
      .values({
        id: storeId,
        vendor_id: vendorId,
        name: input.store.name,
        address1: input.store.address1,
        address2: null,
        city: input.store.city,
        region: input.store.region ?? null,
        country,
        postal_code: input.store.postalCode ?? null,
        phone: input.store.phone ?? null,
        ...(timeZone ? { time_zone: timeZone } : {}),
        created_at: now,
        updated_at: now,
      })
      .execute();
    const posId = await nextObjectId(trx, engine.nodeId);
    await trx
      .insertInto('points_of_sale')
      .values({ id: posId, vendor_id: vendorId, store_id: storeId, name: names.counter, status: 'ACTIVE', created_at: now, updated_at: now })
      .execute();

    const cashier = await addApiKey(trx, engine, { vendorId, storeId, posId, role: 'cashier', label: names.counter });
    const kiosk = await addApiKey(trx, engine, { vendorId, storeId, posId: null, role: 'kiosk', label: names.kiosk });
    const client = await addOauthClient(trx, engine, { vendorId, name: 'Default client' });
    const admin = await addAccessToken(trx, engine, { vendorId, oauthClientId: null, label: 'init', ttlSeconds: null });

    return {
      vendorId,
      storeId,
      posId,
      loyaltyCurrencyId: points.id,
      quickPayCurrencyId: quickPay.id,
      apiKey: cashier.key,
      kioskApiKey: kiosk.key,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      accessToken: admin.token,
    };
  });
}
