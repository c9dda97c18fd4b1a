/**
 * Settings: this screen (store, role, sign out), language, scanners (the node's and this screen's
 * keyboard-wedge capture), the store node (address, live updates, health) and pairing with a central
 * node (its sync state once paired; docs/sync.md).
 *
 * Hooks for end-to-end tests: region "Settings" ("Ajustes"); data-testid="settings-terminal",
 * "settings-language", "settings-scanners", "settings-node", "settings-pairing"; table "Scanners"
 * (data-testid="scanner-row" per scanner, its station select "Station of <name>",
 * data-testid="scanner-station"), switch "Capture keyboard-wedge scans"
 * (data-testid="wedge-status"), on a cashier screen switch "Scans at the node’s scanners open the
 * customer here" (data-testid="node-scans"), table "Node health", buttons "Refresh", "Sign out" then
 * "Yes, sign out".
 */
import { Alert, Badge, Box, Button, Card, Group, Loader, NativeSelect, SimpleGrid, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { ConnectionBadge } from '../app/ConnectionBadge';
import { TableField } from '../app/TableField';
import { PairingCard } from '../sync/PairingCard';
import { LanguageSwitch } from '../app/LanguageSwitch';
import { viewStore } from '../app/view-store';
import { HealthScreen } from '../health/HealthScreen';
import { useLanguage } from '../i18n/language-store';
import { nodeScanSetting, useNodeScanSetting } from '../cashier/node-scan-setting';
import { sessionStore, useSession, useTerminalApi } from '../session/session-store';
import { useWedge, wedgeStore } from '../wedge/wedge-store';
import { formatScanTime, kindLabel, modeLabel, stationLabel } from './scanner-labels';
import { useSettingsStrings } from './strings';
import { useScanners } from './use-scanners';

/** A kiosk left on Settings goes back to the kiosk after this long without a touch or key. */
export const KIOSK_SETTINGS_IDLE_MS = 60_000;

/** Forgets the key; whoever signs in next starts on their role's own screen (main-view-after-sign-out.ts). */
function signOut() {
  sessionStore().getState().signOut();
}

function TerminalCard() {
  const t = useSettingsStrings();
  const terminal = useSession((s) => s.terminal);
  const fromDesktop = useSession((s) => s.fromDesktop);
  const [confirming, setConfirming] = useState(false);
  if (!terminal) return null;
  const role = terminal.role === 'cashier' ? t.roleCashier : terminal.role === 'kiosk' ? t.roleKiosk : t.roleIntegration;
  return (
    <Card withBorder radius="md" padding="lg" data-testid="settings-terminal">
      <Stack gap="md">
        <Title order={3}>{t.terminalTitle}</Title>
        <Table variant="vertical" withTableBorder layout="fixed" aria-label={t.terminalTitle}>
          <Table.Tbody>
            <TableField label={t.store}>{terminal.store.name}</TableField>
            <TableField label={t.address}>{terminal.store.address || t.none}</TableField>
            <TableField label={t.role}>{role}</TableField>
            <TableField label={t.program}>{terminal.vendor.name}</TableField>
            <TableField label={t.pointOfSale}>{terminal.point_of_sale?.name ?? t.none}</TableField>
          </Table.Tbody>
        </Table>
        {fromDesktop ? (
          <Text size="sm" c="dimmed">
            {t.desktopKey}
          </Text>
        ) : confirming ? (
          <Stack gap="xs">
            <Text size="sm">{t.signOutHint}</Text>
            <Group>
              <Button color="red" size="md" onClick={signOut} autoFocus>
                {t.signOutConfirm}
              </Button>
              <Button variant="default" size="md" onClick={() => setConfirming(false)}>
                {t.cancel}
              </Button>
            </Group>
          </Stack>
        ) : (
          <Group>
            <Button variant="light" color="red" size="md" onClick={() => setConfirming(true)}>
              {t.signOut}
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}

function LanguageCard() {
  const t = useSettingsStrings();
  return (
    <Card withBorder radius="md" padding="lg" data-testid="settings-language">
      <Stack gap="sm">
        <Title order={3}>{t.languageTitle}</Title>
        <Text size="sm" c="dimmed">
          {t.languageHint}
        </Text>
        <Group>
          <LanguageSwitch />
        </Group>
      </Stack>
    </Card>
  );
}

function WedgeStatus() {
  const t = useSettingsStrings();
  const language = useLanguage();
  const enabled = useWedge((s) => s.enabled);
  const lastScanAt = useWedge((s) => s.lastScanAt);
  const outcome = useWedge((s) => s.lastOutcome);
  return (
    <Stack gap="xs" data-testid="wedge-status">
      <Group justify="space-between" wrap="nowrap">
        <Text fw={600}>{t.wedgeTitle}</Text>
        {/* Whole beside a title that wraps (at 320 px it was squeezed to "O."). */}
        <Badge color={enabled ? 'green' : 'gray'} variant="light" style={{ flexShrink: 0 }}>
          {enabled ? t.wedgeOn : t.wedgeOff}
        </Badge>
      </Group>
      <Text size="sm" c="dimmed">
        {t.wedgeHint}
      </Text>
      <Switch size="lg" label={t.wedgeSwitch} checked={enabled} onChange={(e) => wedgeStore.getState().setEnabled(e.currentTarget.checked)} />
      <Text size="sm">
        {t.wedgeLastScan}: {formatScanTime(lastScanAt, Date.now(), language, t)}
        {outcome && ` — ${outcome.ok ? t.wedgeLastOk(outcome.masked) : t.wedgeLastFailed(outcome.message)}`}
      </Text>
    </Stack>
  );
}

/** A cashier screen away from the node's scanners leaves their scans to the queue (node-scan-setting). */
function NodeScansSwitch() {
  const t = useSettingsStrings();
  const opensPanel = useNodeScanSetting((s) => s.opensPanel);
  return (
    <Stack gap="xs" data-testid="node-scans">
      <Text fw={600}>{t.nodeScansTitle}</Text>
      <Text size="sm" c="dimmed">
        {t.nodeScansHint}
      </Text>
      <Switch size="lg" label={t.nodeScansSwitch} checked={opensPanel} onChange={(e) => nodeScanSetting.getState().setOpensPanel(e.currentTarget.checked)} />
    </Stack>
  );
}

function ScannersCard() {
  const t = useSettingsStrings();
  const language = useLanguage();
  const api = useTerminalApi();
  const { phase, list, error, assignError, refresh, assign } = useScanners(api);
  // Kiosk keys may not assign stations (the node refuses them): a kiosk shows them only.
  const canAssign = useSession((s) => s.terminal?.role !== 'kiosk');
  const cashier = useSession((s) => s.terminal?.role === 'cashier');
  const now = Date.now();
  return (
    <Card withBorder radius="md" padding="lg" data-testid="settings-scanners">
      <Stack gap="md">
        <Group justify="space-between">
          <Title order={3}>{t.scannersTitle}</Title>
          <Button variant="light" onClick={refresh} loading={phase === 'loading' && list !== null}>
            {t.refresh}
          </Button>
        </Group>
        <Text fw={600}>{t.scannersNode}</Text>
        {phase === 'loading' && list === null && (
          <Group gap="sm">
            <Loader size="sm" />
            <Text c="dimmed">{t.scannersLoading}</Text>
          </Group>
        )}
        {phase === 'error' && error && (
          <Alert color="red" role="alert">
            {t.scannersError(error)}
          </Alert>
        )}
        {list && !list.available && (
          <Text size="sm" c="dimmed" data-testid="scanners-unavailable">
            {t.scannersUnavailable}
          </Text>
        )}
        {list?.available && list.scanners.length === 0 && (
          <Text size="sm" c="dimmed" data-testid="scanners-empty">
            {t.scannersNone}
          </Text>
        )}
        {list?.available && list.scanners.length > 0 && (
          <Table.ScrollContainer minWidth={680}>
            <Table withTableBorder striped aria-label={t.scannersTitle}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t.scannerName}</Table.Th>
                  <Table.Th>{t.scannerKind}</Table.Th>
                  <Table.Th>{t.scannerMode}</Table.Th>
                  <Table.Th>{t.scannerState}</Table.Th>
                  <Table.Th>{t.scannerLastScan}</Table.Th>
                  <Table.Th>{t.scannerStation}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.scanners.map((s) => (
                  <Table.Tr key={s.id} data-testid="scanner-row">
                    <Table.Td>{s.name}</Table.Td>
                    <Table.Td>{kindLabel(s.kind, t)}</Table.Td>
                    <Table.Td>{modeLabel(s.mode, t)}</Table.Td>
                    <Table.Td>
                      {/* Text, not a badge: a badge truncates in a narrow table column. */}
                      <Text size="sm" fw={600} c={s.connected ? 'green.8' : 'dimmed'}>
                        <span aria-hidden="true">● </span>
                        {s.connected ? t.connected : t.disconnected}
                      </Text>
                    </Table.Td>
                    <Table.Td>{formatScanTime(s.last_scan_at, now, language, t)}</Table.Td>
                    <Table.Td>
                      {canAssign ? (
                        <NativeSelect
                          aria-label={t.stationOf(s.name)}
                          data-testid="scanner-station"
                          value={s.station ?? 'both'}
                          onChange={(e) => {
                            const value = e.currentTarget.value;
                            void assign(s.id, value === 'counter' || value === 'kiosk' ? value : null);
                          }}
                          data={[
                            { value: 'both', label: t.stationNone },
                            { value: 'counter', label: t.stationCounter },
                            { value: 'kiosk', label: t.stationKiosk },
                          ]}
                        />
                      ) : (
                        <Text size="sm" data-testid="scanner-station">
                          {stationLabel(s.station, t)}
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {list?.available && list.scanners.length > 0 && (
          <Text size="sm" c="dimmed">
            {t.stationHint} {canAssign ? '' : t.stationKioskOnly}
          </Text>
        )}
        {assignError && (
          <Alert color="red" role="alert">
            {t.stationError(assignError)}
          </Alert>
        )}
        {cashier && (
          <Box pt="xs" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
            <NodeScansSwitch />
          </Box>
        )}
        <Box pt="xs" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
          <WedgeStatus />
        </Box>
      </Stack>
    </Card>
  );
}

function NodeCard() {
  const t = useSettingsStrings();
  const baseUrl = useSession((s) => s.baseUrl);
  return (
    <Stack gap="md" data-testid="settings-node">
      <Card withBorder radius="md" padding="lg">
        <Stack gap="sm">
          <Title order={3}>{t.nodeTitle}</Title>
          <Table variant="vertical" withTableBorder layout="fixed" aria-label={t.nodeTitle}>
            <Table.Tbody>
              <TableField label={t.nodeUrl}>
                <Text ff="monospace" size="sm" style={{ wordBreak: 'break-all' }}>
                  {baseUrl}
                </Text>
              </TableField>
              <TableField label={t.events}>
                <ConnectionBadge />
              </TableField>
            </Table.Tbody>
          </Table>
        </Stack>
      </Card>
      <HealthScreen />
    </Stack>
  );
}

/** On a kiosk, Settings closes itself when left alone, so customers never find the kiosk on it. */
function useKioskReturn(kiosk: boolean) {
  useEffect(() => {
    if (!kiosk) return;
    let timer = setTimeout(back, KIOSK_SETTINGS_IDLE_MS);
    function back() {
      viewStore.getState().show('main');
    }
    const activity = () => {
      clearTimeout(timer);
      timer = setTimeout(back, KIOSK_SETTINGS_IDLE_MS);
    };
    window.addEventListener('pointerdown', activity);
    window.addEventListener('keydown', activity);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('pointerdown', activity);
      window.removeEventListener('keydown', activity);
    };
  }, [kiosk]);
}

export function SettingsScreen() {
  const t = useSettingsStrings();
  const role = useSession((s) => s.terminal?.role);
  useKioskReturn(role === 'kiosk');
  return (
    <Box component="section" role="region" aria-label={t.region} maw={1200} mx="auto" data-testid="settings">
      <Title order={2} mb="md">
        {t.title}
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Stack gap="md">
          <TerminalCard />
          <ScannersCard />
          <LanguageCard />
        </Stack>
        <Stack gap="md">
          <NodeCard />
          <PairingCard title={t.pairingTitle} onSignOut={signOut} />
        </Stack>
      </SimpleGrid>
    </Box>
  );
}
