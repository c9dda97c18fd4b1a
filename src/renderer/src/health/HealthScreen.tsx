import { Alert, Badge, Button, Card, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { type ReactNode, useEffect } from 'react';
import { formatDuration } from '../format';
import { defineStrings } from '../i18n/define-strings';
import { useLanguage } from '../i18n/language-store';
import { healthStore, useHealth } from './health-store';

export const useHealthStrings = defineStrings({
  en: {
    title: 'Node health',
    refresh: 'Refresh',
    notConnected: 'Not connected',
    answeredError: (reason: string) => `the node answered with an error: ${reason}`,
    cannotReach: (reason: string) => `cannot reach the node: ${reason}`,
    checking: 'Checking the store node…',
    status: 'Status',
    lastKnownOk: 'last known: ok',
    nodeId: 'Node id',
    role: 'Role',
    roleName: (role: string) => ({ store: 'Store node', central: 'Central node' })[role] ?? role,
    database: 'Database',
    version: 'Version',
    uptime: 'Uptime',
    checkedAt: (time: string) => `Checked at ${time}`,
  },
  es: {
    title: 'Estado del nodo',
    refresh: 'Actualizar',
    notConnected: 'Sin conexión',
    answeredError: (reason: string) => `el nodo respondió con un error: ${reason}`,
    cannotReach: (reason: string) => `no se puede contactar con el nodo: ${reason}`,
    checking: 'Comprobando el nodo de la tienda…',
    status: 'Estado',
    lastKnownOk: 'último conocido: ok',
    nodeId: 'Id del nodo',
    role: 'Función',
    roleName: (role: string) => ({ store: 'Nodo de tienda', central: 'Nodo central' })[role] ?? role,
    database: 'Base de datos',
    version: 'Versión',
    uptime: 'Tiempo activo',
    checkedAt: (time: string) => `Comprobado a las ${time}`,
  },
});

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
  const t = useHealthStrings();
  const language = useLanguage();
  const phase = useHealth((s) => s.phase);
  const health = useHealth((s) => s.health);
  const error = useHealth((s) => s.error);
  const unreachable = useHealth((s) => s.unreachable);
  const checkedAt = useHealth((s) => s.checkedAt);

  useEffect(() => {
    void healthStore().getState().refresh();
  }, []);

  const loading = phase === 'loading' || phase === 'idle';
  return (
    <Card withBorder radius="md" padding="lg" w="100%">
      <Stack gap="md">
        <Group justify="space-between">
          <Title order={3}>{t.title}</Title>
          <Button onClick={() => void healthStore().getState().refresh()} loading={loading} variant="light">
            {t.refresh}
          </Button>
        </Group>

        {phase === 'error' && error && (
          <Alert color="red" title={t.notConnected} role="alert">
            {unreachable ? t.cannotReach(error) : t.answeredError(error)}
          </Alert>
        )}

        {!health && loading && (
          <Group gap="sm">
            <Loader size="sm" />
            <Text c="dimmed">{t.checking}</Text>
          </Group>
        )}

        {health && (
          <Table variant="vertical" withTableBorder layout="fixed" aria-label={t.title}>
            <Table.Tbody>
              <Row
                label={t.status}
                value={
                  <Badge color={phase === 'error' ? 'gray' : 'green'} variant="light">
                    {phase === 'error' ? t.lastKnownOk : health.status}
                  </Badge>
                }
              />
              <Row label={t.nodeId} value={health.node_id} />
              <Row label={t.role} value={t.roleName(health.role)} />
              <Row label={t.database} value={health.database} />
              <Row label={t.version} value={health.version} />
              <Row label={t.uptime} value={formatDuration(health.uptime_seconds)} />
            </Table.Tbody>
          </Table>
        )}

        {checkedAt !== null && (
          <Text size="xs" c="dimmed">
            {t.checkedAt(new Date(checkedAt).toLocaleTimeString(language))}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
