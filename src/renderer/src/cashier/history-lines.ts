import type { HistoryRecord } from '../api/history-api';
import { formatMoney, formatPoints } from '../format';
import type { CashierStrings } from './strings';

// The panel's reading of a history record (GET /user/transaction/list?user&api_key): what kind of
// transaction it is, where, and what moved on the customer's balances, each with its sign. The node
// writes the records (src/core: place-order, void-order, credit-quick-pay, tier-progress, …):
//
//   kind (`object`)  rewards[].kind                        quickpay
//   order            earned (+amount), redeemed (cost)     used (paid with it)
//   void             earned_reversed (−points, negative),   loaded (the quick pay the order used,
//                    redeemed_reversed (cost, positive)     back on the balance)
//   reload / egift   —                                     loaded; receipts[0].type 'auto_reload'
//                                                          for an auto reload; status 'Declined'
//                                                          (nothing loaded) for a refused one
//   tier_change      tier (from, to; amount 0)             —
//   promotion, referral, card_link: points in (+amount); card_link may load quick pay too.
//   adjustment       adjustment (signed amount)           loaded / used (staff's correction)
//   expiry           expiry (−amount)                      —
//   expiry_return    expiry_return (+amount)               —
//   import           import (+amount)                      loaded (the old system's balances, punchcard import customers)
//
// Amounts in `rewards` are read by their kind (a reversal of points earned always takes points
// away, whatever sign it was stored with); a kind this screen does not know moves by its own sign.

export type HistoryKind = 'order' | 'void' | 'reload' | 'autoReload' | 'egift' | 'tierChange' | 'promotion' | 'referral' | 'cardLink' | 'adjustment' | 'expiry' | 'expiryReturn' | 'imported' | 'other';

/** One balance move of a record, signed: + to the customer, − from them. */
export type HistoryMove = { what: 'points'; amount: number; currency: string; back: boolean } | { what: 'quickPay'; amount: number; back: boolean };

export interface HistoryLine {
  kind: HistoryKind;
  /** The record's own kind as the node sent it (for `other`). */
  object: string;
  /** The receipt number of an order or of the order a void reverses. */
  receipt: string | null;
  /** What else names it: the tier move ("Silver → Gold"), the promotion or reward, the referred friend, the eGift's sender, the linked card. */
  detail: string | null;
  /** The store's name, or null when it happened at no store (an auto reload, an app eGift). */
  store: string | null;
  /** "2 × Latte, Muffin"; empty when none. */
  items: string;
  /** The sale's amount for an order and for the void of one (major units, positive); null otherwise. */
  sale: number | null;
  /** A refused charge (an auto reload the card declined): its amount; nothing moved. */
  declined: number | null;
  points: Extract<HistoryMove, { what: 'points' }>[];
  quickPay: Extract<HistoryMove, { what: 'quickPay' }> | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Points in (+1) or out (−1) by a reward entry's kind; 0: nothing moves (a tier change); null: unknown kind. */
function pointsSign(kind: unknown): 1 | -1 | 0 | null {
  switch (kind) {
    case 'earned':
    case 'redeemed_reversed':
    case 'promotion':
    case 'referral':
    case 'card_value':
    case 'expiry_return':
    case 'import':
      return 1;
    case 'redeemed':
    case 'earned_reversed':
    case 'expiry':
      return -1;
    case 'tier':
      return 0;
    default:
      return null;
  }
}

function kindOf(record: HistoryRecord): HistoryKind {
  switch (record.object) {
    case 'order':
      return 'order';
    case 'void':
      return 'void';
    case 'reload':
      return (record.receipts ?? []).some((r) => r.type === 'auto_reload') ? 'autoReload' : 'reload';
    case 'egift':
      return 'egift';
    case 'tier_change':
      return 'tierChange';
    case 'promotion':
      return 'promotion';
    case 'referral':
      return 'referral';
    case 'card_link':
      return 'cardLink';
    case 'adjustment':
      return 'adjustment';
    case 'expiry':
      return 'expiry';
    case 'expiry_return':
      return 'expiryReturn';
    case 'import':
      return 'imported';
    default:
      return 'other';
  }
}

function detailOf(kind: HistoryKind, record: HistoryRecord): string | null {
  const reward = (k: string) => (record.rewards ?? []).find((r) => r.kind === k);
  const receipt = record.receipts?.[0] ?? {};
  switch (kind) {
    case 'tierChange': {
      const tier = reward('tier');
      const from = str(tier?.from);
      const to = str(tier?.to);
      return from && to ? `${from} → ${to}` : str(tier?.name);
    }
    case 'promotion':
      return str(reward('promotion')?.name);
    case 'referral':
      return str(reward('referral')?.name);
    case 'egift':
      return str(receipt.from);
    case 'cardLink':
      return str(receipt.card_number);
    default:
      return null;
  }
}

/** A history record as the panel tells it. */
export function readHistoryRecord(record: HistoryRecord): HistoryLine {
  const kind = kindOf(record);
  const back = kind === 'void';
  // Points by currency and direction: two earning rules of one sale are one "+N Points".
  const sums = new Map<string, { currency: string; amount: number }>();
  // Read with care: a record is the node's, but an older node or a partial one must not break the panel.
  for (const reward of record.rewards ?? []) {
    const amount = num(reward.amount);
    if (amount === null || amount === 0) continue;
    const sign = pointsSign(reward.kind);
    if (sign === 0) continue;
    const signed = sign === null ? amount : sign * Math.abs(amount);
    const currency = str(reward.currency) ?? '';
    const key = `${signed > 0 ? '+' : '-'}${currency}`;
    const sum = sums.get(key) ?? { currency, amount: 0 };
    sum.amount += signed;
    sums.set(key, sum);
  }
  const points = [...sums.values()].map(({ currency, amount }) => ({ what: 'points' as const, amount, currency, back: back && amount > 0 }));
  const net = record.quickpay.loaded - record.quickpay.used;
  const declined = record.status === 'Declined' ? Math.abs(record.total) : null;
  const receiptNumber = str(record.receipts?.[0]?.receipt_number);
  return {
    kind,
    object: record.object,
    receipt: kind === 'order' || kind === 'void' ? receiptNumber : null,
    detail: detailOf(kind, record),
    store: str(record.name),
    items: itemsLine(record),
    sale: kind === 'order' || kind === 'void' ? Math.abs(record.total) : null,
    declined,
    points,
    quickPay: net !== 0 ? { what: 'quickPay', amount: net, back: back && net > 0 } : null,
  };
}


/** "+12" / "−12" with one minus sign style (U+2212) whatever the formatter writes; `format` gets the magnitude. */
export function signed(amount: number, format: (magnitude: number) => string): string {
  return `${amount < 0 ? '−' : '+'}${format(Math.abs(amount))}`;
}

/** The texts of a history row: what it was, where and of what, and the points and quick pay it moved. */
export interface HistoryRowTexts {
  /** "Void of R-0990", "Auto reload", "Tier: Silver → Gold". */
  title: string;
  /** "Market Street · 2 × Flat white · Sale $8.40"; only the parts the record has (no empty store). */
  context: string;
  /** "−12 Points, +100 Points back"; empty when no points moved. */
  points: string;
  /** "+$3.50 back", "−$5.25"; empty when quick pay did not move. */
  quickPay: string;
}

type RowStrings = Pick<CashierStrings, 'historyKind' | 'historySale' | 'historyDeclined' | 'historyMoveBack' | 'historyNothingMoved'>;

export function historyRowTexts(line: HistoryLine, t: RowStrings, language: string, quickPayCurrency: string | null, country: string | null = null): HistoryRowTexts {
  const money = (amount: number) => formatMoney(amount, quickPayCurrency, language, country);
  const told = (text: string, back: boolean) => (back ? t.historyMoveBack(text) : text);
  const points = line.points.map((m) => told(signed(m.amount, (n) => `${formatPoints(n, language, quickPayCurrency, country)} ${m.currency}`.trim()), m.back)).join(', ');
  const quickPay = line.quickPay ? told(signed(line.quickPay.amount, money), line.quickPay.back) : '';
  const nothing = !points && !quickPay && line.declined === null;
  const context = [
    line.store,
    line.items || null,
    line.sale !== null ? t.historySale(money(line.sale)) : null,
    line.declined !== null ? t.historyDeclined(money(line.declined)) : null,
    nothing ? t.historyNothingMoved : null,
  ]
    .filter((part): part is string => part !== null && part !== '')
    .join(' · ');
  return { title: t.historyKind(line.kind, line.receipt, line.detail, line.object), context, points, quickPay };
}

/** Items of a history record as a short line ("2 × Latte, Muffin"). */
export function itemsLine(record: HistoryRecord): string {
  return (record.items ?? [])
    .map((item) => {
      const name = str(item.name) ?? '?';
      const quantity = num(item.quantity) ?? 1;
      return quantity === 1 ? name : `${quantity} × ${name}`;
    })
    .join(', ');
}
