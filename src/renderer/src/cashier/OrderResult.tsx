import { Alert, List } from '@mantine/core';
import { useEffect, useRef } from 'react';
import type { OrderReply } from '../api/orders-api';
import { useLanguage } from '../i18n/language-store';
import { useSession } from '../session/session-store';
import { useCashier, useCashierUi, useCustomer } from './context';
import { orderResultLines } from './order-result-lines';
import { useCashierStrings } from './strings';

/** What an order placed from this panel moved (the balances above are the ones after it). */
export function OrderResult({ order }: { order: OrderReply }) {
  const t = useCashierStrings();
  const language = useLanguage();
  const fallback = useSession((s) => s.terminal?.quick_pay_currency ?? null);
  const code = order.balances.quick_pay.currency?.code ?? fallback;
  const country = useSession((s) => s.terminal?.country ?? null);
  // The auto reload the order queued: on its way until the history has its record, then what it says.
  const reload = useCustomer((s) => (s.autoReload?.receipt === order.receipt_number ? s.autoReload : null));
  const lines = orderResultLines(order, reload, t, language, code, country);
  // Just placed (Ctrl+Enter): the result takes the focus from the closed dialog, so it is read and
  // the focus does not fall to the next customer's queue row (where Enter would open them).
  const cashier = useCashier();
  const ref = useRef<HTMLDivElement>(null);
  const focus = useCashierUi((s) => s.focusOrderResult && s.dialog === null);
  useEffect(() => {
    if (!focus) return;
    ref.current?.focus();
    cashier.ui.getState().setFocusOrderResult(false);
  }, [focus, cashier]);
  return (
    <Alert ref={ref} tabIndex={-1} color="teal" role="status" title={t.orderDone(order.receipt_number)} data-testid="order-result">
      {lines.length === 0 ? (
        t.nothingMoved
      ) : (
        <List size="sm" spacing={2}>
          {lines.map((line, i) => (
            <List.Item key={i}>{line}</List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}
