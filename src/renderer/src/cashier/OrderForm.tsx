import { ActionIcon, Alert, Box, Button, Checkbox, Group, List, Modal, Stack, Text, TextInput } from '@mantine/core';
import { type FocusEvent, type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import type { CustomerAtCounter } from '../api/terminal-api';
import { useEventStreamStatus } from '../events/event-stream';
import { currencyDigits, formatMoney, formatPoints } from '../format';
import { useLanguage } from '../i18n/language-store';
import { useSession } from '../session/session-store';
import { rewardChoices, rewardOptions } from './balances';
import { useCashier, useCashierUi, useCustomer } from './context';
import { fullName } from './customer-name';
import { buildOrder, type DraftItem, draftSubtotal, emptyDraft, itemsTotal, type LargeAmount, largeAmounts, maxQuickPay, newReceiptNumber, type OrderDraft } from './order-draft';
import { forgetDraft, keepDraft, keptDraft } from './draft-keeper';
import { KeyHint } from './KeyHint';
import { comboLabel, SUBMIT_ORDER_KEYS } from './shortcuts';
import { useCashierStrings } from './strings';

/** A field's error appears when the order is tried: said at once, not only when the field is reached. */
const ANNOUNCED = { role: 'alert' } as const;

/**
 * An amount reached by Tab (or handed the focus) is selected, so what the cashier types replaces it:
 * the quantity's 1 became "12" for a typed 2, and a draft brought back appended to its subtotal.
 */
const selectAll = (event: FocusEvent<HTMLInputElement>) => event.currentTarget.select();

function ItemLine({ item, index, onChange, onRemove }: { item: DraftItem; index: number; onChange(item: DraftItem): void; onRemove(): void }) {
  const t = useCashierStrings();
  return (
    <Group gap="xs" wrap="nowrap" align="flex-end">
      <TextInput size="md" style={{ flex: 3 }} label={index === 0 ? t.itemName : undefined} aria-label={`${t.itemName} ${index + 1}`} data-item-name={index} value={item.name} onChange={(e) => onChange({ ...item, name: e.currentTarget.value })} />
      <TextInput size="md" style={{ flex: 1 }} label={index === 0 ? t.itemQuantity : undefined} aria-label={`${t.itemQuantity} ${index + 1}`} inputMode="decimal" onFocus={selectAll} value={String(item.quantity)} onChange={(e) => onChange({ ...item, quantity: e.currentTarget.value })} />
      <TextInput size="md" style={{ flex: 1.5 }} label={index === 0 ? t.itemPrice : undefined} aria-label={`${t.itemPrice} ${index + 1}`} data-item-price={index} inputMode="decimal" onFocus={selectAll} value={String(item.price)} onChange={(e) => onChange({ ...item, price: e.currentTarget.value })} />
      <ActionIcon size={42} variant="subtle" color="red" aria-label={t.removeItem(index + 1)} onClick={onRemove}>
        ×
      </ActionIcon>
    </Group>
  );
}

/**
 * "Is this amount right?" under the order form when an amount is unusually large (largeAmounts):
 * the order is placed only once the cashier confirms. Its confirm button has the focus, so Enter
 * confirms; Esc goes back to the form (the order dialog does not close on it meanwhile).
 */
function ConfirmLarge({ amounts, money, onConfirm, onBack }: { amounts: LargeAmount[]; money(amount: number): string; onConfirm(): void; onBack(): void }) {
  const t = useCashierStrings();
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    confirmRef.current?.focus();
    confirmRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [amounts]);
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape' || event.isComposing) return;
      event.preventDefault();
      onBack();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onBack]);
  return (
    <Alert color="orange" role="alertdialog" title={t.largeTitle} data-testid="order-large-amount">
      <Text size="sm">{t.largeBody}</Text>
      <List size="sm" mt="xs">
        {amounts.map((a) => (
          <List.Item key={a.field}>{t.largeAmount(a.field, money(a.amount))}</List.Item>
        ))}
      </List>
      <Group justify="flex-end" gap="sm" mt="md">
        <Button size="lg" variant="default" aria-keyshortcuts="Escape" onClick={onBack} rightSection={<KeyHint>{t.keyName('Esc')}</KeyHint>}>
          {t.largeBack}
        </Button>
        <Button ref={confirmRef} size="lg" color="orange" aria-keyshortcuts="Enter" onClick={onConfirm} rightSection={<KeyHint>{t.keyName('Enter')}</KeyHint>}>
          {t.largeConfirm}
        </Button>
      </Group>
    </Alert>
  );
}

interface Asking {
  /** The large amounts the form is asking about; null: not asking. Held by the dialog, which does not close on Esc meanwhile. */
  asking: LargeAmount[] | null;
  setAsking(asking: LargeAmount[] | null): void;
}

function OrderFields({ customer, onDone, asking, setAsking }: { customer: CustomerAtCounter; onDone(): void } & Asking) {
  const t = useCashierStrings();
  const language = useLanguage();
  const cashier = useCashier();
  const terminal = useSession((s) => s.terminal);
  const offline = useEventStreamStatus() === 'offline';
  const offlineReasonId = useId();
  const busy = useCustomer((s) => s.busy === 'ordering');
  const orderError = useCustomer((s) => s.orderError);
  const quickPayRefused = useCustomer((s) => s.orderError !== null && s.orderErrorField === 'quick_pay');
  const code = customer.quick_pay_balance.currency?.code ?? terminal?.quick_pay_currency ?? null;
  const country = terminal?.country ?? null;
  const digits = currencyDigits(code);
  const money = (amount: number) => formatMoney(amount, code, language, country);
  const balance = customer.quick_pay_balance.amount;
  const [hadQuickPay] = useState(() => balance > 0);
  const rewards = rewardOptions(customer);

  // The receipt number is fixed for this form: a retry after a lost reply cannot charge twice.
  // What was typed for this session before (Esc, a reload) comes back, its receipt number with it.
  const hash = useCustomer((s) => s.hash);
  const [restored, setRestored] = useState(() => (hash === null ? null : keptDraft(hash)));
  const [draft, setDraft] = useState<OrderDraft>(() => restored ?? emptyDraft(newReceiptNumber()));
  useEffect(() => {
    if (hash !== null) keepDraft(hash, draft);
  }, [hash, draft]);
  const [tried, setTried] = useState(false);
  const result = buildOrder(draft, { quickPayBalance: balance, digits });
  const problems = tried && !result.ok ? result.problems : {};
  const total = itemsTotal(draft.items, digits);
  const subtotalNow = draftSubtotal(draft, { quickPayBalance: balance, digits });

  // Unusually large amounts wait for the cashier's word; once given for these amounts it stands (a retry does not ask again).
  const large = result.ok ? largeAmounts(result.body, digits, { subtotalTyped: String(draft.subtotal).trim() !== '' }) : [];
  const largeKey = JSON.stringify(large);
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const subtotalRef = useRef<HTMLInputElement>(null);
  const quickPayRef = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  // "Add item" hands the focus to the new line's name box (it stayed on the button, and Tab went on to quick pay).
  const focusItem = useRef<number | null>(null);
  useEffect(() => {
    if (focusItem.current === null) return;
    formRef.current?.querySelector<HTMLInputElement>(`[data-item-name="${focusItem.current}"]`)?.focus();
    focusItem.current = null;
  }, [draft.items.length]);

  // The node refused the quick pay (balance spent elsewhere meanwhile, an offline cap): the focus goes where it is fixed.
  useEffect(() => {
    if (quickPayRefused) quickPayRef.current?.focus();
  }, [quickPayRefused]);

  const update = (change: Partial<OrderDraft>) => {
    setDraft((d) => ({ ...d, ...change }));
    setAsking(null);
    if (orderError) cashier.customer.getState().clearOrderError();
  };

  async function place() {
    if (!result.ok) return;
    const reply = await cashier.customer.getState().placeOrder(result.body);
    if (!reply) return;
    if (hash !== null) forgetDraft(hash);
    onDone();
  }

  async function submit(event?: FormEvent) {
    event?.preventDefault();
    setTried(true);
    if (!result.ok || busy || offline) return;
    // Already asking: only its own button (Enter, where the focus is) places the order.
    if (asking) return;
    if (large.length > 0 && confirmed !== largeKey) {
      setAsking(large);
      return;
    }
    await place();
  }

  function confirmLarge() {
    setConfirmed(largeKey);
    setAsking(null);
    if (!busy && !offline) void place();
  }

  function backFromLarge() {
    const field = asking?.[0]?.field;
    setAsking(null);
    // Back to the amount asked about: an items total to the first line's price, where it is typed.
    const firstPrice = formRef.current?.querySelector<HTMLInputElement>('[data-item-price="0"]');
    if (field === 'items' && firstPrice) firstPrice.focus();
    else (field === 'quickPay' ? quickPayRef : subtotalRef).current?.focus();
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void submit();
    }
  }

  return (
    <form ref={formRef} onSubmit={(e) => void submit(e)} onKeyDown={onKeyDown} aria-label={t.orderTitle(fullName(customer.user))} noValidate>
      <Stack gap="md">
        {restored && (
          <Alert color="blue" role="status" data-testid="order-draft-restored">
            <Group justify="space-between" gap="xs">
              <Text size="sm">{t.draftRestored}</Text>
              <Button
                size="xs"
                variant="light"
                onClick={() => {
                  // The same receipt number: nothing was placed under it.
                  setRestored(null);
                  update(emptyDraft(draft.receiptNumber));
                  subtotalRef.current?.focus();
                }}
              >
                {t.draftStartOver}
              </Button>
            </Group>
          </Alert>
        )}
        <TextInput
          size="lg"
          label={t.subtotal}
          description={t.subtotalHint}
          inputMode="decimal"
          data-autofocus
          data-testid="order-subtotal"
          ref={subtotalRef}
          onFocus={selectAll}
          placeholder={total !== null ? String(total) : undefined}
          value={String(draft.subtotal)}
          onChange={(e) => update({ subtotal: e.currentTarget.value })}
          error={problems.subtotal && t.problem(problems.subtotal)}
          errorProps={ANNOUNCED}
        />
        <Stack gap="xs">
          <Text fw={500} size="sm">
            {t.items}
          </Text>
          {draft.items.map((item, index) => (
            <ItemLine
              key={index}
              item={item}
              index={index}
              onChange={(next) => update({ items: draft.items.map((it, i) => (i === index ? next : it)) })}
              onRemove={() => update({ items: draft.items.filter((_, i) => i !== index) })}
            />
          ))}
          {problems.items && (
            <Text size="sm" c="red" role="alert">
              {t.problem(problems.items)}
            </Text>
          )}
          <Group justify="space-between">
            <Button
              variant="light"
              size="md"
              onClick={() => {
                focusItem.current = draft.items.length;
                update({ items: [...draft.items, { name: '', quantity: 1, price: '' }] });
              }}
            >
              {t.addItem}
            </Button>
            {total !== null && <Text size="sm">{t.itemsTotal(money(total))}</Text>}
          </Group>
        </Stack>
        {/* "Use the most" goes under the field when both do not fit (320 px squeezed the field to a few digits). */}
        <Group align="flex-end" gap="xs">
          <TextInput
            size="lg"
            style={{ flex: '1 1 12rem' }}
            label={t.quickPayAmount}
            description={t.quickPayAvailable(money(balance))}
            inputMode="decimal"
            data-testid="order-quick-pay"
            ref={quickPayRef}
            onFocus={selectAll}
            value={String(draft.quickPay)}
            onChange={(e) => update({ quickPay: e.currentTarget.value })}
            error={problems.quickPay && t.problem(problems.quickPay)}
            errorProps={ANNOUNCED}
            // Greyed only for a customer who had nothing to spend when the form opened: a balance read
            // again at nothing (a refusal) leaves the amount typed editable, and the focus in it.
            disabled={balance <= 0 && !hadQuickPay}
          />
          <Button size="lg" variant="light" disabled={balance <= 0} onClick={() => update({ quickPay: String(maxQuickPay(balance, subtotalNow)) })}>
            {t.useMax}
          </Button>
        </Group>
        {rewards.length > 0 && (
          <Checkbox.Group label={t.rewardsPick} value={draft.rewards} onChange={(rewards) => update({ rewards })}>
            <Stack gap="xs" mt="xs">
              {rewardChoices(rewards, draft.rewards).map(({ reward, blocked, left }) => (
                <Checkbox
                  key={reward.id}
                  size="md"
                  value={reward.id}
                  disabled={blocked !== null}
                  label={`${reward.name} (${t.rewardCost(formatPoints(reward.cost, language, code, country), reward.currency.name)})`}
                  description={
                    blocked === 'notEnough'
                      ? t.rewardNotEnough(formatPoints(reward.balance, language, code, country), reward.currency.name)
                      : blocked === 'notEnoughLeft'
                        ? t.rewardNotEnoughLeft(formatPoints(left, language, code, country), reward.currency.name)
                        : blocked === 'unavailable'
                          ? t.rewardUnavailable
                          : undefined
                  }
                />
              ))}
            </Stack>
          </Checkbox.Group>
        )}
        {/*
          The actions stay at the foot of the dialog while its fields scroll (a small 1024×768 touch
          screen with many rewards): Place order, a refusal and the large-amount question are
          always in sight, never below the fold.
        */}
        <Box
          data-testid="order-actions"
          pos="sticky"
          bottom={0}
          py="sm"
          style={{ zIndex: 2, background: 'var(--mantine-color-body)', borderTop: '1px solid var(--mantine-color-default-border)' }}
        >
          <Stack gap="sm">
            {orderError && (
              <Alert color="red" role="alert" title={t.orderFailed} data-testid="order-error">
                {orderError}
              </Alert>
            )}
            {asking && <ConfirmLarge amounts={asking} money={money} onConfirm={confirmLarge} onBack={backFromLarge} />}
            {/* A greyed button alone does not say why: offline, the reason is said beside it. */}
            {offline && (
              <Alert color="yellow" id={offlineReasonId} data-testid="order-offline" role="status">
                {t.orderOffline}
              </Alert>
            )}
            <Group justify="space-between" align="center">
              <Text size="xs" c="dimmed" data-testid="order-receipt">
                {t.receipt(draft.receiptNumber)}
              </Text>
              <Button type="submit" size="lg" loading={busy} disabled={offline || asking !== null} aria-describedby={offline ? offlineReasonId : undefined} aria-keyshortcuts="Control+Enter" rightSection={<KeyHint>{comboLabel(SUBMIT_ORDER_KEYS, t.keyName)}</KeyHint>}>
                {t.submitOrder}
              </Button>
            </Group>
          </Stack>
        </Box>
      </Stack>
    </form>
  );
}

/** The order dialog (O): subtotal, items, quick pay and rewards; Ctrl+Enter places it. */
export function OrderForm() {
  const t = useCashierStrings();
  const cashier = useCashier();
  const open = useCashierUi((s) => s.dialog === 'order');
  const customer = useCustomer((s) => s.customer);
  const ended = useCustomer((s) => s.ended);
  const hash = useCustomer((s) => s.hash);
  // A session that ended (an order at another screen, closed) leaves no draft to come back to.
  useEffect(() => {
    if (ended !== null && hash !== null) forgetDraft(hash);
  }, [ended, hash]);
  // While the form asks about a large amount, Esc goes back to the form instead of closing it.
  const [asking, setAsking] = useState<LargeAmount[] | null>(null);
  const close = () => {
    setAsking(null);
    cashier.customer.getState().clearOrderError();
    cashier.ui.getState().show(null);
  };
  const shown = open && customer !== null && !ended;
  useEffect(() => {
    if (!shown) setAsking(null);
  }, [shown]);
  // The session ended under the dialog (an order, or closed elsewhere): nothing left to order for.
  useEffect(() => {
    if (open && !shown) cashier.ui.getState().show(null);
  }, [open, shown, cashier]);
  return (
    <Modal
      opened={shown}
      onClose={close}
      closeOnEscape={asking === null}
      size="lg"
      // The form's actions stick to the dialog's foot: a field the focus moves to is scrolled clear of them.
      styles={{ title: { overflowWrap: 'anywhere', minWidth: 0 }, content: { scrollPaddingBottom: 110 } }}
      title={customer ? t.orderTitle(fullName(customer.user, customer.user.email_address)) : ''}
    >
      {shown && (
        <OrderFields
          customer={customer}
          onDone={() => {
            cashier.ui.getState().setFocusOrderResult(true);
            close();
          }}
          asking={asking}
          setAsking={setAsking}
        />
      )}
    </Modal>
  );
}
