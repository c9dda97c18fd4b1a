import type { Kysely } from 'kysely';
import { toMajorUnits } from '../../shared/money';
import { ServiceError } from '../../shared/errors';
import { survivingCustomerId } from '../customers/customer-store';
import type { Engine } from '../engine';
import { findIdentifiedCustomer } from '../onscreen/identify-customer';
import type { DB, OrdersTable } from '../storage/schema';
import type { CleanOrder, OrderInput } from './order-input';

/**
 * A receipt number already recorded at the store came with a sale. A till's retry is the same
 * sale and gets the first reply; a different one (a POS that restarts its numbering each day, a
 * mistyped number) would otherwise be answered with the first sale's reply, and its customer would
 * silently earn nothing. It is judged on what moves balances — the customer, subtotal, total,
 * quick pay and the rewards — never on what a POS may stamp afresh at each try (date, items, taxes,
 * till, payment method). A customer the resend no longer identifies (a card unlinked since) is not
 * judged.
 */
export async function refuseReusedReceipt(
  db: Kysely<DB>,
  engine: Engine,
  previous: Pick<OrdersTable, 'user_id' | 'subtotal' | 'total' | 'quick_pay_used' | 'redemptions' | 'receipt_number'>,
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

function differentFigure(previous: Pick<OrdersTable, 'subtotal' | 'total' | 'quick_pay_used' | 'redemptions'>, order: CleanOrder, digits: number): string | undefined {
  const amount = (minor: number) => toMajorUnits(minor, digits).toFixed(digits);
  if (previous.subtotal !== order.subtotal) return `subtotal ${amount(previous.subtotal)}`;
  if (previous.total !== order.total) return `total ${amount(previous.total)}`;
  if (previous.quick_pay_used !== order.quickPay) return `quick pay ${amount(previous.quick_pay_used)}`;
  const redeemed = (JSON.parse(previous.redemptions) as Array<{ rewardId: string }>).map((r) => r.rewardId).sort();
  const asked = [...order.redemptions].sort();
  if (redeemed.join('\n') !== asked.join('\n')) return redeemed.length === 0 ? 'no rewards' : `rewards ${redeemed.join(', ')}`;
  return undefined;
}

async function differentCustomer(
  db: Kysely<DB>,
  engine: Engine,
  previousUserId: number,
  sale: { input: OrderInput; vendorId: number; storeId: number; country: string },
): Promise<string | undefined> {
  const userId = await customerNamed(db, engine, sale);
  if (userId === undefined) return undefined;
  // A merge since the first sale (chain sync) keeps the survivor: the same person.
  const before = await survivingCustomerId(db, previousUserId);
  return before === (await survivingCustomerId(db, userId)) ? undefined : 'another customer';
}

/** The customer the resend names: its session (open or since closed by the sale) or its identification. */
async function customerNamed(db: Kysely<DB>, engine: Engine, sale: { input: OrderInput; vendorId: number; storeId: number; country: string }): Promise<number | undefined> {
  const { input } = sale;
  if (input.sessionHash) {
    const session = await db
      .selectFrom('pos_sessions')
      .select('user_id')
      .where('hash', '=', input.sessionHash)
      .where('vendor_id', '=', sale.vendorId)
      .where('store_id', '=', sale.storeId)
      .executeTakeFirst();
    return session?.user_id;
  }
  if (!input.identification) return undefined;
  try {
    return (await findIdentifiedCustomer(db, engine, { vendorId: sale.vendorId, country: sale.country, identification: input.identification })).user.id;
  } catch {
    return undefined;
  }
}
