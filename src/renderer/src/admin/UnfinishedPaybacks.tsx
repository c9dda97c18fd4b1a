import { Anchor, Badge, Button, Stack, Table, Text, Title } from '@mantine/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import { NodeApiError } from '../api/client';
import { ActionsHeader, TableScroll } from './a11y';
import type { UnfinishedPayback } from './admin-api';
import { adminStore } from './admin-store';
import { formatAmount, formatDateTime } from './format';
import { ListPager } from './ListPager';
import { refusalText } from './node-refusal';
import { usePaymentExceptionStrings } from './payment-exceptions-strings';
import { waitingCounts } from './waiting-counts';
import { ListAnnouncements } from './ListAnnouncements';

type Strings = ReturnType<typeof usePaymentExceptionStrings>;

const PAGE = 25;
const api = () => adminStore.getState().api();

/** A message said in the language shown when it is drawn. */
interface Outcome {
  ok: boolean;
  say: (strings: Strings) => string;
}

const nameOf = (p: UnfinishedPayback) => (p.customer ? `${p.customer.first_name} ${p.customer.last_name}`.trim() : `#${p.customer_id}`);

/** What "Finish the refund" did, in the screen's words. */
function outcomeOf(p: UnfinishedPayback): Outcome {
  const paid = formatAmount(p.amount_paid, p.currency);
  if (p.status === 'paid') return { ok: true, say: (s) => s.finished(paid, nameOf(p)) };
  if (p.status === 'refunding') return { ok: false, say: (s) => s.finishUnknown };
  return { ok: true, say: (s) => s.finishedPartly(paid, formatAmount(p.amount - p.amount_paid, p.currency)) };
}

function refusalOf(error: unknown): Outcome['say'] {
  const code = error instanceof NodeApiError ? error.code : null;
  if (code === 'invalid_status_transition') return (s) => s.finishRefusal_done;
  if (code === 'payback_not_found') return (s) => s.finishRefusal_notFound;
  if (code === 'payment_gateway_unavailable') return (s) => s.finishUnknown;
  const message = refusalText(error);
  return () => message;
}

/**
 * Card pay-backs across customers whose refund outcome is unknown (docs/decisions.md, "Tenth
 * round"), on the payment exceptions screen: the customer to contact, and "Finish the refund",
 * which asks the gateway again under the same keys (the money goes back once; no confirmation:
 * nothing new is paid). Shown only when there are some, or to say what a finish did, above the
 * exceptions (a full page of them hid it); their number is on the tab too.
 */
export function UnfinishedPaybacks() {
  const t = usePaymentExceptionStrings();
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ items: UnfinishedPayback[]; total: number } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = useCallback(
    () =>
      api()
        .unfinishedPaybacks(offset, PAGE)
        .then((found) => {
          if (found.items.length === 0 && offset > 0) return setOffset(Math.max(0, offset - PAGE));
          setPage({ items: found.items, total: found.total });
          setLoadError(null);
          waitingCounts.setState({ paybacks: found.total });
        })
        .catch((e: unknown) => setLoadError(refusalText(e))),
    [offset],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const finish = (p: UnfinishedPayback) => {
    setOutcome(null);
    setBusy(p.id);
    api()
      .finishPayback(p.id)
      .then((done) => setOutcome(outcomeOf(done)))
      .catch((e: unknown) => setOutcome({ ok: false, say: refusalOf(e) }))
      .then(load)
      .finally(() => {
        setBusy(null);
        // The row is gone (or its button re-drawn): the focus goes to the section's heading.
        heading.current?.focus();
      });
  };

  if (!loadError && !outcome && (!page || page.total === 0)) return null;
  return (
    <Stack mb="lg">
      <Title order={2} size="h4" ref={heading} tabIndex={-1}>
        {t.paybacksHeading}
      </Title>
      <Text size="sm">{t.paybacksIntro}</Text>
      <ListAnnouncements
        done={outcome?.ok ? outcome.say(t) : null}
        count={page && page.total > 0 ? t.paybacksFound(page.total) : null}
        refusal={outcome && !outcome.ok ? outcome.say(t) : null}
        loadError={loadError}
      />
      {page && page.items.length > 0 && (
        <TableScroll>
          <Table aria-label={t.paybacksTable} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t.when}</Table.Th>
                <Table.Th>{t.customer}</Table.Th>
                <Table.Th>{t.amount}</Table.Th>
                <Table.Th>{t.cards}</Table.Th>
                <Table.Th>{t.status}</Table.Th>
                <ActionsHeader />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.items.map((p) => (
                <PaybackRow key={p.id} p={p} busy={busy === p.id} onFinish={() => finish(p)} />
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {page && <ListPager offset={offset} shown={page.items.length} total={page.total} pageSize={PAGE} onOffset={setOffset} words={t} />}
    </Stack>
  );
}

function PaybackRow({ p, busy, onFinish }: { p: UnfinishedPayback; busy: boolean; onFinish: () => void }) {
  const t = usePaymentExceptionStrings();
  const amount = formatAmount(p.amount, p.currency);
  const name = nameOf(p);
  const contact = p.customer ? [p.customer.email, p.customer.phone].filter(Boolean).join(' · ') : '';
  return (
    <Table.Tr>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(p.date_created)}</Table.Td>
      <Table.Td>
        <Anchor href={`#/customers/${p.customer_id}`} size="sm">
          {name}
        </Anchor>
        {contact && (
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {contact}
          </Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{amount}</Table.Td>
      <Table.Td>
        {p.refunds.map((r, i) => (
          <Text key={i} size="xs">
            {t.cardPart(formatAmount(r.amount, p.currency), r.brand && r.last4 ? `${r.brand} ••${r.last4}` : t.aCard)}
          </Text>
        ))}
      </Table.Td>
      <Table.Td>
        <Badge tt="none" color={p.stuck ? 'red' : 'yellow'} variant="light">
          {p.stuck ? t.payback_stuck : t.payback_waiting}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Button size="xs" variant="light" loading={busy} aria-label={t.rowAction(t.finish, t.rowName(amount, name))} onClick={onFinish}>
          {t.finish}
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}
