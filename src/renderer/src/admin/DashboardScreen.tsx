import { Alert, Group, Paper, Select, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { minorUnitDigits } from '../../../shared/currency-codes';
import { toMajorUnits } from '../../../shared/money';
import { formatAxisDay } from '../format';
import { useLanguage } from '../i18n/language-store';
import { theme } from '../theme';
import type { Dashboard } from './admin-api';
import { adminStore, useAdmin } from './admin-store';
import { ChartFrame, TableScroll } from './a11y';
import { formatAmount } from './format';
import { PeriodStatementSection } from './PeriodStatementSection';
import { pointsFigures } from './points-figures';
import { useProgramCountry } from './program-country';
import { useAdminStrings } from './strings';
import { useLoad } from './use-load';

type Figures = Dashboard['today'];

/**
 * The charts' series in the theme's shade 8 (5:1 on white): the legend writes each name in its
 * series' colour, and Mantine's shade 6 put it at 2.5–3.6:1 (text asks 4.5:1, a line 3:1).
 */
const shade8 = (name: string) => theme.colors![name]![8];
const SERIES = { blue: shade8('blue'), teal: shade8('teal'), red: shade8('red'), violet: shade8('violet'), orange: shade8('orange') };

/** Today and the last 30 days: figures, charts per day, and each store; a store manager sees their store. */
export function DashboardScreen() {
  const t = useAdminStrings();
  const language = useLanguage();
  const role = useAdmin((s) => s.staff?.role);
  useProgramCountry();
  const [store, setStore] = useState<string | null>(null);
  const stores = useLoad(() => adminStore.getState().api().stores(), []);
  const dashboard = useLoad(() => adminStore.getState().api().dashboard(store === null ? null : Number(store)), [store]);
  if (dashboard.error)
    return (
      <Alert color="red" role="alert">
        {dashboard.error}
      </Alert>
    );
  const d = dashboard.data;
  if (!d) return <Text>{t.loading}</Text>;
  const cur = d.quick_pay_currency;
  // One store's dashboard has no loads, returns, adjustments, pay-backs or gifts: the node counts
  // them for the program only (they are made at no store), so their rows would read $0.00 there.
  const oneStore = d.store !== null;
  const points = pointsFigures<Figures>(d.today, t);
  const storeRows: Array<[string, (f: Figures) => string]> = [
    [t.checkIns, (f) => String(f.check_ins)],
    [t.orders, (f) => String(f.orders)],
    ...points,
    [t.spent, (f) => formatAmount(f.stored_value_spent, cur)],
  ];
  const programRows: Array<[string, (f: Figures) => string]> = [
    [t.loaded, (f) => formatAmount(f.stored_value_loaded, cur)],
    [t.returnedByVoids, (f) => formatAmount(f.stored_value_returned, cur)],
    [t.adjustedByStaff, (f) => formatAmount(f.stored_value_adjusted, cur)],
    [t.forfeitedOnLeaving, (f) => formatAmount(f.stored_value_forfeited, cur)],
    [t.paidBackToCustomers, (f) => formatAmount(f.stored_value_paid_back, cur)],
    [t.reloads, (f) => `${f.reloads} · ${formatAmount(f.reload_amount, cur)}`],
    [t.egifts, (f) => `${f.egifts} · ${formatAmount(f.egift_amount, cur)}`],
  ];
  // The program's loads come before what was spent (the last of the store's rows).
  const rows = oneStore ? storeRows : [...storeRows.slice(0, -1), programRows[0]!, storeRows.at(-1)!, ...programRows.slice(1)];
  const digits = cur ? minorUnitDigits(cur) : 0;
  const chartDays = d.days.map((day) => ({
    day: formatAxisDay(day.day, language),
    [t.checkIns]: day.check_ins,
    [t.orders]: day.orders,
    [t.loaded]: toMajorUnits(day.stored_value_loaded, digits),
    [t.spent]: toMajorUnits(day.stored_value_spent, digits),
    [t.outstanding]: day.outstanding_stored_value === null ? null : toMajorUnits(day.outstanding_stored_value, digits),
    [t.liability]: day.outstanding_stored_value === null ? null : toMajorUnits(day.outstanding_stored_value + (day.unclaimed_egift_amount ?? 0), digits),
  }));
  return (
    <Stack>
      <Group justify="space-between">
        {role !== 'store_manager' && (
          <Select
            label={t.store}
            placeholder={t.allStores}
            value={store}
            onChange={setStore}
            clearable
            data={(stores.data?.items ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
          />
        )}
        <Text c="dimmed">{t.daysIn(d.time_zone)}</Text>
      </Group>
      {d.outstanding_stored_value !== null && (
        // The liability as an accountant reads it: the balances, the gifts sold and not claimed, their total.
        <SimpleGrid cols={{ base: 1, md: 3 }}>
          <LiabilityFigure label={t.outstanding} amount={formatAmount(d.outstanding_stored_value, cur)} />
          {d.unclaimed_egifts !== null && <LiabilityFigure label={t.unclaimedEgifts} amount={formatAmount(d.unclaimed_egifts.amount, cur)} note={t.unclaimedEgiftCount(d.unclaimed_egifts.count)} />}
          {d.outstanding_liability !== null && <LiabilityFigure label={t.liability} amount={formatAmount(d.outstanding_liability, cur)} note={t.liabilityHelp} />}
        </SimpleGrid>
      )}
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Paper withBorder p="md">
          <Title order={2} size="h5" mb="sm">
            {t.visitsChart}
          </Title>
          <ChartFrame label={t.chartSummary(t.visitsChart, d.days[0]?.day ?? '', d.days.at(-1)?.day ?? '', t.figuresTable)}>
          <ResponsiveContainer width="100%" height={240}>
            <BarChart data={chartDays} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="day" fontSize={11} />
              <YAxis allowDecimals={false} fontSize={11} />
              <Tooltip />
              <Legend />
              <Bar dataKey={t.checkIns} fill={SERIES.blue} isAnimationActive={false} />
              <Bar dataKey={t.orders} fill={SERIES.teal} isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
          </ChartFrame>
        </Paper>
        <Paper withBorder p="md">
          <Title order={2} size="h5" mb="sm">
            {t.valueChart}
          </Title>
          <ChartFrame label={t.chartSummary(t.valueChart, d.days[0]?.day ?? '', d.days.at(-1)?.day ?? '', t.figuresTable)}>
          <ResponsiveContainer width="100%" height={240}>
            <LineChart data={chartDays} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="day" fontSize={11} />
              <YAxis fontSize={11} />
              {/* Amounts as the tables write them ("$12,50" in Ecuador), not the chart's bare "12.5". */}
              <Tooltip formatter={(value) => (typeof value === 'number' ? formatAmount(Math.round(value * 10 ** digits), cur) : value)} />
              <Legend />
              {!oneStore && <Line dataKey={t.loaded} stroke={SERIES.teal} dot={false} isAnimationActive={false} />}
              <Line dataKey={t.spent} stroke={SERIES.red} dot={false} isAnimationActive={false} />
              {d.outstanding_stored_value !== null && <Line dataKey={t.outstanding} stroke={SERIES.violet} dot={false} isAnimationActive={false} />}
              {d.outstanding_liability !== null && <Line dataKey={t.liability} stroke={SERIES.orange} dot={false} isAnimationActive={false} />}
            </LineChart>
          </ResponsiveContainer>
          </ChartFrame>
        </Paper>
      </SimpleGrid>
      <TableScroll>
        <Table aria-label={t.figuresTable} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.figure}</Table.Th>
              <Table.Th>{t.today}</Table.Th>
              <Table.Th>{t.last30}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map(([label, show]) => (
              <Table.Tr key={label} aria-label={label}>
                <Table.Td>{label}</Table.Td>
                <Table.Td>{show(d.today)}</Table.Td>
                <Table.Td>{show(d.last_30_days)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
      {oneStore && <Text c="dimmed">{t.programWideOnly}</Text>}
      <Title order={2} size="h4">
        {t.perStore}
      </Title>
      <TableScroll>
        <Table aria-label={t.perStore} striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t.store}</Table.Th>
              <Table.Th>{t.checkIns}</Table.Th>
              <Table.Th>{t.orders}</Table.Th>
              {points.map(([label]) => (
                <Table.Th key={label}>{label}</Table.Th>
              ))}
              <Table.Th>{t.spent}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {d.stores.map((s) => (
              <Table.Tr key={s.id} aria-label={s.name}>
                <Table.Td>{s.name}</Table.Td>
                <Table.Td>{s.check_ins}</Table.Td>
                <Table.Td>{s.orders}</Table.Td>
                {points.map(([label, show]) => (
                  <Table.Td key={label}>{show(s)}</Table.Td>
                ))}
                <Table.Td>{formatAmount(s.stored_value_spent, cur)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroll>
      <PeriodStatementSection store={store === null ? null : Number(store)} />
    </Stack>
  );
}

/**
 * One figure of the liability: its label, the amount as a heading named with both (a label alone as
 * the heading's name hid the amount from screen readers; the visible label is then not read twice).
 */
function LiabilityFigure({ label, amount, note }: { label: string; amount: string; note?: string }) {
  return (
    <Paper withBorder p="md">
      <Text c="dimmed" aria-hidden>
        {label}
      </Text>
      <Title order={2} aria-label={`${label}: ${amount}`}>
        {amount}
      </Title>
      {note !== undefined && (
        <Text size="sm" c="dimmed">
          {note}
        </Text>
      )}
    </Paper>
  );
}
