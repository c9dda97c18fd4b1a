import { ServiceError } from '../../shared/errors';
import { toMinorUnits } from '../../shared/money';

/** An order as the POS sends it (amounts in major units, as on the receipt). */
export interface OrderInput {
  /** Any identification check-in accepts; or pos_session_hash. */
  identification?: string | undefined;
  sessionHash?: string | undefined;
  receiptNumber: string;
  till?: number | undefined;
  subtotal: number;
  total?: number | undefined;
  taxes?: unknown[] | undefined;
  paymentMethod?: string | undefined;
  /** Unix seconds; defaults to now. */
  date?: number | undefined;
  items?: Array<{ name: string; quantity: number; price: number; sku?: string | undefined }> | undefined;
  /** Quick-pay amount paid, major units. */
  quickPay?: number | undefined;
  /** Reward ids (rwd_…) redeemed, one entry per unit. */
  redemptions?: string[] | undefined;
}

export interface CleanOrder {
  receiptNumber: string;
  till: number | null;
  subtotal: number;
  total: number;
  taxes: unknown[];
  paymentMethod: string | null;
  orderedAt: number;
  items: Array<{ name: string; quantity: number; price: number; sku: string | null }>;
  quickPay: number;
  redemptions: string[];
}

/**
 * The largest amount an order may carry, in minor units (a billion dollars in cents): far above
 * any sale at a counter, and low enough that the points it earns stay exact integers.
 */
export const MAX_ORDER_AMOUNT = 100_000_000_000;

function orderAmount(major: number, digits: number, field: string): number {
  const minor = toMinorUnits(major, digits, field);
  if (Math.abs(minor) > MAX_ORDER_AMOUNT) throw new ServiceError('validation_failed', `${field} is larger than any order can be.`, field);
  return minor;
}

/**
 * How far a sale's `date` may run ahead of the node's clock and be kept: a till's clock a little
 * fast. Beyond it the till's clock is wrong, or it sends local time as UTC (Madrid's 10:00 as 10:00
 * UTC is an hour ahead): the sale is happening now, so it is dated by the node's clock. Kept as
 * sent, it sat atop the history for years, kept its rating and tip windows open that long and was
 * judged by rules not yet started; refused, a counter with a fast till could not sell at all.
 */
export const ORDER_DATE_AHEAD_MS = 5 * 60_000;

/** The sale's moment: the till's `date` (Unix seconds) unless it runs too far ahead of the node's clock; none sent is now. */
function saleMoment(date: number | undefined, now: number): number {
  if (date === undefined) return now;
  return date * 1000 - now > ORDER_DATE_AHEAD_MS ? now : date * 1000;
}

/** An order names its customer by an open session or any identification check-in accepts. */
export function noCustomerNamed(): ServiceError {
  return new ServiceError('validation_failed', 'Send card_number (any identification) or pos_session_hash.', 'card_number');
}

export function cleanOrder(input: OrderInput, digits: number, now: number): CleanOrder {
  const receiptNumber = input.receiptNumber.trim();
  if (receiptNumber === '' || receiptNumber.length > 64) throw new ServiceError('validation_failed', 'receipt_number must be 1 to 64 characters.', 'receipt_number');
  const subtotal = orderAmount(input.subtotal, digits, 'subtotal');
  if (subtotal < 0) throw new ServiceError('validation_failed', 'subtotal cannot be negative.', 'subtotal');
  const total = input.total === undefined ? subtotal : orderAmount(input.total, digits, 'total');
  const quickPay = input.quickPay === undefined ? 0 : orderAmount(input.quickPay, digits, 'quick_pay');
  if (quickPay < 0) throw new ServiceError('validation_failed', 'quick_pay cannot be negative.', 'quick_pay');
  if (quickPay > Math.max(total, 0)) throw new ServiceError('validation_failed', 'quick_pay cannot exceed the total.', 'quick_pay');
  const items = (input.items ?? []).map((item, i) => {
    if (!item.name?.trim()) throw new ServiceError('validation_failed', `items[${i}].name is required.`, `items.${i}.name`);
    if (!(item.quantity > 0)) throw new ServiceError('validation_failed', `items[${i}].quantity must be more than 0.`, `items.${i}.quantity`);
    return { name: item.name.trim(), quantity: item.quantity, price: item.price, sku: item.sku ?? null };
  });
  return {
    receiptNumber,
    till: input.till ?? null,
    subtotal,
    total,
    taxes: input.taxes ?? [],
    paymentMethod: input.paymentMethod?.trim() || null,
    orderedAt: saleMoment(input.date, now),
    items,
    quickPay,
    // A form's empty `redemptions=` (or a blank id) is no reward, not an unknown one.
    redemptions: (input.redemptions ?? []).filter((id) => id.trim() !== ''),
  };
}
