import { Alert, List } from '@mantine/core';
import type { OrderReply } from '../api/orders-api';
import { formatMoney, formatPoints } from '../format';
import { useLanguage } from '../i18n/language-store';
import { useSession } from '../session/session-store';
import { useCustomer } from './context';
import { useCashierStrings } from './strings';

/** What an order placed from this panel moved (the balances above are the ones after it). */
export function OrderResult({ order }: { order: OrderReply }) {
  const t = useCashierStrings();
  const language = useLanguage();
  const fallback = useSession((s) => s.terminal?.quick_pay_currency ?? null);
  const code = order.balances.quick_pay.currency?.code ?? fallback;
  // The auto reload the order queued: on its way until the history has its record, then what it says.
  const reload = useCustomer((s) => (s.autoReload?.receipt === order.receipt_number ? s.autoReload : null));
  const reloadLine =
    reload?.status === 'arrived'
      ? t.autoReloadArrived(formatMoney(reload.amount, code, language), formatMoney(reload.balance, code, language))
      : reload?.status === 'declined'
        ? t.autoReloadDeclined(formatMoney(reload.amount, code, language))
        : order.auto_reload_queued
          ? t.autoReloadQueued
          : null;
  const lines = [
    ...order.earned.map((e) => t.pointsEarned(formatPoints(e.points, language), e.currency.name)),
    ...order.redeemed.map((r) => `${t.pointsSpent(formatPoints(r.cost, language), r.currency.name)} (${r.name})`),
    ...(order.quick_pay_used > 0 ? [t.quickPayUsed(formatMoney(order.quick_pay_used, code, language))] : []),
    ...(reloadLine ? [reloadLine] : []),
  ];
  return (
    <Alert color="teal" role="status" title={t.orderDone(order.receipt_number)} data-testid="order-result">
      {lines.length === 0 ? (
        t.nothingMoved
      ) : (
        <List size="sm" spacing={2}>
          {lines.map((line) => (
            <List.Item key={line}>{line}</List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}
