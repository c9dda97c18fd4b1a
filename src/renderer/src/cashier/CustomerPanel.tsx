import { Alert, Badge, Button, Divider, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef } from 'react';
import type { CustomerAtCounter } from '../api/terminal-api';
import { useEventStreamStatus } from '../events/event-stream';
import { formatPoints } from '../format';
import { useLanguage } from '../i18n/language-store';
import { formatPhone } from '../phone-format';
import { useSession } from '../session/session-store';
import { BalanceCards } from './BalanceCards';
import { useCashier, useCashierUi, useCustomer } from './context';
import { fullName } from './customer-name';
import { HistoryTable } from './HistoryTable';
import { KeyHint } from './KeyHint';
import { OrderResult } from './OrderResult';
import { RewardsList } from './RewardsList';
import { CUSTOMER_PANEL_ATTRIBUTE } from './shortcuts';
import { formatDate, useCashierStrings } from './strings';

/** A long unbroken name or email breaks where it must rather than spill out of the panel. */
const BREAK_ANYWHERE = { overflowWrap: 'anywhere', minWidth: 0 } as const;

const maskCard = (number: string) => (number.length > 4 ? `•••• ${number.slice(-4)}` : number);

function Header({ customer }: { customer: CustomerAtCounter }) {
  const t = useCashierStrings();
  const language = useLanguage();
  const cashier = useCashier();
  const { user, rules } = customer;
  const hash = useCustomer((s) => s.hash);
  const focusPanel = useCashierUi((s) => s.focusPanel);
  const fallbackCode = useSession((s) => s.terminal?.quick_pay_currency ?? null);
  const code = customer.quick_pay_balance.currency?.code ?? fallbackCode;
  const country = useSession((s) => s.terminal?.country ?? null);
  const nameRef = useRef<HTMLHeadingElement>(null);
  // With several loyalty currencies the threshold names the one tiers count ("50 Stamps"); with one it needs no unit.
  const tierUnit = customer.loyalty_balance.data.length > 1 ? rules.tier.currency?.name : undefined;
  const tierThreshold = (points: number) => [formatPoints(points, language, code, country), tierUnit].filter(Boolean).join(' ');
  useEffect(() => {
    if (!focusPanel || focusPanel !== hash) return;
    nameRef.current?.focus();
    cashier.ui.getState().setFocusPanel(null);
  }, [focusPanel, hash, cashier]);
  return (
    <Stack gap={4}>
      <Group gap="sm" wrap="wrap">
        <Title order={2} ref={nameRef} tabIndex={-1} data-testid="customer-name" style={BREAK_ANYWHERE}>
          {fullName(user, user.email_address || (user.phone_number ? formatPhone(user.phone_number, country) : ''))}
        </Title>
        <Badge size="lg" variant="light" color={user.tier ? 'grape' : 'gray'} data-testid="customer-tier">
          {user.tier ? t.tier(user.tier.name) : t.noTier}
        </Badge>
        {user.flagged && (
          <Badge size="lg" variant="filled" color="red" data-testid="customer-flagged" title={t.flaggedHint}>
            {t.flagged}
          </Badge>
        )}
        {customer.pos_session.card && (
          <Badge size="lg" variant="outline" color="gray">
            {t.card(maskCard(customer.pos_session.card))}
          </Badge>
        )}
      </Group>
      <Text size="sm" c="dimmed" style={BREAK_ANYWHERE}>
        {[user.email_address, user.phone_number && formatPhone(user.phone_number, country), t.memberSince(formatDate(user.member_since, language)), rules.tier.next ? t.nextTier(rules.tier.next.name, tierThreshold(rules.tier.next.threshold)) : '']
          .filter(Boolean)
          .join(' · ')}
      </Text>
    </Stack>
  );
}

function Visits({ customer }: { customer: CustomerAtCounter }) {
  const t = useCashierStrings();
  const language = useLanguage();
  return (
    <Stack gap={4}>
      <Text size="sm" data-testid="last-visit">
        <Text span fw={600}>
          {t.lastVisit}:{' '}
        </Text>
        {customer.last_visit ? t.lastVisitAt(formatDate(customer.last_visit.date, language), customer.last_visit.store.name) : t.firstVisit}
      </Text>
      {customer.favourite_items.length > 0 && (
        <Text size="sm">
          <Text span fw={600}>
            {t.favourites}:{' '}
          </Text>
          {customer.favourite_items.map((f) => f.name).join(', ')}
        </Text>
      )}
    </Stack>
  );
}

function Actions() {
  const t = useCashierStrings();
  const cashier = useCashier();
  const offline = useEventStreamStatus() === 'offline';
  const ended = useCustomer((s) => s.ended);
  const busy = useCustomer((s) => s.busy);
  const ready = useCustomer((s) => s.phase === 'ready');
  if (ended) {
    return (
      <Group>
        <Button size="lg" variant="light" onClick={() => cashier.customer.getState().dismiss()}>
          {t.hidePanel}
        </Button>
      </Group>
    );
  }
  const disabled = offline || !ready || busy !== null;
  return (
    <Group gap="sm">
      <Button size="lg" disabled={disabled} aria-keyshortcuts="O" onClick={() => cashier.ui.getState().show('order')} rightSection={<KeyHint>O</KeyHint>}>
        {t.placeOrder}
      </Button>
      <Button size="lg" variant="outline" color="red" disabled={disabled} loading={busy === 'closing'} aria-keyshortcuts="X" onClick={() => cashier.ui.getState().show('confirmClose')} rightSection={<KeyHint>X</KeyHint>}>
        {t.closeSession}
      </Button>
    </Group>
  );
}

function PanelSkeleton() {
  return (
    <Stack gap="md" aria-hidden data-testid="customer-loading">
      <Skeleton h={36} w="50%" />
      <Skeleton h={16} w="70%" />
      <Group grow>
        <Skeleton h={96} radius="md" />
        <Skeleton h={96} radius="md" />
        <Skeleton h={96} radius="md" />
      </Group>
      <Skeleton h={120} radius="md" />
    </Stack>
  );
}

/** The selected customer: who they are, balances, rewards, visits and history, and the actions. */
export function CustomerPanel() {
  const t = useCashierStrings();
  const cashier = useCashier();
  const hash = useCustomer((s) => s.hash);
  const phase = useCustomer((s) => s.phase);
  const customer = useCustomer((s) => s.customer);
  const error = useCustomer((s) => s.error);
  const ended = useCustomer((s) => s.ended);
  const lastOrder = useCustomer((s) => s.lastOrder);
  const voidedReceipt = useCustomer((s) => s.voidedReceipt);
  const closeError = useCustomer((s) => s.closeError);

  let body;
  if (!hash) {
    body = (
      <Text c="dimmed" py="xl" ta="center" data-testid="customer-none">
        {t.noCustomer}
      </Text>
    );
  } else if (phase === 'loading') {
    body = <PanelSkeleton />;
  } else if (phase === 'error' || !customer) {
    body = (
      <Alert color="red" role="alert" title={t.customerFailed}>
        <Stack gap="xs" align="flex-start">
          <Text size="sm">{error}</Text>
          <Group>
            <Button size="lg" variant="light" color="red" onClick={() => void cashier.customer.getState().open(hash)}>
              {t.retry}
            </Button>
            <Button size="lg" variant="subtle" color="gray" onClick={() => cashier.customer.getState().dismiss()}>
              {t.hidePanel}
            </Button>
          </Group>
        </Stack>
      </Alert>
    );
  } else {
    body = (
      <Stack gap="md">
        <Header customer={customer} />
        {lastOrder && <OrderResult order={lastOrder} />}
        {ended && !lastOrder && (
          <Alert color="gray" role="status" data-testid="session-ended">
            {ended === 'order' ? t.endedByOrder : ended === 'voided' ? t.endedByVoid(voidedReceipt) : t.endedClosed}
          </Alert>
        )}
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {closeError && (
          <Alert color="red" role="alert" title={t.closeFailed}>
            {closeError}
          </Alert>
        )}
        <Actions />
        <BalanceCards customer={customer} />
        <Group align="flex-start" grow wrap="wrap" gap="lg">
          <RewardsList customer={customer} />
          <Visits customer={customer} />
        </Group>
        <Divider />
        <HistoryTable />
      </Stack>
    );
  }

  return (
    <Paper component="section" aria-label={t.customerRegion} data-testid="customer-panel" {...{ [CUSTOMER_PANEL_ATTRIBUTE]: true }} aria-busy={phase === 'loading'} withBorder p="md" radius="md" mih={320}>
      {body}
    </Paper>
  );
}
