import { Alert, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useLanguage } from '../i18n/language-store';
import { useSession } from '../session/session-store';
import { useCustomer } from './context';
import { historyRowTexts, readHistoryRecord } from './history-lines';
import { formatDate, formatTime, useCashierStrings } from './strings';

/** The customer's last few transactions (GET /user/transaction/list?user&api_key). */
export function HistoryTable() {
  const t = useCashierStrings();
  const language = useLanguage();
  const code = useSession((s) => s.terminal?.quick_pay_currency ?? null);
  const country = useSession((s) => s.terminal?.country ?? null);
  const history = useCustomer((s) => s.history);
  const phase = useCustomer((s) => s.historyPhase);
  const error = useCustomer((s) => s.historyError);

  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {t.historyTitle}
      </Title>
      {phase === 'error' && (
        <Alert color="red" role="alert" title={t.historyFailed}>
          {error}
        </Alert>
      )}
      {phase === 'loading' && !history && <Skeleton h={96} radius="md" aria-hidden />}
      {history && history.length === 0 && (
        <Text size="sm" c="dimmed">
          {t.historyEmpty}
        </Text>
      )}
      {history && history.length > 0 && (
        <Table.ScrollContainer minWidth={560}>
          <Table aria-label={t.historyTable} data-testid="history" striped verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t.colDate}</Table.Th>
                <Table.Th>{t.colTransaction}</Table.Th>
                <Table.Th>{t.colPoints}</Table.Th>
                <Table.Th>{t.colQuickPay}</Table.Th>
                <Table.Th>{t.colStatus}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {history.map((record) => {
                const row = historyRowTexts(readHistoryRecord(record), t, language, code, country);
                return (
                  <Table.Tr key={record.id} data-testid="history-row">
                    <Table.Td>
                      {formatDate(record.date, language)} {formatTime(record.date, language)}
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" fw={500} data-testid="history-what">
                        {row.title}
                      </Text>
                      {row.context && (
                        <Text size="xs" c="dimmed" data-testid="history-context">
                          {row.context}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td data-testid="history-points">{row.points}</Table.Td>
                    <Table.Td data-testid="history-quick-pay">{row.quickPay}</Table.Td>
                    <Table.Td>{t.status(record.status)}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
