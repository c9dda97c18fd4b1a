import { Alert, Badge, Button, Card, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { type ReactNode, useEffect } from 'react';
import { formatDuration } from '../format';
import { healthStore, useHealth } from './health-store';

function Row({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Table.Tr>
      <Table.Th w={160}>{label}</Table.Th>
      <Table.Td>{value}</Table.Td>
    </Table.Tr>
  );
}

/** Node health: is the store node up, which node, which database, which version. */
export function HealthScreen() {
  const phase = useHealth((s) => s.phase);
  const health = useHealth((s) => s.health);
  const error = useHealth((s) => s.error);
  const checkedAt = useHealth((s) => s.checkedAt);

  useEffect(() => {
    void healthStore().getState().refresh();
  }, []);

  const loading = phase === 'loading' || phase === 'idle';
  return (
    <Card withBorder radius="md" padding="lg" maw={560} w="100%">
      <Stack gap="md">
        <Group justify="space-between">
          <Title order={2}>Node health</Title>
          <Button onClick={() => void healthStore().getState().refresh()} loading={loading} variant="light">
            Refresh
          </Button>
        </Group>

        {phase === 'error' && error && (
          <Alert color="red" title="Not connected" role="alert">
            {error}
          </Alert>
        )}

        {!health && loading && (
          <Group gap="sm">
            <Loader size="sm" />
            <Text c="dimmed">Checking the store node…</Text>
          </Group>
        )}

        {health && (
          <Table variant="vertical" withTableBorder layout="fixed" aria-label="Node health">
            <Table.Tbody>
              <Row
                label="Status"
                value={
                  <Badge color={phase === 'error' ? 'gray' : 'green'} variant="light">
                    {phase === 'error' ? 'last known: ok' : health.status}
                  </Badge>
                }
              />
              <Row label="Node id" value={health.node_id} />
              <Row label="Role" value={health.role} />
              <Row label="Database" value={health.database} />
              <Row label="Version" value={health.version} />
              <Row label="Uptime" value={formatDuration(health.uptime_seconds)} />
            </Table.Tbody>
          </Table>
        )}

        {checkedAt !== null && (
          <Text size="xs" c="dimmed">
            Checked at {new Date(checkedAt).toLocaleTimeString()}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
