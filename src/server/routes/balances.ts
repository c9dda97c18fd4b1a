import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { CurrencyInfo } from '../../core/balances/balance-store';
import { customerBalances } from '../../core/balances/customer-balances';
import { quickPayBalance } from '../../core/balances/quick-pay-balance';
import { toMajorUnits } from '../../shared/money';
import type { Engine } from '../../core/engine';
import { type CurrencyRef, CurrencyBalanceSchema, QuickPayBalanceSchema } from '../../shared/schemas/consumer';
import { SessionQuery } from '../../shared/schemas/users';
import { toUnixSeconds } from '../../shared/time';
import { customerOf, requireSession } from '../auth/session';

const tags = ['Balances'];
const config = { style: 'legacy' as const };

export function currencyRefWire(currency: CurrencyInfo): CurrencyRef {
  return { id: currency.id, name: currency.name, code: currency.code, object: 'currency' };
}

/** Minor units to the decimal number legacy replies show (1250 USD cents -> 12.5; points stay whole). */
export function amountWire(minor: number, currency: CurrencyInfo): number {
  return toMajorUnits(minor, currency.digits);
}

/** The logged-in customer's balances: quick pay alone, and every active currency with expirations. */
export const balanceRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const session = requireSession(engine);

  app.get(
    '/user/quick-pay/balance',
    { config, preValidation: session, schema: { tags, querystring: SessionQuery, response: { 200: QuickPayBalanceSchema } } },
    async (request) => {
      const held = await quickPayBalance(engine, customerOf(request));
      return { amount: amountWire(held.balance, held.currency), currency: currencyRefWire(held.currency) };
    },
  );

  app.get(
    '/user/currency/balance',
    { config, preValidation: session, schema: { tags, querystring: SessionQuery, response: { 200: Type.Array(CurrencyBalanceSchema) } } },
    async (request) =>
      (await customerBalances(engine, customerOf(request))).map((entry) => ({
        object: 'currency_balance' as const,
        currency: currencyRefWire(entry.currency),
        quick_pay: entry.quickPay,
        balance: amountWire(entry.balance, entry.currency),
        expiring: entry.expiring.map((e) => ({ date: toUnixSeconds(e.at), amount: amountWire(e.amount, entry.currency) })),
      })),
  );
};
