import type { Kysely } from 'kysely';
import { toMajorUnits } from '../../shared/money';
import { ServiceError } from '../../shared/errors';
import { survivingCustomerId } from '../customers/customer-store';
import type { Engine } from '../engine';
import { findIdentifiedCustomer } from '../onscreen/identify-customer';
import type { DB, OrdersTable } from '../storage/schema';
import { refuseConflictingIdentification } from './identification-conflict';
import { type CleanOrder, noCustomerNamed, type OrderInput } from './order-input';

/** Dates further apart than this are two sales: a POS's retry re-stamps within minutes, one that numbers afresh each day is a day apart. */
export const RESEND_DATE_WINDOW_MS = 12 * 3_600_000;

export type RecordedSale = Pick<OrdersTable, 'user_id' | 'subtotal' | 'total' | 'quick_pay_used' | 'redemptions' | 'receipt_number' | 'ordered_at'>;

/**
 * A receipt number already recorded at the store came with a sale. A till's retry is the same
 * sale and gets the first reply; a different one (a POS that restarts its numbering each day, a
 * mistyped number) would otherwise be answered with the first sale's reply, and its customer would
 * silently earn nothing. It is judged on what moves balances — the customer, subtotal, total,
 * quick pay and the rewards — and on the date within RESEND_DATE_WINDOW_MS, never on what a POS
 * may stamp afresh at each try (items, taxes, till, payment method). The resend must name its
 * customer as a new order would: one it does not identify is refused as such, never answered with
 * someone's sale.
 */
export async function refuseReusedReceipt(
  db: Kysely<DB>,
  engine: Engine,
  previous: RecordedSale,
  order: CleanOrder,
  sale: { input: OrderInput; vendorId: number; storeId: number; country: string; digits: number },
): Promise<void> {
  const difference = differentFigure(previous, order, sale.digits) ?? (await differentCustomer(db, engine, previous.user_id, sale));
  if (difference === undefined) return;
  throw new ServiceError(
    'receipt_number_reused',
    `Receipt ${previous.receipt_number} was already recorded at this store for a different sale (${difference}). Send a new receipt number; a resend of that sale must carry the same customer and amounts.`,
    'receipt_number',
  );
}

/** What of a sale moves balances, as a till sends it (CleanOrder) or an order row holds it (figuresOfOrder). */
type SaleFigures = Pick<CleanOrder, 'subtotal' | 'total' | 'quickPay' | 'redemptions' | 'orderedAt'>;

/**
 * Whether two recorded orders carry the same sale's figures (the customer aside): central's test of
 * a sale a store recorded under a receipt number another copy of the store holds (sync/central/repeated-sale.ts).
 */
export function sameSaleFigures(earlier: RecordedSale, later: RecordedSale): boolean {
  const redemptions = (JSON.parse(later.redemptions) as Array<{ rewardId: string }>).map((r) => r.rewardId);
  const figures = { subtotal: Number(later.subtotal), total: Number(later.total), quickPay: Number(later.quick_pay_used), redemptions, orderedAt: Number(later.ordered_at) };
  // The digits only shape the text of a difference, which is not told here.
  return differentFigure(earlier, figures, 0) === undefined;
}

/** The first figure on which `order` differs from the recorded sale, told recorded then sent; none for the same sale. */
function differentFigure(previous: RecordedSale, order: SaleFigures, digits: number): string | undefined {
  const amount = (minor: number) => toMajorUnits(minor, digits).toFixed(digits);
  const was = (what: string, recorded: string, sent: string) => `${what} ${recorded} recorded, ${sent} sent`;
  if (previous.subtotal !== order.subtotal) return was('subtotal', amount(previous.subtotal), amount(order.subtotal));
  if (previous.total !== order.total) return was('total', amount(previous.total), amount(order.total));
  if (previous.quick_pay_used !== order.quickPay) return was('quick pay', amount(previous.quick_pay_used), amount(order.quickPay));
  const redeemed = (JSON.parse(previous.redemptions) as Array<{ rewardId: string }>).map((r) => r.rewardId).sort();
  const asked = [...order.redemptions].sort();
  const list = (ids: string[]) => (ids.length === 0 ? 'none' : ids.join(', '));
  if (redeemed.join('\n') !== asked.join('\n')) return was('rewards', list(redeemed), list(asked));
  if (Math.abs(Number(previous.ordered_at) - order.orderedAt) > RESEND_DATE_WINDOW_MS) {
    return was('date', new Date(Number(previous.ordered_at)).toISOString(), new Date(order.orderedAt).toISOString());
  }
  return undefined;
}

async function differentCustomer(
  db: Kysely<DB>,
  engine: Engine,
  previousUserId: number,
  sale: { input: OrderInput; vendorId: number; storeId: number; country: string },
): Promise<string | undefined> {
  const userId = await customerNamed(db, engine, sale);
  // A merge since the first sale (chain sync) keeps the survivor: the same person.
  const before = await survivingCustomerId(db, previousUserId);
  return before === (await survivingCustomerId(db, userId)) ? undefined : 'another customer';
}

/** The customer the resend names: its session (open or since closed by the sale; a card_number beside it must agree) or its identification. */
async function customerNamed(db: Kysely<DB>, engine: Engine, sale: { input: OrderInput; vendorId: number; storeId: number; country: string }): Promise<number> {
  const { input } = sale;
  if (input.sessionHash) {
    const session = await db
      .selectFrom('pos_sessions')
      .select('user_id')
      .where('hash', '=', input.sessionHash)
      .where('vendor_id', '=', sale.vendorId)
      .where('store_id', '=', sale.storeId)
      .executeTakeFirst();
    if (!session) throw new ServiceError('session_not_found', undefined, 'pos_session_hash');
    await refuseConflictingIdentification(db, engine, { vendorId: sale.vendorId, country: sale.country, identification: input.identification }, Number(session.user_id));
    return Number(session.user_id);
  }
  if (!input.identification) throw noCustomerNamed();
  return (await findIdentifiedCustomer(db, engine, { vendorId: sale.vendorId, country: sale.country, identification: input.identification })).user.id;
}
