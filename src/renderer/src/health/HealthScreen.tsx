import { Alert, Badge, Button, Card, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { type ReactNode, useEffect } from 'react';
import { formatDuration } from '../format';
import { defineStrings } from '../i18n/define-strings';
import { useLanguage } from '../i18n/language-store';
import type { Health } from '../../../shared/schemas/health';
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
    lastKnown: (status: string) => `last known: ${status}`,
    attention: 'Needs attention',
    diskLow: (free: string) => `the data folder's disk has ${free} free`,
    eventsUnsent: (minutes: number) => `sales not sent to central for ${minutes} min`,
    pullStale: (minutes: number) => `nothing heard from central for ${minutes} min`,
    unpairedAtCentral: 'central unpaired this store node: it takes no check-ins or sales until it is paired again',
    centralRefused: 'central refuses this store node (see the sync state’s last error)',
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
    lastKnown: (status: string) => `último conocido: ${status}`,
    attention: 'Requiere atención',
    diskLow: (free: string) => `al disco de la carpeta de datos le quedan ${free}`,
    eventsUnsent: (minutes: number) => `ventas sin enviar al nodo central desde hace ${minutes} min`,
    pullStale: (minutes: number) => `sin noticias del nodo central desde hace ${minutes} min`,
    unpairedAtCentral: 'el nodo central desvinculó este nodo de tienda: no acepta registros de entrada ni ventas hasta volver a vincularlo',
    centralRefused: 'el nodo central rechaza este nodo de tienda (vea el último error del estado de sincronización)',
    nodeId: 'Id del nodo',
    role: 'Función',
    roleName: (role: string) => ({ store: 'Nodo de tienda', central: 'Nodo central' })[role] ?? role,
    database: 'Base de datos',
    version: 'Versión',
    uptime: 'Tiempo activo',
    checkedAt: (time: string) => `Comprobado a las ${time}`,
  },
});

/** What a `degraded` node asks someone to look at, in words (the checks of GET /health). */
function attentionOf(health: Health, t: ReturnType<typeof useHealthStrings>): string[] {
  const { disk, sync } = health.checks;
  const lines: string[] = [];
  if (disk?.status === 'degraded') lines.push(t.diskLow(`${(disk.free_bytes / 2 ** 30).toFixed(1)} GiB`));
  if (sync?.problem === 'events_unsent') lines.push(t.eventsUnsent(Math.round((sync.oldest_pending_age_seconds ?? 0) / 60)));
  if (sync?.problem === 'pull_stale') lines.push(t.pullStale(Math.round((sync.last_pull_age_seconds ?? 0) / 60)));
  if (sync?.problem === 'unpaired_at_central') lines.push(t.unpairedAtCentral);
  if (sync?.problem === 'central_refused') lines.push(t.centralRefused);
  return lines;
}

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
                  <Badge color={phase === 'error' ? 'gray' : health.status === 'ok' ? 'green' : 'orange'} variant="light">
                    {phase === 'error' ? t.lastKnown(health.status) : health.status}
                  </Badge>
                }
              />
              {attentionOf(health, t).length > 0 && <Row label={t.attention} value={attentionOf(health, t).join('; ')} />}
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
