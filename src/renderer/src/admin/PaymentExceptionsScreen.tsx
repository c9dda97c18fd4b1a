import { Badge, Button, Group, Modal, Select, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { NodeApiError } from '../api/client';
import { ActionsHeader, TableScroll } from './a11y';
import type { StaffPaymentException } from './admin-api';
import { adminStore } from './admin-store';
import { formatAmount, formatDateTime } from './format';
import { refusalText } from './node-refusal';
import { ListPager } from './ListPager';
import { usePaymentExceptionStrings } from './payment-exceptions-strings';
import { UnfinishedPaybacks } from './UnfinishedPaybacks';
import { refreshOpenCount, refreshPaybackCount, waitingCounts } from './waiting-counts';
import { ListAnnouncements } from './ListAnnouncements';

type Strings = ReturnType<typeof usePaymentExceptionStrings>;
type Action = 'refund' | 'credit';

const FILTERS = ['open', 'refunding', 'refunded', 'credited', 'settled', 'all'] as const;
type Filter = (typeof FILTERS)[number];

const api = () => adminStore.getState().api();

/** Exceptions a page, as the audit log pages. */
const PAGE = 25;

/** The nav's tab, with how many exceptions and card pay-backs wait for staff (a badge only when some do). */
export function PaymentExceptionsTab({ value }: { value: string }) {
  const t = usePaymentExceptionStrings();
  const count = useStore(waitingCounts, (s) => s.count);
  const paybacks = useStore(waitingCounts, (s) => s.paybacks);
  useEffect(() => {
    void refreshOpenCount();
    void refreshPaybackCount();
  }, []);
  const waiting = [count ? t.openCount(count) : null, paybacks ? t.paybackCount(paybacks) : null].filter(Boolean).join(' · ');
  return (
    <Tabs.Tab value={value} rightSection={waiting ? <Badge color="red" variant="light">{waiting}</Badge> : null}>
      {t.tab}
    </Tabs.Tab>
  );
}

/** A message said in the language shown when it is drawn (switching EN/ES translates it too). */
interface Outcome {
  ok: boolean;
  say: (strings: Strings) => string;
}

/** The refusals a resolution can meet, in the screen's words; anything else as the node said it. */
function refusalOf(error: unknown, x: StaffPaymentException, action: Action): Outcome['say'] {
  const code = error instanceof NodeApiError ? error.code : null;
  if (code === 'invalid_status_transition') return (s) => s.refusal_resolved;
  if (code === 'payment_exception_not_found') return (s) => s.refusal_notFound;
  if (code === 'payment_gateway_unavailable' && action === 'refund') return (s) => s.refundUnknown;
  if (code === 'business_rule') {
    if (action === 'refund') return (s) => s.refusal_refundRefused;
    return x.customer === null ? (s) => s.refusal_noAccount : (s) => s.refusal_otherCurrency;
  }
  const message = refusalText(error);
  return () => message;
}

const customerName = (x: StaffPaymentException) => (x.customer ? `${x.customer.first_name} ${x.customer.last_name}`.trim() : x.guest_buyer?.name.trim() || null);

/**
 * Payment exceptions (owners and managers): charges the gateway took that the program could not
 * settle, newest first, by status (open by default). An open one is refunded to the card or
 * credited to the customer's quick pay after a confirmation that opens on Cancel; the node keeps
 * every state rule and writes the audit entry.
 */
export function PaymentExceptionsScreen() {
  const t = usePaymentExceptionStrings();
  const [filter, setFilter] = useState<Filter>('open');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ items: StaffPaymentException[]; total: number } | null>(null);
  const items = page?.items ?? null;
  const [loadError, setLoadError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [asking, setAsking] = useState<{ x: StaffPaymentException; action: Action } | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = useCallback(
    () =>
      api()
        .paymentExceptions(filter, offset, PAGE)
        .then((found) => {
          // The last one of a later page resolved: show the page before it.
          if (found.items.length === 0 && offset > 0) return setOffset(Math.max(0, offset - PAGE));
          setPage({ items: found.items, total: found.total });
          setLoadError(null);
          if (filter === 'open') waitingCounts.setState({ count: found.total });
        })
        .catch((e: unknown) => {
          setPage(null);
          setLoadError(refusalText(e));
        }),
    [filter, offset],
  );
  useEffect(() => {
    setPage(null);
    void load();
  }, [load]);

  const resolve = (x: StaffPaymentException, action: Action) => {
    setAsking(null);
    setOutcome(null);
    setBusy(x.id);
    const amount = formatAmount(x.amount, x.currency);
    const name = customerName(x) ?? '';
    api()
      .resolvePaymentException(x.id, action)
      .then(() => setOutcome({ ok: true, say: (s) => (action === 'refund' ? s.refunded(amount) : s.credited(amount, name)) }))
      .catch((e: unknown) => setOutcome({ ok: false, say: refusalOf(e, x, action) }))
      .then(() => Promise.all([load(), filter === 'open' ? null : refreshOpenCount()]))
      .finally(() => {
        setBusy(null);
        // The row's buttons are gone (or changed): the focus goes to the list's heading, not the page's top.
        heading.current?.focus();
      });
  };

  const filterLabel = t[`filter_${filter}`];
  // Card pay-backs not finished come first when there are any: few, and a customer's money is out
  // of their balance and not known to be on their card; under a page of exceptions no one saw them.
  return (
    <Stack>
      <UnfinishedPaybacks />
      <Text>{t.intro}</Text>
      <Select
        label={t.show}
        w={260}
        maw="100%"
        allowDeselect={false}
        value={filter}
        onChange={(value) => {
          setFilter((value ?? 'open') as Filter);
          setOffset(0);
          setOutcome(null);
        }}
        data={FILTERS.map((f) => ({ value: f, label: t[`filter_${f}`] }))}
      />
      <Title order={2} size="h4" ref={heading} tabIndex={-1}>
        {t.listHeading(filterLabel)}
      </Title>
      <ListAnnouncements
        done={outcome?.ok ? outcome.say(t) : null}
        count={page ? (page.total === 0 ? t.none : t.found(page.total)) : null}
        refusal={outcome && !outcome.ok ? outcome.say(t) : null}
        loadError={loadError}
      />
      {items && items.length > 0 && (
        <TableScroll>
          <Table aria-label={t.table} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t.when}</Table.Th>
                <Table.Th>{t.what}</Table.Th>
                <Table.Th>{t.customer}</Table.Th>
                <Table.Th>{t.amount}</Table.Th>
                <Table.Th>{t.status}</Table.Th>
                <ActionsHeader />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((x) => (
                <ExceptionRow key={x.id} x={x} busy={busy === x.id} onAsk={(action) => setAsking({ x, action })} />
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {page && (
        <ListPager
          offset={offset}
          shown={page.items.length}
          total={page.total}
          pageSize={PAGE}
          onOffset={(next) => {
            setOutcome(null);
            setOffset(next);
          }}
          words={t}
        />
      )}
      <ConfirmResolution asking={asking} onCancel={() => setAsking(null)} onConfirm={resolve} />
    </Stack>
  );
}

function ExceptionRow({ x, busy, onAsk }: { x: StaffPaymentException; busy: boolean; onAsk: (action: Action) => void }) {
  const t = usePaymentExceptionStrings();
  const amount = formatAmount(x.amount, x.currency);
  const name = customerName(x);
  // A guest's contact is as their purchase took it (the eGift's buyer), said as a guest's.
  const contact = x.customer ? [x.customer.email, x.customer.phone].filter(Boolean).join(' · ') : x.guest_buyer ? t.guestContact(x.guest_buyer.email) : '';
  // Buttons repeated on rows say which row: "Refund US$12.00, Guest (no account)".
  const row = t.rowName(amount, name ?? t.guest);
  return (
    <Table.Tr>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(x.date_created)}</Table.Td>
      <Table.Td>
        <Text size="sm">{x.kind === 'paid_without_gift' || x.kind === 'reload_refused' ? t[`kind_${x.kind}`] : x.kind}</Text>
        <Text size="xs" c="dimmed">
          {t.charge(x.charge_id)}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{name ?? t.guest}</Text>
        {contact && (
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {contact}
          </Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{amount}</Table.Td>
      <Table.Td>{isStatus(x.status) ? t[`status_${x.status}`] : x.status}</Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          {(x.status === 'open' || x.status === 'refunding') && (
            <Button size="xs" variant="light" color="red" loading={busy} aria-label={t.rowAction(x.status === 'open' ? t.refund : t.refundAgain, row)} onClick={() => onAsk('refund')}>
              {x.status === 'open' ? t.refund : t.refundAgain}
            </Button>
          )}
          {/* A guest's charge has no account to credit: the node would refuse it (422). */}
          {x.status === 'open' && x.customer && (
            <Button size="xs" variant="light" loading={busy} aria-label={t.rowAction(t.credit, row)} onClick={() => onAsk('credit')}>
              {t.credit}
            </Button>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

const STATUSES = ['open', 'refunding', 'refunded', 'credited', 'settled'] as const;
const isStatus = (s: string): s is (typeof STATUSES)[number] => (STATUSES as readonly string[]).includes(s);

/** The confirmation of a refund or a credit, opening on Cancel: Enter on a just-opened dialog pays nothing. */
function ConfirmResolution({ asking, onCancel, onConfirm }: { asking: { x: StaffPaymentException; action: Action } | null; onCancel: () => void; onConfirm: (x: StaffPaymentException, action: Action) => void }) {
  const t = usePaymentExceptionStrings();
  const amount = asking ? formatAmount(asking.x.amount, asking.x.currency) : '';
  const name = asking ? (customerName(asking.x) ?? t.guest) : '';
  const refund = asking?.action === 'refund';
  return (
    <Modal opened={asking !== null} onClose={onCancel} title={refund ? t.confirmRefund(amount) : t.confirmCredit(amount, name)}>
      <Text mb="lg">{refund ? t.confirmRefundBody(amount) : t.confirmCreditBody(amount, name)}</Text>
      <Group justify="flex-end">
        <Button variant="default" data-autofocus onClick={onCancel}>
          {t.cancel}
        </Button>
        <Button color={refund ? 'red' : 'teal'} onClick={() => asking && onConfirm(asking.x, asking.action)}>
          {refund ? t.yesRefund : t.yesCredit}
        </Button>
      </Group>
    </Modal>
  );
}
