import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequester } from '../../src/renderer/src/api/client';
import { createHistoryApi, type HistoryRecord } from '../../src/renderer/src/api/history-api';
import { historyRowTexts, readHistoryRecord, signed } from '../../src/renderer/src/cashier/history-lines';
import { formatMoney, formatPoints, withMinusSign } from '../../src/renderer/src/format';
import { useCashierStrings } from '../../src/renderer/src/cashier/strings';
import { transact } from '../../src/core/engine';
import { expirePoints } from '../../src/core/expiry/expire-points';
import { openAccount, postEntry } from '../../src/core/ledger/ledger';
import { ownerOf, staffCall } from '../support/backoffice';
import { recordTransaction } from '../../src/core/orders/record-transaction';
import { creditQuickPay } from '../../src/core/payments/quick-pay/credit-quick-pay';
import type { ChargeRow } from '../../src/core/payments/charges/payment-charges';
import { reloadReceipts } from '../../src/core/payments/reloads/charge-billing-profile';
import { ROOMY_RATE_LIMITS, signUpAt } from '../support/customers';
import { inStoreApi } from '../support/in-store';
import { startTestNode, type TestNode } from '../support/test-node';

// The customer's history as the cashier's panel tells it, from the records the node really writes: a
// sale, its void (points taken back, a reward's points and the quick pay returned), the tier the
// sale got and the void took back, an auto reload done and one declined (no store). Every row says
// what moved, with its sign, in one minus sign (−, U+2212) whatever Intl writes, and a record with
// no store has no empty store part.

let node: TestNode;
const api = inStoreApi(() => node);

beforeAll(async () => {
  node = await startTestNode({ rateLimits: ROOMY_RATE_LIMITS });
});

afterAll(async () => {
  await node?.close();
});

/** The rows of a customer's history (newest first) in both languages. */
async function rowsOf(apiKey: string, userId: number) {
  const page = await createHistoryApi(createRequester({ baseUrl: node.url, credential: null }), apiKey).list(userId, { limit: 20 });
  const tell = (language: 'en' | 'es') => (r: HistoryRecord) => ({ ...historyRowTexts(readHistoryRecord(r), useCashierStrings.all[language], language, 'USD'), status: useCashierStrings.all[language].status(r.status) });
  return { records: page.data, en: page.data.map(tell('en')), es: page.data.map(tell('es')) };
}

describe('cashier history rows', () => {
  it('a void says which sale it reverses and what it took and gave back; an auto reload has no empty store', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId, { first_name: 'Ana', last_name: 'López' });
    await api.credit(v, v.quickPayCurrencyId, c.userId, 1_000);
    await api.credit(v, v.loyaltyCurrencyId, c.userId, 150);
    const coffee = await api.addReward(v, { name: 'Free coffee', cost: 100 });
    await api.addTier(v, { name: 'Member', threshold: 0 });
    await api.addTier(v, { name: 'Gold', threshold: 10 });

    await api.orderOk(v.apiKey, { card_number: c.email, receipt_number: 'R-12', subtotal: 12.5, quick_pay: 3.5, items: [{ name: 'Latte', quantity: 2, price: 6.25 }], redemptions: [coffee.id] });
    await api.voidOk(v.apiKey, 'R-12');
    // An auto reload the worker settled, as it credits one (no store), then one the card declined.
    const charge = { id: 77, purpose: 'auto_reload' } as ChargeRow;
    await transact(node.engine, (trx) =>
      creditQuickPay(trx, node.engine, { vendorId: v.vendorId, userId: c.userId, amountMinor: 2_000, kind: 'reload', referenceType: 'payment_charge', referenceId: '77', receipts: reloadReceipts(charge, null) }),
    );
    await transact(node.engine, (trx) =>
      recordTransaction(trx, node.engine, {
        vendorId: v.vendorId,
        userId: c.userId,
        storeId: null,
        orderId: null,
        kind: 'reload',
        occurredAt: node.engine.clock.now() + 1_000,
        total: 2_000,
        quickPayUsed: 0,
        quickPayLoaded: 0,
        quickPayBalance: 2_650,
        items: [],
        taxes: [],
        receipts: reloadReceipts({ id: 78, purpose: 'auto_reload' } as ChargeRow, null).map((r) => ({ ...r, decline_reason: 'card_declined' })),
        rewards: [],
        status: 'Declined',
      }),
    );

    const { records, en, es } = await rowsOf(v.apiKey, c.userId);
    const byKind = (kind: string) => records.findIndex((r) => r.object === kind);
    const at = (kind: string, nth = 0) => records.map((r, i) => [r, i] as const).filter(([r]) => r.object === kind)[nth]![1];
    expect(records.map((r) => r.object).sort()).toEqual(['order', 'reload', 'reload', 'tier_change', 'tier_change', 'void'].sort());

    // The sale: 12 points earned, a 100-point reward, 3.50 of quick pay; voided since.
    expect(en[byKind('order')]).toEqual({ title: 'Order R-12', context: 'Main Store · 2 × Latte · Sale $12.50', points: '+12 Points, −100 Points', quickPay: '−$3.50', status: 'Voided' });
    // Its void: the 12 points go, the reward's 100 and the 3.50 come back.
    expect(en[byKind('void')]).toEqual({ title: 'Void of R-12', context: 'Main Store · 2 × Latte · Sale $12.50', points: '−12 Points, +100 Points back', quickPay: '+$3.50 back', status: 'Voided' });
    expect(es[byKind('void')]).toEqual({
      title: 'Anulación de R-12',
      context: 'Main Store · 2 × Latte · Venta de $12.50',
      points: '−12 Points, +100 Points de vuelta',
      quickPay: '+$3.50 de vuelta',
      status: 'Anulado',
    });
    // The void took back the tier the sale got: named, nothing moved.
    expect(en[byKind('tier_change')]).toEqual({ title: 'Tier: Gold → Member', context: 'Main Store · No balance moved', points: '', quickPay: '', status: 'Complete' });
    expect(es[byKind('tier_change')]).toMatchObject({ title: 'Nivel: Gold → Member', context: 'Main Store · Ningún saldo cambió' });
    // The sale's own record of the promotion, older than the void's.
    expect(en[at('tier_change', 1)]).toEqual({ title: 'Tier: Member → Gold', context: 'Main Store · No balance moved', points: '', quickPay: '', status: 'Complete' });
    expect(es[at('tier_change', 1)]).toMatchObject({ title: 'Nivel: Member → Gold' });

    // The auto reload: no store, so no store part (and no leading separator).
    const reloads = [at('reload', 0), at('reload', 1)].map((i) => ({ en: en[i]!, es: es[i]!, record: records[i]! }));
    const done = reloads.find((r) => r.record.status === 'Complete')!;
    const declined = reloads.find((r) => r.record.status === 'Declined')!;
    expect(done.record.name).toBe('');
    expect(done.en).toEqual({ title: 'Auto reload', context: '', points: '', quickPay: '+$20.00', status: 'Complete' });
    expect(done.es).toEqual({ title: 'Recarga automática', context: '', points: '', quickPay: '+$20.00', status: 'Completado' });
    expect(declined.en).toEqual({ title: 'Auto reload', context: 'Card charge of $20.00 declined: nothing loaded', points: '', quickPay: '', status: 'Declined' });
    expect(declined.es.status).toBe('Rechazado');

    // One minus sign everywhere: no hyphen-minus before a number.
    for (const row of [...en, ...es]) for (const text of [row.points, row.quickPay, row.context]) expect(text).not.toMatch(/-\s?[\d$]/);
  });

  it('staff adjustments and points that expired are in the history, so it explains the balance', async () => {
    const v = await node.addVendor();
    const c = await signUpAt(node, v.vendorId, { first_name: 'Bea', last_name: 'Ruiz' });
    const owner = await ownerOf(node, v.vendorId);
    const program = (await staffCall(node, owner.token, 'GET', '/backoffice/program')).body as { currencies: Array<{ id: string; code: string | null }> };
    const usd = program.currencies.find((x) => x.code === 'USD')!.id;
    const points = program.currencies.find((x) => x.code === null)!.id;
    for (const body of [
      { currency: points, amount: 40, reason: 'Missed stamps' },
      { currency: usd, amount: 1_250, reason: 'Refund of a spilled latte' },
      { currency: usd, amount: -200, reason: 'Credited twice by mistake' },
    ]) {
      expect((await staffCall(node, owner.token, 'POST', `/backoffice/customers/${c.userId}/adjustments`, body)).status).toBe(201);
    }
    await transact(node.engine, async (trx) => {
      const account = await openAccount(trx, node.engine, { vendorId: v.vendorId, currencyId: v.loyaltyCurrencyId, holderType: 'user', holderId: c.userId });
      await postEntry(trx, node.engine, account, { amount: 25, kind: 'earn', expiresAt: node.engine.clock.now() + 1_000 });
    });
    node.clock.advance(2_000);
    await expirePoints(node.engine);

    const { records, en, es } = await rowsOf(v.apiKey, c.userId);
    expect(records.map((r) => r.object)).toEqual(['expiry', 'adjustment', 'adjustment', 'adjustment']);
    expect(en).toEqual([
      { title: 'Points expired', context: '', points: '−25 Points', quickPay: '', status: 'Complete' },
      { title: 'Adjusted by the store', context: '', points: '', quickPay: '−$2.00', status: 'Complete' },
      { title: 'Adjusted by the store', context: '', points: '', quickPay: '+$12.50', status: 'Complete' },
      { title: 'Adjusted by the store', context: '', points: '+40 Points', quickPay: '', status: 'Complete' },
    ]);
    expect(es[0]).toMatchObject({ title: 'Puntos vencidos', points: '−25 Points' });
    // Staff's reasons stay in the audit log.
    expect(JSON.stringify(records)).not.toMatch(/spilled|mistake|stamps/);
    // The quick-pay running balance after each move.
    expect(records.slice(1).map((r) => r.quickpay.balance)).toEqual([10.5, 12.5, 0]);
  });

  it('balances and moves use one minus sign (−), in both languages', () => {
    for (const language of ['en', 'es']) {
      expect(withMinusSign(-6, (n) => formatPoints(n, language))).toBe('−6');
      expect(withMinusSign(1280, (n) => formatPoints(n, language))).toBe(formatPoints(1280, language));
      expect(withMinusSign(-29.99, (n) => formatMoney(n, 'USD', language))).toBe(`−${formatMoney(29.99, 'USD', language)}`);
      expect(signed(-3.5, (n) => formatMoney(n, 'USD', language))).toMatch(/^−[^-]+$/);
      expect(signed(3.5, (n) => formatMoney(n, 'USD', language))).toMatch(/^\+[^-]+$/);
    }
    // What Intl writes on its own, for the record: a hyphen-minus.
    expect(formatMoney(-29.99, 'USD', 'en')).toBe('-$29.99');
  });
});
