// The cashier screen: live queue, customer panel, check-in, in-store register, orders and shortcuts.
//
// Names for end-to-end tests (English; Spanish in parentheses):
// - region "Queue" (Cola), data-testid="queue"; inside, list "Queue" whose items are named after the
//   customer ("Ana López"; a guest without names by their email), data-testid="queue-entry" with
//   data-hash; the open one has aria-current="true" (on its button too). Empty: data-testid="queue-empty";
//   count badge data-testid="queue-count".
// - region "Customer" (Cliente), data-testid="customer-panel"; nothing selected: "customer-none";
//   loading: "customer-loading"; heading data-testid="customer-name"; "customer-tier".
// - balances: data-testid="quick-pay-balance" and "loyalty-balance-<currency name, spaces as ->"
//   (e.g. "loyalty-balance-Points"), each with data-amount = the raw number; what expires next:
//   "quick-pay-expiring", "loyalty-expiring-<name>"; auto reload: "auto-reload" (data-on).
// - rewards: list "Rewards" (items named after the reward, data-testid="reward"), or "rewards-empty";
//   last visit "last-visit"; history: table "Recent history" (data-testid="history", rows "history-row").
// - check-in: form "Check in", textbox "Check in a customer" (data-testid="check-in-input"), button
//   "Check in"; errors: role="alert" (data-testid="check-in-error") with the node's own message.
// - buttons "Register customer", "Shortcuts", "Place order", "Close session", "Done".
// - order dialog: textbox "Subtotal" (data-testid="order-subtotal"), "Pay with quick pay"
//   ("order-quick-pay"), "Add item", reward checkboxes, button "Place order"; refused: role="alert"
//   data-testid="order-error"; placed: role="status" data-testid="order-result".
// - close dialog: button "Close session" (focused; Enter confirms). Register dialog: "By phone" /
//   "By email" (radiogroup "Register by"), textbox "Mobile number" or "Email address", button
//   "Register and check in". The page's h1 (visually hidden): "Cashier: <store>".
// Focus: a typed check-in or a registration puts it on the customer's name in the panel; a placed
// order on its result ("order-result"). Enter on the panel opens no queue row.
// Keys: F2 or / check-in box, ↓/J ↑/K move, Enter open, O order, Ctrl+Enter place it, X close
// session, N register, ? shortcuts, Esc close a dialog or leave a text box.
import { Alert, Button, Grid, Group, Stack, VisuallyHidden } from '@mantine/core';
import { useEffect, useMemo } from 'react';
import { eventStream, useEventStreamStatus } from '../events/event-stream';
import { useSession, useTerminalApi } from '../session/session-store';
import { cashierFor } from './cashier-controller';
import { CheckInBox } from './CheckInBox';
import { ConfirmClose } from './ConfirmClose';
import { CashierContext } from './context';
import { CustomerPanel } from './CustomerPanel';
import { OrderForm } from './OrderForm';
import { QueueList } from './QueueList';
import { RegisterDialog } from './RegisterDialog';
import { ShortcutsHelp } from './ShortcutsHelp';
import { KeyHint } from './KeyHint';
import { useCashierStrings } from './strings';
import { useCashierShortcuts } from './use-shortcuts';

export function CashierScreen() {
  const t = useCashierStrings();
  const api = useTerminalApi();
  const cashier = useMemo(() => cashierFor(api, eventStream()), [api]);
  const offline = useEventStreamStatus() === 'offline';
  const store = useSession((s) => s.terminal?.store.name ?? '');
  useEffect(() => cashier.start(), [cashier]);
  useCashierShortcuts(cashier);

  return (
    <CashierContext.Provider value={cashier}>
      <Stack gap="md">
        {/* The page's h1 for screen readers' heading list; the header shows the app, store and role. */}
        <VisuallyHidden component="h1">{t.screenHeading(store)}</VisuallyHidden>
        <Group align="flex-start" gap="sm" wrap="wrap">
          <CheckInBox />
          <Group gap="sm" mt={{ base: 0, sm: 29 }}>
            <Button size="lg" variant="light" aria-keyshortcuts="N" onClick={() => cashier.ui.getState().show('register')} rightSection={<KeyHint>N</KeyHint>}>
              {t.registerButton}
            </Button>
            <Button size="lg" variant="subtle" aria-keyshortcuts="?" onClick={() => cashier.ui.getState().show('help')} rightSection={<KeyHint>?</KeyHint>}>
              {t.shortcutsButton}
            </Button>
          </Group>
        </Group>
        {offline && (
          <Alert color="yellow" data-testid="offline-actions">
            {t.offlineActions}
          </Alert>
        )}
        <Grid gap="md">
          <Grid.Col span={{ base: 12, md: 4 }}>
            <QueueList />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 8 }}>
            <CustomerPanel />
          </Grid.Col>
        </Grid>
      </Stack>
      <OrderForm />
      <RegisterDialog />
      <ConfirmClose />
      <ShortcutsHelp />
    </CashierContext.Provider>
  );
}
