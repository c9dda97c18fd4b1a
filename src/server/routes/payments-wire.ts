import type { BillingProfileRecord } from '../../core/payments/billing-profiles/billing-profile';
import { maskedCard } from '../../core/payments/billing-profiles/billing-profile';
import type { ReloadSettings } from '../../core/payments/auto-reload/reload-settings';
import { declineCode } from '../../core/payments/gateway/payment-errors';
import type { ReloadOutcome } from '../../core/payments/reloads/reload-quick-pay';
import { toMajorUnits } from '../../shared/money';
import { toUnixSeconds } from '../../shared/time';

// Legacy-style wire objects of payments: Unix seconds, integer ids, major units. No card number.

const pad2 = (n: number) => String(n).padStart(2, '0');

export function billingProfileWire(p: BillingProfileRecord) {
  return {
    id: p.id,
    object: 'user_billingprofile' as const,
    card: maskedCard(p.last4),
    type: p.brand,
    name: p.name,
    description: p.description,
    postal_code: p.postalCode,
    expiry: `${pad2(p.expiryMonth)}/${p.expiryYear}`,
    expiry_month: pad2(p.expiryMonth),
    expiry_year: String(p.expiryYear),
    created: toUnixSeconds(p.createdAt),
    updated: toUnixSeconds(p.updatedAt),
    is_default: p.isDefault,
  };
}

export const TRANSACTION_STATUS = {
  complete: { id: 1, name: 'Complete' },
  pending: { id: 2, name: 'Pending' },
  declined: { id: 3, name: 'Declined' },
} as const;

export function reloadWire(r: ReloadOutcome) {
  const { charge, currency } = r;
  const currencyRef = { id: currency.id, name: currency.name, code: currency.code, object: 'currency' as const };
  const status = charge.status === 'succeeded' ? TRANSACTION_STATUS.complete : charge.status === 'declined' ? TRANSACTION_STATUS.declined : TRANSACTION_STATUS.pending;
  return {
    object: 'reload' as const,
    id: charge.id,
    transaction: charge.id,
    amount: toMajorUnits(Number(charge.amount), currency.digits),
    currency: currencyRef,
    transaction_status: status,
    decline_reason: charge.status === 'declined' ? declineCode(charge.decline_reason) : null,
    history_id: charge.status === 'succeeded' ? charge.transaction_id : null,
    automatic: charge.purpose === 'auto_reload',
    user_billingprofile: r.profile ? billingProfileWire(r.profile) : null,
    quick_pay_balance: { amount: toMajorUnits(r.balance, currency.digits), currency: currencyRef },
    created: toUnixSeconds(charge.created_at),
    updated: toUnixSeconds(charge.updated_at),
  };
}

export function reloadSettingsWire(s: ReloadSettings) {
  return {
    object: 'reload_settings' as const,
    enabled: s.enabled,
    amount: toMajorUnits(s.amount, s.digits),
    threshold: toMajorUnits(s.threshold, s.digits),
    user_billingprofile: s.profile?.id ?? null,
    billing_profile: s.profile ? billingProfileWire(s.profile) : null,
  };
}
