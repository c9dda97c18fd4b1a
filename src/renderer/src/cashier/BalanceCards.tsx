import { Paper, SimpleGrid, Text } from '@mantine/core';
import type { CustomerAtCounter } from '../api/terminal-api';
import { formatMoney, formatPoints, withMinusSign } from '../format';
import { useLanguage } from '../i18n/language-store';
import { useSession } from '../session/session-store';
import { autoReload, nextExpiring } from './balances';
import { formatDate, useCashierStrings } from './strings';

/** A test id part from a currency name: "Stars & Co" -> "Stars-&-Co" (spaces only are replaced). */
export const testIdPart = (name: string) => name.trim().replace(/\s+/g, '-');

function BalanceCard({ label, value, amount, testId, note, noteTestId }: { label: string; value: string; amount: number; testId: string; note: string; noteTestId: string }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={testId} data-amount={amount}>
        {value}
      </Text>
      <Text size="sm" c="dimmed" data-testid={noteTestId}>
        {note}
      </Text>
    </Paper>
  );
}

/** Quick-pay balance, each loyalty balance with what expires next, and the auto-reload state. */
export function BalanceCards({ customer }: { customer: CustomerAtCounter }) {
  const t = useCashierStrings();
  const language = useLanguage();
  const fallbackCode = useSession((s) => s.terminal?.quick_pay_currency ?? null);
  const quickPay = customer.quick_pay_balance;
  const code = quickPay.currency?.code ?? fallbackCode;
  const country = useSession((s) => s.terminal?.country ?? null);
  // A balance below zero (points earned, spent, then the sale voided) reads with the history's minus sign.
  const money = (amount: number) => withMinusSign(amount, (n) => formatMoney(n, code, language, country));
  const points = (amount: number) => withMinusSign(amount, (n) => formatPoints(n, language, code, country));
  const qpExpiring = nextExpiring(quickPay.expiring, quickPay.amount);
  const reload = autoReload(customer.reload);

  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
      <BalanceCard
        label={t.quickPay}
        value={money(quickPay.amount)}
        amount={quickPay.amount}
        testId="quick-pay-balance"
        noteTestId="quick-pay-expiring"
        note={qpExpiring ? t.expiresNext(money(qpExpiring.amount), formatDate(qpExpiring.date, language)) : t.nothingExpires}
      />
      {customer.loyalty_balance.data.map((entry) => {
        const expiring = nextExpiring(entry.expiring, entry.amount);
        const id = testIdPart(entry.currency.name);
        return (
          <BalanceCard
            key={entry.currency.id}
            label={entry.currency.name}
            value={points(entry.amount)}
            amount={entry.amount}
            testId={`loyalty-balance-${id}`}
            noteTestId={`loyalty-expiring-${id}`}
            note={expiring ? t.expiresNext(formatPoints(expiring.amount, language, code, country), formatDate(expiring.date, language)) : t.nothingExpires}
          />
        );
      })}
      <Paper withBorder p="md" radius="md">
        <Text size="sm" c="dimmed">
          {t.autoReload}
        </Text>
        <Text size="lg" fw={600} data-testid="auto-reload" data-on={reload.on}>
          {reload.on ? t.autoReloadOn(money(reload.amount), money(reload.threshold)) : t.autoReloadOff}
        </Text>
      </Paper>
    </SimpleGrid>
  );
}
