import { Alert, Button, Code, Group, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { adminStore } from './admin-store';
import { formatDateTime } from './format';
import { useAdminStrings } from './strings';
import { useLoad } from './use-load';

const PAGE = 25;

/** Every back-office change, newest first, paged by the node. */
export function AuditScreen() {
  const t = useAdminStrings();
  const [offset, setOffset] = useState(0);
  const page = useLoad(() => adminStore.getState().api().audit(offset, PAGE), [offset]);
  if (page.error)
    return (
      <Alert color="red" role="alert">
        {page.error}
      </Alert>
    );
  if (!page.data) return <Text>{t.loading}</Text>;
  const { items, total } = page.data;
  return (
    <Stack>
      <Table aria-label={t.auditTable} striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t.when}</Table.Th>
            <Table.Th>{t.who}</Table.Th>
            <Table.Th>{t.what}</Table.Th>
            <Table.Th>{t.object}</Table.Th>
            <Table.Th>{t.change}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((entry) => (
            <Table.Tr key={entry.id}>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(entry.date_created)}</Table.Td>
              <Table.Td>{entry.actor}</Table.Td>
              <Table.Td>{entry.action}</Table.Td>
              <Table.Td>
                {entry.object_type} {entry.object_id}
              </Table.Td>
              <Table.Td>
                {/* Wrapped: a long change never widens the page past the window. */}
                <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{`${JSON.stringify(entry.before)}\n→ ${JSON.stringify(entry.after)}`}</Code>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group>
        <Button variant="light" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          {t.previous}
        </Button>
        <Text>{t.pageOf(total === 0 ? 0 : offset + 1, offset + items.length, total)}</Text>
        <Button variant="light" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
          {t.next}
        </Button>
      </Group>
    </Stack>
  );
}
