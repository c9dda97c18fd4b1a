import { Alert, Button, Group, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { errorMessage } from '../api/client';
import { useLanguage } from '../i18n/language-store';
import type { PeriodStatement } from './admin-api';
import { adminStore } from './admin-store';
import { TableScroll } from './a11y';
import { formatAmount } from './format';
import { saveFile } from './save-file';
import { usePeriodStatementStrings } from './period-statement-strings';
import { pointsFigures } from './points-figures';

type Figures = PeriodStatement['total'];

const pad = (n: number) => String(n).padStart(2, '0');

/** A calendar month's first and last days (month 0-based), ISO. */
function monthDays(year: number, month: number): { from: string; to: string } {
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return { from: `${year}-${pad(month + 1)}-01`, to: `${year}-${pad(month + 1)}-${pad(last)}` };
}

/** This month and the twelve before it, newest first, as `YYYY-MM`: a bookkeeper closes the last one. */
function recentMonths(now = new Date()): Array<{ year: number; month: number }> {
  return Array.from({ length: 13 }, (_, i) => {
    const d = new Date(now.getFullYear(), now.getMonth() - i, 1);
    return { year: d.getFullYear(), month: d.getMonth() };
  });
}

/**
 * The statement of a period for month end: choose a month (or type the days), see how the liability
 * moved, download the CSV. `store`: the dashboard's store (null: the whole program; a store manager's
 * is theirs whatever is sent).
 */
export function PeriodStatementSection({ store }: { store: number | null }) {
  const t = usePeriodStatementStrings();
  const language = useLanguage();
  const months = recentMonths();
  const previous = months[1]!;
  const [days, setDays] = useState(() => monthDays(previous.year, previous.month));
  const [shown, setShown] = useState<PeriodStatement | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const backwards = days.from !== '' && days.to !== '' && days.from > days.to;
  const ready = days.from !== '' && days.to !== '' && !backwards && !busy;
  const monthName = new Intl.DateTimeFormat(language, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  const monthValue = months.map((m) => monthDays(m.year, m.month)).findIndex((m) => m.from === days.from && m.to === days.to);

  const run = async (work: () => unknown) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await work();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const show = () => run(async () => setShown(await adminStore.getState().api().periodStatement(days.from, days.to, store)));
  const download = () =>
    run(async () => {
      const file = await adminStore.getState().api().periodStatementFile(days.from, days.to, store);
      const name = file.name ?? `punchcard-${days.from}-to-${days.to}.csv`;
      saveFile(file.blob, name);
      setDone(t.downloaded(name));
    });

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="period-statement-title">
      <Stack>
        <Title order={2} size="h4" id="period-statement-title">
          {t.title}
        </Title>
        <Text c="dimmed">{t.hint}</Text>
        <Group align="flex-end">
          <Select
            label={t.month}
            value={monthValue < 0 ? null : String(monthValue)}
            onChange={(value) => {
              const m = value === null ? undefined : months[Number(value)];
              if (m) setDays(monthDays(m.year, m.month));
            }}
            data={months.map((m, i) => ({ value: String(i), label: monthName.format(Date.UTC(m.year, m.month, 1)) }))}
          />
          <TextInput type="date" label={t.from} value={days.from} onChange={(e) => setDays({ ...days, from: e.currentTarget.value })} />
          <TextInput type="date" label={t.to} value={days.to} onChange={(e) => setDays({ ...days, to: e.currentTarget.value })} error={backwards ? t.backwards : undefined} />
          <Button variant="default" onClick={() => void show()} disabled={!ready}>
            {t.show}
          </Button>
          <Button onClick={() => void download()} disabled={!ready}>
            {t.download}
          </Button>
        </Group>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {done && <Text role="status">{done}</Text>}
        {shown && <StatementTables statement={shown} />}
      </Stack>
    </Paper>
  );
}

function StatementTables({ statement: p }: { statement: PeriodStatement }) {
  const t = usePeriodStatementStrings();
  const cur = p.quick_pay_currency;
  const money = (minor: number) => formatAmount(minor, cur);
  const f: Figures = p.total;
  const points = pointsFigures<Figures>(f, t);
  const rows: Array<[string, string]> = [
    ...(p.opening_stored_value === null ? [] : [[t.opening, money(p.opening_stored_value)] as [string, string]]),
    [t.loaded, money(f.stored_value_loaded)],
    [t.ofWhichReloads, money(f.reload_amount)],
    [t.ofWhichEgifts, money(f.egift_amount)],
    [t.spent, money(f.stored_value_spent)],
    [t.returned, money(f.stored_value_returned)],
    [t.adjusted, money(f.stored_value_adjusted)],
    [t.forfeited, money(f.stored_value_forfeited)],
    [t.paidBack, money(f.stored_value_paid_back)],
    [t.ofWhichToCards, money(f.paid_back_to_cards)],
    [t.other, money(f.stored_value_other)],
    [t.netChange, money(f.stored_value_net_change)],
    ...(p.closing_stored_value === null ? [] : [[t.closing, money(p.closing_stored_value)] as [string, string]]),
    ...(p.opening_unclaimed_egifts === null ? [] : [[t.unclaimedAtStart, money(p.opening_unclaimed_egifts)] as [string, string]]),
    ...(p.program === null ? [] : [[t.egiftsSold, money(f.egifts_sold_amount)] as [string, string]]),
    ...(p.closing_unclaimed_egifts === null ? [] : [[t.unclaimedAtEnd, money(p.closing_unclaimed_egifts)] as [string, string]]),
  ];
  const reconciles = p.opening_stored_value === null || p.closing_stored_value === null ? null : p.opening_stored_value + f.stored_value_net_change === p.closing_stored_value;
  return (
    <Stack>
      <Text c="dimmed">{t.period(p.from, p.to, p.time_zone)}</Text>
      <TableScroll>
        <Table aria-label={t.statement} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.figure}</Table.Th>
              <Table.Th>{t.amount}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map(([label, value]) => (
              <Table.Tr key={label} aria-label={label}>
                <Table.Td>{label}</Table.Td>
                <Table.Td>{value}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
      {reconciles !== null && <Text c={reconciles ? 'dimmed' : 'red'}>{reconciles ? t.reconciles : t.doesNotReconcile}</Text>}
      {p.store !== null && <Text c="dimmed">{t.oneStore}</Text>}
      <TableScroll>
        <Table aria-label={t.stores} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.store}</Table.Th>
              <Table.Th>{t.orders}</Table.Th>
              {points.map(([label]) => (
                <Table.Th key={label}>{label}</Table.Th>
              ))}
              <Table.Th>{t.spent}</Table.Th>
              <Table.Th>{t.returned}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {p.stores.map((s) => (
              <Table.Tr key={s.id} aria-label={s.name}>
                <Table.Td>{s.name}</Table.Td>
                <Table.Td>{s.orders}</Table.Td>
                {points.map(([label, show]) => (
                  <Table.Td key={label}>{show(s)}</Table.Td>
                ))}
                <Table.Td>{money(s.stored_value_spent)}</Table.Td>
                <Table.Td>{money(s.stored_value_returned)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
    </Stack>
  );
}
