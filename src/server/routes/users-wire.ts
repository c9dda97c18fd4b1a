import type { UserRow } from '../../core/customers/customer-store';
import type { Membership } from '../../core/customers/membership';
import type { BillingProfileRecord } from '../../core/payments/billing-profiles/billing-profile';
import { billingProfileWire } from './payments-wire';
import { toMajorUnits } from '../../shared/money';
import type { CustomerProfile } from '../../core/customers/profile';
import { findCountryById, findRegion } from '../../core/geo';
import { languageByCode } from '../../shared/languages';
import { toUnixSeconds } from '../../shared/time';

// Legacy-style wire objects of accounts: Unix seconds, ids as the interface shows them.

const STATUS: Record<string, { id: number; name: string }> = {
  active: { id: 1, name: 'Active' },
  inactive: { id: 2, name: 'Inactive' },
  deleted: { id: 3, name: 'Deleted' },
};

export function statusOf(user: UserRow) {
  return STATUS[user.status] ?? STATUS.active!;
}

function languageWire(code: string | null) {
  const language = languageByCode(code);
  return language ? { object: 'language' as const, id: language.id, name: language.name, code: language.code } : null;
}

export function userWire(user: UserRow) {
  return {
    object: 'user' as const,
    id: String(user.id),
    first_name: user.first_name,
    last_name: user.last_name,
    email_address: user.email ?? '',
    facebook_identifier: null,
    twitter_identifier: null,
    google_identifier: null,
    linkedin_identifier: null,
    ...(user.birthdate !== null ? { birthdate: toUnixSeconds(user.birthdate) } : {}),
    date_created: toUnixSeconds(user.created_at),
    date_updated: toUnixSeconds(user.updated_at),
    status: statusOf(user),
  };
}

function tierWire(m: Membership) {
  return m.tier ? { object: 'tier' as const, id: m.tier.id, name: m.tier.name, summary: m.tier.summary, description: m.tier.description } : null;
}

export function userVendorWire(m: Membership, billingProfile: BillingProfileRecord | null = null) {
  return {
    object: 'user_vendor' as const,
    language: languageWire(m.link.language),
    vendor: { id: m.vendor.id, name: m.vendor.name, object: 'vendor' as const },
    anonymous: false,
    reload_amount: toMajorUnits(m.link.reload_amount, m.moneyDigits),
    reload_threshold: toMajorUnits(m.link.reload_threshold, m.moneyDigits),
    contact_consent: m.link.contact_consent,
    created: toUnixSeconds(m.link.created_at),
    billing_profile: billingProfile && billingProfileWire(billingProfile),
    tier: tierWire(m),
    tier_since: toUnixSeconds(m.link.tier_since),
    user: { object: 'user' as const, id: String(m.user.id), first_name: m.user.first_name, last_name: m.user.last_name },
  };
}

export function profileWire(p: CustomerProfile, origin: string, billingProfile: BillingProfileRecord | null = null) {
  const country = p.user.country_id === null ? undefined : findCountryById(p.user.country_id);
  const region = p.user.region_id === null ? undefined : findRegion(p.user.region_id);
  return {
    object: 'user_vendor' as const,
    id: String(p.link.id),
    anonymous: false,
    // The profile auto reload charges; null while auto reload is disabled.
    billing_profile: billingProfile && billingProfileWire(billingProfile),
    contact_consent: p.link.contact_consent,
    created: toUnixSeconds(p.link.created_at),
    updated: toUnixSeconds(p.link.updated_at),
    flagged: p.link.flagged === 1,
    is_verified: { status: p.verification.isValidated, methods: p.verification.status },
    language: languageWire(p.link.language),
    metadata: p.metadata.map((m) => ({
      user_metadata_id: String(m.id),
      user_metadataField_id: m.fieldId,
      field: m.field,
      value: m.value,
      validation: m.validation,
      input_type: m.inputType,
    })),
    newsletters: JSON.parse(p.link.newsletters) as Record<string, unknown>,
    // Shown once, in the login reply; only its digest is kept.
    online_order_token: null,
    push_endpoints: JSON.parse(p.link.push_endpoints) as { gcm: string[]; apns: string[] },
    referral_url: `${origin}/join?vendor=${p.vendor.id}&ref=${encodeURIComponent(p.link.referral_code)}`,
    reload_amount: toMajorUnits(p.link.reload_amount, p.moneyDigits),
    reload_threshold: toMajorUnits(p.link.reload_threshold, p.moneyDigits),
    status: { status_id: statusOf(p.user).id, name: statusOf(p.user).name },
    user: {
      object: 'user' as const,
      id: p.user.id,
      cid: null,
      facebook_identifier: null,
      email_address: p.user.email ?? '',
      first_name: p.user.first_name,
      last_name: p.user.last_name,
      phone_number: p.user.phone ?? '',
      passport_number: p.user.passport_number,
      address: {
        address1: p.user.address1,
        address2: p.user.address2,
        city: p.user.city ?? '',
        region: region ? { region_id: region.id, code: region.code, name: region.name } : null,
        country: country ? { country_id: country.id, code: country.code, name: country.name } : null,
        postal_code: p.user.postal_code ?? '',
      },
      birthdate: p.user.birthdate === null ? null : toUnixSeconds(p.user.birthdate),
      pet:
        p.user.pet_name === null && p.user.pet_birthdate === null
          ? null
          : { name: p.user.pet_name, date_of_birth: p.user.pet_birthdate === null ? null : toUnixSeconds(p.user.pet_birthdate) },
      created: toUnixSeconds(p.user.created_at),
      updated: toUnixSeconds(p.user.updated_at),
      status: statusOf(p.user),
    },
    vendor: {},
  };
}
