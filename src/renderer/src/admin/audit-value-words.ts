import { SYNC_EXCEPTION_KINDS } from '../../../shared/sync-exception-kinds';
import { withMinusSign } from '../format';
import type { Language } from '../i18n/language-store';
import { formatAmount } from './format';
import { usePaymentExceptionStrings } from './payment-exceptions-strings';
import { useAdminStrings } from './strings';

// An audit entry's values as a merchant reads them (sixteenth round): the node records amounts in
// minor units and states by their codes ("balance: 0 → 1250", "role: owner"). Money is written in
// the currency the entry names (its `currency` field: a currency's `curr_` id, or a charge's ISO
// code) as the back office writes amounts elsewhere (formatAmount: the screen's language and the
// program's country); points as "40 Stars". Known codes of roles, statuses and kinds are written
// in words from the screens' own dictionaries. Anything else — a field this table does not know, a
// value it has no word for, an amount in an entry that names no currency — stays as recorded.

/** A currency of the program as the audit needs it: its ISO code (null: points, named by `name`). */
export interface AuditCurrency {
  code: string | null;
  name: string;
}

/** The fields that hold an amount in minor units of the entry's currency. */
const MONEY_FIELDS = new Set(['balance', 'amount', 'amount_paid', 'returned']);

/** Words this file adds: the pay-back's states and ways, and a program object's status. */
const WORDS = {
  en: {
    payback: { refunding: 'Refunding', paid: 'Paid', partial: 'Partly refused', refused: 'Refused' },
    method: { cash: 'Cash', card: 'Card' },
    objectStatus: { ACTIVE: 'Active', INACTIVE: 'Inactive', ARCHIVED: 'Archived' },
    objectStatusMasculine: { ACTIVE: 'Active', INACTIVE: 'Inactive', ARCHIVED: 'Archived' },
  },
  es: {
    payback: { refunding: 'En devolución', paid: 'Pagada', partial: 'Rechazada en parte', refused: 'Rechazada' },
    method: { cash: 'Efectivo', card: 'Tarjeta' },
    // "Moneda", "regla", "recompensa" are feminine; "nivel" masculine.
    objectStatus: { ACTIVE: 'Activa', INACTIVE: 'Inactiva', ARCHIVED: 'Archivada' },
    objectStatusMasculine: { ACTIVE: 'Activo', INACTIVE: 'Inactivo', ARCHIVED: 'Archivado' },
  },
} satisfies Record<Language, unknown>;

type Words = Readonly<Record<string, string>>;

/** The words for the values of `field` of an object of `objectType`, in `language`; undefined: shown as recorded. */
function wordsFor(objectType: string, field: string, language: Language): Words | undefined {
  const t = useAdminStrings.all[language];
  const p = usePaymentExceptionStrings.all[language];
  const own = WORDS[language];
  switch (`${objectType}.${field}`) {
    case 'staff.role':
      return { owner: t.role_owner, manager: t.role_manager, store_manager: t.role_store_manager };
    case 'staff.status':
      return { invited: t.staffStatus_invited, active: t.staffStatus_active, disabled: t.staffStatus_disabled };
    case 'store.status':
      return { active: t.active, inactive: t.inactive };
    case 'payment_exception.status':
      return { open: p.status_open, refunding: p.status_refunding, refunded: p.status_refunded, credited: p.status_credited, settled: p.status_settled };
    case 'payment_exception.kind':
      return { paid_without_gift: p.kind_paid_without_gift, reload_refused: p.kind_reload_refused };
    case 'payment_exception.resolution':
      return { refund: t.auditAction('refund', 'refund'), credit: t.auditAction('credit', 'credit') };
    case 'sync_exception.kind':
      return Object.fromEntries(SYNC_EXCEPTION_KINDS.map((kind) => [kind, t[`exceptionKind_${kind}`]]));
    case 'customer.status':
      return own.payback;
    case 'customer.method':
      return own.method;
    case 'currency.status':
    case 'earning_rule.status':
    case 'reward.status':
      return own.objectStatus;
    case 'tier.status':
      return own.objectStatusMasculine;
    default:
      return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A currency the entry names: one of the program's by its id, or an ISO code (a card charge's). */
function currencyNamed(named: unknown, currencies: ReadonlyMap<string, AuditCurrency>): AuditCurrency | undefined {
  if (typeof named !== 'string') return undefined;
  return currencies.get(named) ?? (/^[A-Z]{3}$/.test(named) ? { code: named, name: named } : undefined);
}

/** Minor units as money ("12,50 €", "$12.50") or points named by their currency ("40 Stars"); negative with U+2212. */
function money(minor: number, currency: AuditCurrency): string {
  return withMinusSign(minor, (m) => (currency.code === null ? `${formatAmount(m, null)} ${currency.name}` : formatAmount(m, currency.code)));
}

/**
 * How the audit screen writes the values of one entry: `(field, value)` → text, or undefined for
 * "as recorded". The entry's currency is its `currency` field, before or after (a pay-back names it
 * before only). `language` picks the words; amounts follow the screen's language (formatAmount).
 */
export function auditValueWriter(
  entry: { object_type: string; before: unknown; after: unknown },
  currencies: ReadonlyMap<string, AuditCurrency>,
  language: Language,
): (field: string, value: unknown) => string | undefined {
  const named = (isRecord(entry.before) ? entry.before['currency'] : undefined) ?? (isRecord(entry.after) ? entry.after['currency'] : undefined);
  const currency = currencyNamed(named, currencies);
  return (field, value) => {
    if (MONEY_FIELDS.has(field) && typeof value === 'number' && Number.isSafeInteger(value)) return currency ? money(value, currency) : undefined;
    if (field === 'currency') return currencyNamed(value, currencies)?.name;
    // A departing member's balances: [{currency, amount}], each in its own currency.
    if (field === 'balances' && Array.isArray(value) && value.length > 0 && value.every((b) => isRecord(b) && typeof b['amount'] === 'number' && currencyNamed(b['currency'], currencies)))
      return (value as Array<{ currency: string; amount: number }>).map((b) => money(b.amount, currencyNamed(b.currency, currencies)!)).join(', ');
    if (typeof value !== 'string') return undefined;
    return wordsFor(entry.object_type, field, language)?.[value];
  };
}
