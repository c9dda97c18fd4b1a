import { Alert, AppShell, Box, Button, Center, Group, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useEffect } from 'react';
import { ConnectionBadge } from './app/ConnectionBadge';
import { SyncBadge } from './sync/SyncBadge';
import { LanguageSwitch } from './app/LanguageSwitch';
import { mainViewAfterSignOut } from './app/main-view-after-sign-out';
import { useShellStrings } from './app/strings';
import { useView, viewStore } from './app/view-store';
import { CashierScreen } from './cashier/CashierScreen';
import { eventStream, useEventStreamStatus } from './events/event-stream';
import { KioskScreen } from './kiosk/KioskScreen';
import { LoginScreen } from './login/LoginScreen';
import { sessionStore, useSession } from './session/session-store';
import { SettingsScreen } from './settings/SettingsScreen';
import { Toasts } from './wedge/Toasts';
import { useWedgeCapture } from './wedge/use-wedge-capture';

/** Opens the store's event stream while the session is ready. */
function useStoreEvents() {
  const api = useSession((s) => s.api);
  const baseUrl = useSession((s) => s.baseUrl);
  useEffect(() => {
    if (!api) return;
    const stream = eventStream();
    // A refused stream may mean the node no longer takes this key: the screen says so instead of "retrying" for ever.
    stream.connect(api.eventsUrl(baseUrl), () => void sessionStore().getState().recheck());
    return () => stream.disconnect();
  }, [api, baseUrl]);
}

/** Below this width (a 1280 px screen at 200% zoom and more) the header wraps in the page's flow instead of a fixed 60 px bar. */
const NARROW = '(max-width: 40em)';

function Header({ narrow }: { narrow: boolean }) {
  const t = useShellStrings();
  const terminal = useSession((s) => s.terminal);
  const view = useView();
  const wrap = narrow ? 'wrap' : 'nowrap';
  return (
    <Group h={narrow ? undefined : '100%'} px={narrow ? 0 : 'md'} justify="space-between" wrap={wrap} gap="sm">
      <Group gap="sm" wrap={wrap} style={{ minWidth: 0 }}>
        <Title order={3}>{t.appName}</Title>
        {terminal && (
          <Text size="sm" c="dimmed" truncate={!narrow} style={narrow ? { overflowWrap: 'anywhere' } : undefined}>
            {terminal.store.name} · {terminal.role === 'kiosk' ? t.kioskRole : t.cashierRole}
          </Text>
        )}
      </Group>
      <Group gap="sm" wrap={wrap}>
        {terminal && <ConnectionBadge />}
        {terminal && <SyncBadge />}
        <LanguageSwitch />
        {terminal && (
          <Button variant={view === 'settings' ? 'filled' : 'light'} onClick={() => viewStore.getState().show(view === 'settings' ? 'main' : 'settings')}>
            {view === 'settings' ? t.back : t.settings}
          </Button>
        )}
      </Group>
    </Group>
  );
}

function OfflineBanner() {
  const t = useShellStrings();
  const status = useEventStreamStatus();
  // A kiosk speaks to customers: no node or queue in its words.
  const kiosk = useSession((s) => s.terminal?.role === 'kiosk');
  if (status !== 'offline') return null;
  return (
    <Alert color={kiosk ? 'yellow' : 'red'} role="alert" mb="md" data-testid="offline-banner">
      {kiosk ? t.kioskOfflineBanner : t.offlineBanner}
    </Alert>
  );
}

function MainView() {
  const t = useShellStrings();
  const phase = useSession((s) => s.phase);
  const terminal = useSession((s) => s.terminal);
  const view = useView();
  if (phase !== 'ready' || !terminal) return <LoginScreen />;
  if (view === 'settings') return <SettingsScreen />;
  if (terminal.role === 'cashier') return <CashierScreen />;
  if (terminal.role === 'kiosk') return <KioskScreen />;
  return (
    <Center pt="xl">
      <Alert color="yellow" role="alert" maw={520}>
        {t.integrationKey}
      </Alert>
    </Center>
  );
}

export function App() {
  useStoreEvents();
  // Keyboard-wedge scanners, for cashier and kiosk keys (see wedge/use-wedge-capture.ts).
  useWedgeCapture();
  useEffect(() => {
    void sessionStore().getState().resume();
  }, []);
  useEffect(() => mainViewAfterSignOut(), []);
  const role = useSession((s) => s.terminal?.role);
  const view = useView();
  // The kiosk owns the whole screen; its settings stay reachable through the kiosk's own control.
  const bare = role === 'kiosk' && view === 'main';
  // Zoomed in (400%: 320 px), a fixed bar cut Settings off and covered the queue: the header wraps and scrolls with the page.
  const narrow = useMediaQuery(NARROW, false, { getInitialValueInEffect: false });
  const fixedHeader = !bare && !narrow;
  return (
    // No padding transition: after a kiosk's sign-in the shell's padding eased to 0 over 200 ms, and the
    // kiosk's first screen scrolled (its buttons under the fold) until it had.
    <AppShell header={fixedHeader ? { height: 60 } : undefined} padding={bare ? 0 : 'md'} transitionDuration={0}>
      {fixedHeader && <AppShell.Header>{<Header narrow={false} />}</AppShell.Header>}
      {/* Outside <main>, so it stays the page's banner landmark. */}
      {!bare && narrow && (
        <Box component="header" p="md" pb="sm" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
          <Header narrow />
        </Box>
      )}
      <AppShell.Main>
        <OfflineBanner />
        <MainView />
      </AppShell.Main>
      <Toasts />
    </AppShell>
  );
}

