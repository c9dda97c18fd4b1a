import type { OrderDraftBody } from './customer-store';

// The order form's pure side: what the cashier typed -> the POST /order body, or the reasons it
// cannot be sent yet. Amounts are major units; the node refuses more decimals than the currency has.

export interface DraftItem {
  name: string;
  quantity: number | string;
  price: number | string;
}

export interface OrderDraft {
  subtotal: number | string;
  items: DraftItem[];
  quickPay: number | string;
  /** Reward ids (rwd_…), one per unit. */
  rewards: string[];
  /** Fixed when the form opens and kept across retries: resending it can never charge twice. */
  receiptNumber: string;
}

export type DraftProblem = 'subtotalMissing' | 'subtotalInvalid' | 'ambiguousAmount' | 'itemInvalid' | 'quickPayInvalid' | 'quickPayOverBalance' | 'quickPayOverSubtotal' | 'tooManyDecimals';

export interface DraftContext {
  /** The customer's quick-pay balance (major units). */
  quickPayBalance: number;
  /** Decimals of the quick-pay currency (2 for USD, 0 for JPY). */
  digits: number;
}

export type DraftResult = { ok: true; body: OrderDraftBody; subtotal: number } | { ok: false; problems: Partial<Record<'subtotal' | 'items' | 'quickPay', DraftProblem>> };

/**
 * An amount as a cashier types it: digits, one decimal mark (. or ,), and thousands separators
 * (, . or spaces in groups of three) only where they cannot be the decimal mark: "1,000.50",
 * "1.000,50", "1,000,000", "1 000". One mark before exactly three digits ("1,000", "1.234") is
 * either, and is refused rather than guessed: read as a decimal it made a $1 sale of $1,000.
 */
export function readAmount(value: number | string): number | null | 'ambiguous' {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const text = value.trim();
  const match = /^(-?)(\d[\d.,\s]*)$/.exec(text);
  if (!match) return null;
  const body = match[2]!;
  const marks = body.replace(/[^.,]/g, '');
  let decimal: string | null = null;
  if (marks.includes('.') && marks.includes(',')) decimal = marks[marks.length - 1]!;
  else if (marks.length === 1) {
    const [whole, fraction] = body.split(marks);
    if (fraction!.length === 3 && !/^0+$/.test(whole!.replace(/\s/g, ''))) return 'ambiguous';
    decimal = marks;
  }
  const at = decimal === null ? -1 : body.lastIndexOf(decimal);
  const whole = at < 0 ? body : body.slice(0, at);
  const fraction = at < 0 ? '' : body.slice(at + 1);
  const groups = whole.split(/[.,\s]+/);
  const grouped = groups.length === 1 || (groups[0]!.length <= 3 && groups.slice(1).every((g) => g.length === 3) && !/[.,\s]{2}/.test(whole));
  if (!grouped || !/^\d*$/.test(fraction) || (decimal !== null && fraction === '')) return null;
  const n = Number(`${match[1]}${groups.join('')}${fraction === '' ? '' : `.${fraction}`}`);
  return Number.isFinite(n) ? n : null;
}

const toNumber = (value: number | string): number | null => {
  const n = readAmount(value);
  return n === 'ambiguous' ? null : n;
};
const isBlank = (value: number | string) => typeof value === 'string' && value.trim() === '';
const hasAtMostDecimals = (n: number, digits: number) => Math.abs(Math.round(n * 10 ** digits) - n * 10 ** digits) < 1e-6;
const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The items that count: every line with a name or a price (a price without a name is incomplete, not dropped). */
function itemLines(items: DraftItem[]): Array<{ name: string; quantity: number | null; price: number | null }> {
  return items
    .filter((i) => i.name.trim() !== '' || !isBlank(i.price))
    .map((i) => ({ name: i.name.trim(), quantity: isBlank(i.quantity) ? 1 : toNumber(i.quantity), price: toNumber(i.price) }));
}

/** The sum of the item lines (quantity × price), or null when a line is incomplete or there is none. */
export function itemsTotal(items: DraftItem[], digits = 2): number | null {
  const lines = itemLines(items);
  if (lines.length === 0 || lines.some((l) => l.name === '' || l.quantity === null || l.price === null)) return null;
  return round(
    lines.reduce((sum, l) => sum + l.quantity! * l.price!, 0),
    digits,
  );
}

/** Checks the draft and builds the order body (the subtotal defaults to the items' total). */
export function buildOrder(draft: OrderDraft, context: DraftContext): DraftResult {
  const problems: Partial<Record<'subtotal' | 'items' | 'quickPay', DraftProblem>> = {};
  const lines = itemLines(draft.items);
  if (lines.some((l) => l.name === '' || l.quantity === null || l.quantity <= 0 || l.price === null || l.price < 0)) problems.items = 'itemInvalid';

  let subtotal: number | null;
  if (isBlank(draft.subtotal)) {
    subtotal = problems.items ? null : itemsTotal(draft.items, context.digits);
    if (subtotal === null && !problems.items) problems.subtotal = 'subtotalMissing';
  } else {
    const typed = readAmount(draft.subtotal);
    subtotal = typed === 'ambiguous' ? null : typed;
    if (typed === 'ambiguous') problems.subtotal = 'ambiguousAmount';
    else if (subtotal === null || subtotal < 0) problems.subtotal = 'subtotalInvalid';
    else if (!hasAtMostDecimals(subtotal, context.digits)) problems.subtotal = 'tooManyDecimals';
  }

  let quickPay = 0;
  if (!isBlank(draft.quickPay)) {
    const value = readAmount(draft.quickPay);
    if (value === 'ambiguous') problems.quickPay = 'ambiguousAmount';
    else if (value === null || value < 0) problems.quickPay = 'quickPayInvalid';
    else if (!hasAtMostDecimals(value, context.digits)) problems.quickPay = 'tooManyDecimals';
    else if (value > context.quickPayBalance + 1e-9) problems.quickPay = 'quickPayOverBalance';
    else if (subtotal !== null && value > subtotal + 1e-9) problems.quickPay = 'quickPayOverSubtotal';
    else quickPay = value;
  }

  if (Object.keys(problems).length > 0 || subtotal === null) return { ok: false, problems };
  const body: OrderDraftBody = { receipt_number: draft.receiptNumber, subtotal };
  if (lines.length > 0) body.items = lines.map((l) => ({ name: l.name, quantity: l.quantity!, price: l.price! }));
  if (quickPay > 0) body.quick_pay = quickPay;
  if (draft.rewards.length > 0) body.redemptions = [...draft.rewards];
  return { ok: true, body, subtotal };
}

/**
 * An amount above this many minor units is unusual at a counter, and the form asks the cashier to
 * confirm it before the order is placed (a slip such as 1000000 for 10.00 is caught there): 10,000.00
 * in a currency of two decimals, ¥1,000,000, 1,000.000 in one of three.
 */
export const LARGE_AMOUNT_MINOR = 1_000_000;

export interface LargeAmount {
  /** subtotal: the subtotal typed; items: the item lines' total (the subtotal when none was typed, or beside a different one typed); quickPay: the quick pay it spends. */
  field: 'subtotal' | 'items' | 'quickPay';
  /** Major units. */
  amount: number;
}

/**
 * The amounts of an order that are unusually large (above LARGE_AMOUNT_MINOR), for the cashier to
 * confirm, each named by what the cashier typed: a subtotal left empty is the items' total, and is
 * asked about as that ("Items total", not "Subtotal").
 */
export function largeAmounts(body: OrderDraftBody, digits: number, options: { subtotalTyped?: boolean } = {}): LargeAmount[] {
  const limit = LARGE_AMOUNT_MINOR / 10 ** digits;
  const found: LargeAmount[] = [];
  const fromItems = options.subtotalTyped === false && (body.items?.length ?? 0) > 0;
  if (body.subtotal > limit) found.push({ field: fromItems ? 'items' : 'subtotal', amount: body.subtotal });
  if (body.items && body.items.length > 0) {
    const items = round(
      body.items.reduce((sum, i) => sum + i.quantity * i.price, 0),
      digits,
    );
    if (items > limit && Math.abs(items - body.subtotal) > 1e-9) found.push({ field: 'items', amount: items });
  }
  if ((body.quick_pay ?? 0) > limit) found.push({ field: 'quickPay', amount: body.quick_pay! });
  return found;
}

/**
 * The order's subtotal as typed (or its items' total), whatever quick-pay amount is typed: "Use the
 * most" fixes an amount above the subtotal, so that amount must not hide the subtotal it is held to.
 */
export function draftSubtotal(draft: OrderDraft, context: DraftContext): number | null {
  const withoutQuickPay = buildOrder({ ...draft, quickPay: '' }, context);
  return withoutQuickPay.ok ? withoutQuickPay.subtotal : itemsTotal(draft.items, context.digits);
}

/** The most quick pay the order can take: the balance, and no more than the subtotal. */
export function maxQuickPay(balance: number, subtotal: number | null): number {
  return Math.max(0, subtotal === null ? balance : Math.min(balance, subtotal));
}

/**
 * A receipt number for a new order: local date and time to the second and six random characters
 * (receipt numbers are unique per store; two counters in the same second still differ), e.g.
 * "261121-093000-K7Q2ZD". Short enough to read out or type into the POS.
 */
export function newReceiptNumber(now = new Date(), random: () => number = Math.random): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${p(now.getFullYear() % 100)}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  let tail = '';
  for (let i = 0; i < 6; i++) tail += '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ'[Math.floor(random() * 34) % 34];
  return `${stamp}-${tail}`;
}

export function emptyDraft(receiptNumber: string): OrderDraft {
  return { subtotal: '', items: [], quickPay: '', rewards: [], receiptNumber };
}
