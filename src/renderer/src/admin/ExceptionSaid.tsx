import { Fragment, type ReactNode } from 'react';
import { readSubject } from '../../../shared/exception-subject';
import { REFUSAL_WHYS, type RefusalWhy, SYNC_EXCEPTION_SAID_KEYS, type SyncExceptionSaid } from '../../../shared/sync-exception-said';
import { languageStore } from '../i18n/language-store';
import { withMinusSign } from '../format';
import type { ChainException } from './admin-api';
import { formatAmount } from './format';
import { useProgramCountry } from './program-country';
import { useAdminStrings } from './strings';

// A sync exception's message in the screen's language, from what central recorded it says
// (shared/sync-exception-said.ts) and the templates of admin/strings.ts (`exceptionSaid_<key>`).
// Amounts are formatted as the back office's other screens show them; customers by `customer`.

type Texts = ReturnType<typeof useAdminStrings>;

/** The data, when this screen has templates for its key (a newer central's key shows its English message instead). */
export function knownSaid(data: ChainException['message_data']): SyncExceptionSaid | null {
  return data !== null && (SYNC_EXCEPTION_SAID_KEYS as string[]).includes(data.key) ? (data as SyncExceptionSaid) : null;
}

/**
 * How the page draws what a message names by id: customers (named and linked where the page knows
 * them), and where it knows them a sale (its customer, linked: undefined leaves central's "order
 * 12") and a store node (its label).
 */
export interface SaidNames {
  customer: (id: number) => ReactNode;
  order?: (id: number) => ReactNode | undefined;
  node?: (id: number) => ReactNode | undefined;
}

/** The sentence, with what it mentions drawn by `names`. */
export function ExceptionSaid({ said, names }: { said: SyncExceptionSaid; names: SaidNames }) {
  const t = useAdminStrings();
  // Amounts follow the program's country (formatAmount): render again once it is known.
  useProgramCountry();
  return <>{saidInWords(t, said, names)}</>;
}

/** The sentence in the language of `t` (amounts in the screen's language, as formatAmount writes them). */
export function saidInWords(t: Texts, said: SyncExceptionSaid, names: SaidNames): ReactNode[] {
  return fill(t[`exceptionSaid_${said.key}`], valuesOf(t, said, names));
}

function valuesOf(t: Texts, said: SyncExceptionSaid, names: SaidNames): Record<string, ReactNode> {
  const { customer } = names;
  const order = (id: number) => names.order?.(id) ?? fill(t.exceptionSaidOrder, { id });
  switch (said.key) {
    case 'contact_of_other_program':
      return { customer: customer(said.params.customer) };
    case 'contact_kept':
      return { ...said.params, contact: t[`exceptionSaidContact_${said.params.contact}`], customer: customer(said.params.customer) };
    case 'contact_held':
      return { ...said.params, contact: t[`exceptionSaidContact_${said.params.contact}`], holder: customer(said.params.holder), customer: customer(said.params.customer) };
    case 'void_repeated':
      return { receipt: said.params.receipt === null ? '' : fill(t.exceptionSaidVoidReceipt, { receipt: said.params.receipt }) };
    case 'offline_overdraft': {
      const { currency, code, balance, believed, paid_back } = said.params;
      // Points have no code: their amount is named by the currency ("−500 Stars"), as central wrote it.
      const amount = (minor: number) => withMinusSign(minor, (m) => (code === null && currency !== null ? `${formatAmount(m, null)} ${currency}` : formatAmount(m, code)));
      return {
        spent: currency === null ? t.exceptionSaidSpent : fill(t.exceptionSaidSpentIn, { currency }),
        balance: amount(balance),
        believed: believed === null ? '' : fill(t.exceptionSaidBelieved, { amount: amount(believed) }),
        paidBack: paid_back === null ? '' : fill(t.exceptionSaidPaidBack, { amount: amount(paid_back) }),
      };
    }
    case 'sale_in_other_currency': {
      const { sold, digits, subtotal } = said.params;
      return {
        ...said.params,
        soldAs: sold === null ? fill(t.exceptionSaidSoldPaused, { digits }) : fill(t.exceptionSaidSoldIn, { code: sold }),
        units: sold === null ? t.exceptionSaidUnitsPaused : fill(t.exceptionSaidUnitsOf, { code: sold }),
        subtotal: sold === null ? decimals(subtotal, digits) : formatAmount(subtotal, sold),
      };
    }
    case 'event_rejected':
      return { code: said.params.code, reason: refusalInWords(t, said.params) };
    case 'customer_merged':
      return { contact: t[`exceptionSaidMergedBy_${said.params.contact}`], customer: customer(said.params.customer) };
    case 'card_linked_twice':
      return { customer: customer(said.params.customer), holder: customer(said.params.holder) };
    case 'receipt_reused':
    case 'sale_repeated':
      return { ...said.params, order: order(said.params.order) };
    case 'repeat_voided':
      return { ...said.params, order: order(said.params.order), node: names.node?.(said.params.node) ?? fill(t.exceptionSaidNode, { id: said.params.node }) };
    default:
      return said.params;
  }
}

/**
 * Why central refused the event, in the screen's language, from its `why` and values (fifteenth
 * round); a refusal recorded before, or one this screen does not know (a newer central), keeps
 * central's English reason.
 */
function refusalInWords(t: Texts, params: { reason: string; why?: string; table?: string; id?: number; detail?: string }): ReactNode {
  const why = params.why as RefusalWhy | undefined;
  if (why === undefined || !REFUSAL_WHYS.includes(why)) return params.reason;
  const { table = '', id = '', detail = '' } = params;
  return fill(t[`exceptionRefusal_${why}`], { table, id, detail, row: rowInWords(t, table, id) });
}

/** A row a refusal names ("orders 12" as central writes it; "el pedido 12" in Spanish); a table the screen has no word for, as central wrote it. */
function rowInWords(t: Texts, table: string, id: number | string): ReactNode {
  const words = (t as unknown as Record<string, string | undefined>)[`exceptionRow_${table}`];
  return words === undefined ? `${table} ${id}` : fill(words, { id });
}

/**
 * A subject other than a customer in the screen's words ("order 12" → "pedido 12"; an event's type
 * stays as the store named it), read by the builders' own parser (shared/exception-subject.ts); one
 * it does not know, as stored. An order central holds reads by its receipt (ExceptionText).
 */
export function subjectInWords(t: Texts, subject: string): ReactNode {
  const read = readSubject(subject);
  switch (read?.what) {
    case 'order':
      return fill(t.exceptionSubject_order, { id: read.orderId });
    case 'card':
      return fill(t.exceptionSubject_card, { id: read.cardId });
    case 'event':
      return [...fill(t.exceptionSubject_event, { id: read.seq }), read.type === null ? '' : ` (${read.type})`];
    default:
      return subject;
  }
}

/** Minor units of a currency the page knows only by its decimals (sold while quick pay was paused). */
function decimals(minor: number, digits: number): string {
  const language = languageStore.getState().language === 'es' ? 'es' : 'en';
  return new Intl.NumberFormat(language, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(minor / 10 ** digits);
}

/** A template's `{name}`s replaced by their values (text or elements); a name without a value stays as written. */
export function fill(template: string, values: Record<string, ReactNode>): ReactNode[] {
  return template.split(/(\{\w+\})/).map((part, i) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    return <Fragment key={i}>{name !== undefined && name in values ? values[name] : part}</Fragment>;
  });
}
