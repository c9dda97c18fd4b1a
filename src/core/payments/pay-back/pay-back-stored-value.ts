import type { Kysely } from 'kysely';
import { ServiceError } from '../../../shared/errors';
import { toMajorUnits } from '../../../shared/money';
import { type Actor, recordAudit } from '../../audit/record-audit';
import { holdProgramMoney } from '../../currencies/program-money';
import { checkCustomerAccess } from '../../customer-care/customer-access';
import { survivingCustomerId } from '../../customers/customer-store';
import { type Engine, ownsProgramData, transact } from '../../engine';
import { recordBalanceNote } from '../../history/balance-note';
import { openAccount, postEntry } from '../../ledger/ledger';
import { actorOf } from '../../staff/authorize';
import type { StaffPrincipal } from '../../staff/staff-sessions';
import { lockKey, lockRow } from '../../storage/dialect';
import { nextObjectId } from '../../storage/ids';
import type { DB } from '../../storage/schema';
import { refuseUnchargeableAmount } from '../gateway/card-amounts';
import { PaymentGatewayError } from '../gateway/payment-gateway';
import { quickPayCurrencyOf, type QuickPayCurrency } from '../quick-pay/credit-quick-pay';
import { allocateRefunds, refundableReloads, totalRefundable } from './card-refundable';
import { type PaybackRecord, readPayback } from './payback-record';

// Staff pay a customer's quick-pay money back (docs/decisions.md, "Ninth round: stored value paid
// back"): in cash over the counter, or refunded to the cards whose reloads loaded it. The money
// leaves the balance as a `payback` ledger entry in the same transaction that records the pay-back,
// before any gateway is asked, so no sale here can spend what is on its way to a card (a chain's
// store that has not pulled it yet still can: central's overdraft exception names the pay-back,
// sync/central/settle-accounts.ts). A card refund the
// gateway refuses comes back as a compensating `payback` entry (the balance ends as it was); one
// whose answer was lost stays `refunding`, and the same request (its idempotency key) asks again
// under the same gateway keys, so the money goes back once; so does the node's job
// (finish-lost-paybacks.ts) through sendRefunds, for a pay-back nobody finished.

export interface PayBackRequest {
  /** Minor units of the quick-pay currency, > 0, at most the balance. */
  amount: number;
  method: string;
  /** The same key answers the same pay-back (a double click pays once). */
  idempotencyKey: string;
  /** Why or how (a receipt number), for the audit log. */
  note?: string | null | undefined;
}

const KEY = /^[\x21-\x7e]{1,255}$/;

/** Pays back all or part of a customer's positive quick-pay balance; answers the pay-back as it stands. */
export async function payBackStoredValue(engine: Engine, staff: StaffPrincipal, requestedId: number, request: PayBackRequest): Promise<PaybackRecord> {
  // Balances and memberships travel central → store: a store's pay-back would be money moved
  // where the program's record of it does not live (as staff's removal of a member).
  if (!ownsProgramData(engine)) throw new ServiceError('payback_managed_by_central');
  const input = checkRequest(request);
  let payback = await startPayback(engine, staff, requestedId, input);
  if (payback.status === 'refunding') payback = (await sendRefunds(engine, actorOf(staff), payback.id)).payback;
  if (payback.status === 'refused') throw new ServiceError('payback_refused');
  return payback;
}

type Checked = { amount: number; method: 'cash' | 'card'; key: string; note: string | null };

function checkRequest(request: PayBackRequest): Checked {
  if (!Number.isSafeInteger(request.amount) || request.amount <= 0) throw new ServiceError('validation_failed', 'amount must be a whole number of minor units greater than 0.', 'amount');
  if (request.method !== 'cash' && request.method !== 'card') throw new ServiceError('validation_failed', 'method must be one of: cash, card.', 'method');
  if (typeof request.idempotencyKey !== 'string' || !KEY.test(request.idempotencyKey)) throw new ServiceError('validation_failed', 'idempotency_key must be 1 to 255 visible ASCII characters.', 'idempotency_key');
  const note = request.note?.trim() || null;
  if (note !== null && note.length > 500) throw new ServiceError('validation_failed', 'note must be at most 500 characters.', 'note');
  return { amount: request.amount, method: request.method, key: request.idempotencyKey, note };
}

/** What makes two requests under one key the same pay-back. */
const fingerprintOf = (userId: number, input: Checked) => `${userId}|${input.method}|${input.amount}`;

/**
 * Records the pay-back and takes the money out of the balance, in one transaction; a key seen
 * before answers its pay-back (another customer, method or amount under it: 409).
 */
async function startPayback(engine: Engine, staff: StaffPrincipal, requestedId: number, input: Checked): Promise<PaybackRecord> {
  const id = await transact(engine, async (trx) => {
    const userId = await survivingCustomerId(trx, requestedId);
    // Two clicks at once: the second waits here and then finds the first's row.
    await lockKey(trx, engine.dialect, `payback:${staff.vendorId}:${input.key}`);
    const seen = await trx.selectFrom('stored_value_paybacks').select(['id', 'fingerprint']).where('vendor_id', '=', staff.vendorId).where('idempotency_key', '=', input.key).executeTakeFirst();
    if (seen) {
      if (seen.fingerprint !== fingerprintOf(userId, input)) throw new ServiceError('idempotency_key_reused', undefined, 'idempotency_key');
      return Number(seen.id);
    }
    await holdProgramMoney(trx, engine.dialect, staff.vendorId);
    await checkCustomerAccess(trx, staff.vendorId, null, userId);
    // Money paid out of a paused currency is still owed: only a program without quick pay refuses.
    const currency = await quickPayCurrencyOf(trx, staff.vendorId, { requireActive: false });
    if (input.method === 'card') refuseUnchargeableAmount(input.amount, currency, 'amount');
    const accountId = await openAccount(trx, engine, { vendorId: staff.vendorId, currencyId: currency.id, holderType: 'user', holderId: userId });
    // The account first: a second pay-back (or a sale) of the same money goes after this one.
    await lockRow(trx, engine.dialect, 'ledger_accounts', accountId);
    const paybackId = await nextObjectId(trx, engine.nodeId);
    const posted = await postEntry(trx, engine, accountId, { amount: -input.amount, kind: 'payback', referenceType: 'payback', referenceId: String(paybackId) });
    if (posted.balance < 0) throw new ServiceError('payback_exceeds_balance', undefined, 'amount');
    const parts = input.method === 'card' ? await cardParts(trx, engine, staff.vendorId, userId, currency, input.amount) : [];
    const now = engine.clock.now();
    await trx
      .insertInto('stored_value_paybacks')
      .values({
        id: paybackId,
        vendor_id: staff.vendorId,
        user_id: userId,
        currency_id: currency.id,
        method: input.method,
        amount: input.amount,
        amount_paid: input.amount,
        status: input.method === 'cash' ? 'paid' : 'refunding',
        idempotency_key: input.key,
        fingerprint: fingerprintOf(userId, input),
        staff_id: staff.staffId,
        note: input.note,
        ledger_entry_id: posted.id,
        created_at: now,
        completed_at: input.method === 'cash' ? now : null,
      })
      .execute();
    for (const part of parts) {
      await trx
        .insertInto('stored_value_payback_refunds')
        .values({ id: await nextObjectId(trx, engine.nodeId), vendor_id: staff.vendorId, payback_id: paybackId, charge_id: part.reload.chargeId, amount: part.amount, status: 'pending', gateway_refund_id: null, created_at: now, updated_at: now })
        .execute();
    }
    await recordBalanceNote(trx, engine, { kind: 'payback', vendorId: staff.vendorId, userId, currency, amount: -input.amount });
    await recordAudit(trx, engine, actorOf(staff), {
      action: 'customer.pay_back',
      objectType: 'customer',
      objectId: userId,
      before: { currency: currency.publicId, balance: posted.balance + input.amount },
      after: { balance: posted.balance, amount: input.amount, method: input.method, note: input.note, payback: paybackId, ledger_entry: posted.id },
    });
    return paybackId;
  });
  return readPayback(engine.db, id);
}

/** The card refunds a pay-back of `amount` is made of, newest reload first; 422 when the cards cannot take it. */
async function cardParts(trx: Kysely<DB>, engine: Engine, vendorId: number, userId: number, currency: QuickPayCurrency, amount: number) {
  const reloads = await refundableReloads(trx, engine.payments.name, { vendorId, userId, currencyId: currency.id });
  const parts = allocateRefunds(reloads, amount);
  if (parts) return parts;
  const most = toMajorUnits(totalRefundable(reloads), currency.digits).toFixed(currency.digits);
  throw new ServiceError('payback_exceeds_card_refunds', `At most ${most} ${currency.code} can go back to the customer's cards (what their card reloads paid, less what was refunded): pay the rest in cash.`, 'amount');
}


export interface SendRefundsOptions {
  /** Audit the close itself (`customer.pay_back_finished`): the job finishing what a request left. */
  auditFinish?: boolean;
}

/**
 * Asks the gateway for each card refund still pending (never inside a transaction), under the
 * refund row's own key, then finishes the pay-back. An unknown outcome leaves it `refunding`: 503,
 * and the same request (or the job) asks again. `closed`: this call closed it (not another).
 */
export async function sendRefunds(engine: Engine, actor: Actor, paybackId: number, options: SendRefundsOptions = {}): Promise<{ payback: PaybackRecord; closed: boolean }> {
  const pending = await engine.db
    .selectFrom('stored_value_payback_refunds as r')
    .innerJoin('payment_charges as c', 'c.id', 'r.charge_id')
    .select(['r.id', 'r.amount', 'c.gateway_charge_id', 'c.currency'])
    .where('r.payback_id', '=', paybackId)
    .where('r.status', '=', 'pending')
    .orderBy('r.id')
    .execute();
  for (const refund of pending) {
    let status: 'succeeded' | 'failed';
    let refundId: string | null = null;
    try {
      const result = await engine.payments.refund(refund.gateway_charge_id!, `punchcard-payback-refund-${refund.id}`, { amountMinor: Number(refund.amount), currency: refund.currency });
      // A refund the processor still processes (Stripe's `pending`) is on its way to the card.
      status = result.status === 'failed' ? 'failed' : 'succeeded';
      refundId = result.refundId || null;
    } catch (error) {
      // The processor refused the request itself (nothing was refunded); else the outcome is unknown.
      if (!(error instanceof PaymentGatewayError)) throw error;
      if (error.retryable) throw new ServiceError('payment_gateway_unavailable');
      status = 'failed';
    }
    await engine.db.updateTable('stored_value_payback_refunds').set({ status, gateway_refund_id: refundId, updated_at: engine.clock.now() }).where('id', '=', refund.id).where('status', '=', 'pending').execute();
  }
  const closed = await finishPayback(engine, actor, paybackId, options);
  return { payback: await readPayback(engine.db, paybackId), closed };
}

/**
 * Closes a pay-back whose refunds all have an outcome: what the gateway refused comes back to the
 * balance as one compensating entry. Guarded by the status, so two finishing at once return it once.
 */
async function finishPayback(engine: Engine, actor: Actor, paybackId: number, options: SendRefundsOptions): Promise<boolean> {
  return transact(engine, async (trx) => {
    const payback = await trx.selectFrom('stored_value_paybacks').selectAll().where('id', '=', paybackId).executeTakeFirstOrThrow();
    const refunds = await trx.selectFrom('stored_value_payback_refunds').select(['amount', 'status']).where('payback_id', '=', paybackId).execute();
    if (refunds.some((refund) => refund.status === 'pending')) return false;
    const refused = refunds.filter((refund) => refund.status === 'failed').reduce((sum, refund) => sum + Number(refund.amount), 0);
    const amount = Number(payback.amount);
    const status = refused === 0 ? 'paid' : refused === amount ? 'refused' : 'partial';
    const moved = await trx
      .updateTable('stored_value_paybacks')
      .set({ status, amount_paid: amount - refused, completed_at: engine.clock.now() })
      .where('id', '=', paybackId)
      .where('status', '=', 'refunding')
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    const userId = Number(payback.user_id);
    const currencyId = Number(payback.currency_id);
    const currency = await trx.selectFrom('currencies').select(['id', 'name', 'public_id']).where('id', '=', currencyId).executeTakeFirstOrThrow();
    if (options.auditFinish) {
      // The currency in both: the audit log writes the amounts as money in it (an entry written before said none).
      await recordAudit(trx, engine, actor, {
        action: 'customer.pay_back_finished',
        objectType: 'customer',
        objectId: userId,
        before: { currency: currency.public_id, payback: paybackId, status: 'refunding' },
        after: { currency: currency.public_id, payback: paybackId, status, amount_paid: amount - refused, returned: refused },
      });
    }
    if (refused === 0) return true;
    const vendorId = Number(payback.vendor_id);
    const accountId = await openAccount(trx, engine, { vendorId, currencyId, holderType: 'user', holderId: userId });
    const back = await postEntry(trx, engine, accountId, { amount: refused, kind: 'payback', referenceType: 'payback', referenceId: String(paybackId), reversesId: Number(payback.ledger_entry_id) });
    await recordBalanceNote(trx, engine, { kind: 'payback', vendorId, userId, currency: { id: Number(currency.id), name: currency.name }, amount: refused });
    await recordAudit(trx, engine, actor, {
      action: 'customer.pay_back_refused',
      objectType: 'customer',
      objectId: userId,
      before: { currency: currency.public_id, balance: back.balance - refused },
      after: { balance: back.balance, returned: refused, payback: paybackId, ledger_entry: back.id },
    });
    return true;
  });
}
