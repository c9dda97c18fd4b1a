/**
 * Kiosk screen: self check-in on a full screen, for touch first (and a keyboard).
 *
 * Hooks for end-to-end tests (stable across languages unless noted):
 *   region     "Kiosk" (Spanish "Quiosco"); also data-testid="kiosk"
 *   views      data-testid="kiosk-idle" | "kiosk-type" | "kiosk-register" | "kiosk-working"
 *              | "kiosk-welcome" | "kiosk-retry" | "kiosk-error"
 *   welcome    data-testid="kiosk-welcome-name" (the greeting), "kiosk-points" (one per loyalty
 *              currency), "kiosk-quick-pay", "kiosk-countdown" (outside the welcome's role="status",
 *              which says it once); retry: the message is role="alert", its countdown outside it
 *   join       data-testid="kiosk-join-why" (why Join is greyed; the button's aria-describedby)
 *   retry      data-kiosk-reason="not-found" | "unreadable" on the kiosk-retry element
 *   unlinked   data-testid="kiosk-unlinked" (a card nobody has linked), button "New here? Join with
 *              this card"; the join form then shows data-testid="kiosk-joining-card"
 *   buttons    "Type it instead", "New here? Join with your phone", "Check in", "Join", "Cancel",
 *              "Done", "Try again", "OK", "Settings" (the small gear, top right: it opens the "Staff
 *              only" dialog of StaffLock.tsx; not shown in the desktop app's kiosk window)
 *   fields     "Card number, phone or email", "Mobile number", "Country code", "First name (optional)"
 *   keyboard   group "On-screen keyboard" (data-testid="kiosk-keyboard"); keys named by their character
 *
 * While the staff dialog is open, scans are ignored (the dialog says so): see the wedge claim below.
 *
 * A customer is welcomed after: a keyboard-wedge scan on this screen (the wedge capture hands the line
 * to this screen), a scan read by one of the node's kiosk-station (or unassigned) HID scanners (a
 * session.opened event on the store's stream, kiosk-events.ts), a typed identification, or an in-store registration by phone.
 */
import { ActionIcon, Alert, Badge, Box, Button, Group, Loader, Paper, Progress, SegmentedControl, Select, Stack, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { type FormEvent, type KeyboardEvent, useEffect, useId, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { eventStream } from '../events/event-stream';
import { formatMoney, formatPoints, withMinusSign } from '../format';
import { isLanguage, languageStore, useLanguage } from '../i18n/language-store';
import { usesCedula } from '../../../shared/cedula-countries';
import { useSession, useTerminalApi } from '../session/session-store';
import { wedgeStore } from '../wedge/wedge-store';
import { type CallingCountry, callingCountryLabel, loadCallingCountries, storeCountryLabel } from './countries';
import { createKioskStore, type KioskStore, type KioskWelcome, type RetryReason } from './kiosk-store';
import { kioskGreets, kioskRetries } from './kiosk-events';
import classes from './KioskScreen.module.css';
import { OnScreenKeyboard } from './OnScreenKeyboard';
import { kioskSettingsAccess, type StaffLock } from './staff-lock';
import { StaffLockDialog, useStaffLock } from './StaffLock';
import { useKioskStrings } from './strings';
import { useSecondsLeft } from './use-seconds-left';

/** A form field's error (a refused phone number…) is said when it appears. */
const ANNOUNCED = { role: 'alert' } as const;

/** The small gear: asks for a store key ("Staff only") before Settings open. */
function GearButton({ lock }: { lock: StaffLock }) {
  const t = useKioskStrings();
  return (
    <ActionIcon
      className={classes.gear}
      variant="subtle"
      color="gray"
      size={48}
      radius="xl"
      aria-label={t.settings}
      title={t.settings}
      onClick={() => lock.getState().show()}
    >
      <svg width="26" height="26" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
        <circle cx="12" cy="12" r="3" />
        <path d="M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1Z" />
      </svg>
    </ActionIcon>
  );
}

/** EN | ES for customers: the shell's switch, at a size fingers hit. */
function KioskLanguage() {
  const t = useKioskStrings();
  const language = useLanguage();
  return (
    <SegmentedControl
      aria-label={t.language}
      size="lg"
      radius="xl"
      value={language}
      onChange={(value) => isLanguage(value) && languageStore.getState().choose(value)}
      data={[
        { value: 'en', label: 'English' },
        { value: 'es', label: 'Español' },
      ]}
    />
  );
}

function Idle({ store }: { store: KioskStore }) {
  const t = useKioskStrings();
  return (
    <Stack align="center" gap={36} data-testid="kiosk-idle" maw={760} w="100%">
      <div className={classes.hint} aria-hidden="true">
        <div className={classes.bars} />
        <div className={classes.beam} />
      </div>
      <Stack align="center" gap="sm">
        <Title order={1} ta="center" fz={{ base: 40, sm: 56 }} lh={1.1} className={classes.wraps}>
          {t.scanTitle}
        </Title>
        <Text ta="center" fz={24} c="dimmed" className={classes.wraps}>
          {t.scanHint}
        </Text>
      </Stack>
      {/* The buttons' words wrap on a narrow screen (400% zoom: 320 px) instead of running off both sides. */}
      <Group justify="center" gap="lg" maw="100%">
        <Button size="xl" px={36} fz={24} variant="light" classNames={{ root: classes.idleButton, label: classes.idleLabel }} onClick={() => store.getState().startTyping()}>
          {t.typeInstead}
        </Button>
        <Button size="xl" px={36} fz={24} variant="outline" classNames={{ root: classes.idleButton, label: classes.idleLabel }} onClick={() => store.getState().startRegister()}>
          {t.join}
        </Button>
      </Group>
    </Stack>
  );
}

/** Big text field + on-screen keyboard; Enter submits, Escape cancels. */
function TypeIdentification({ store }: { store: KioskStore }) {
  const t = useKioskStrings();
  const cedula = usesCedula(useSession((s) => s.terminal?.country ?? null));
  const value = useStore(store, (s) => s.draft.identification);
  const formError = useStore(store, (s) => s.formError);
  const set = (identification: string) => store.getState().edit({ identification });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void store.getState().checkIn();
  };
  return (
    <Paper component="form" onSubmit={submit} className={classes.panel} radius="lg" shadow="md" w="100%" maw={900} data-testid="kiosk-type">
      <Stack className={classes.formStack}>
        <Title order={2} className={classes.formTitle}>
          {cedula ? t.typeTitleCedula : t.typeTitle}
        </Title>
        <TextInput
          label={cedula ? t.identificationLabelCedula : t.identificationLabel}
          size="xl"
          value={value}
          onChange={(e) => set(e.currentTarget.value)}
          autoFocus
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          inputMode="none"
          error={formError}
          errorProps={ANNOUNCED}
          classNames={{ input: classes.bigInput }}
          styles={{ label: { fontSize: 20 } }}
        />
        <OnScreenKeyboard layout="full" onKey={(c) => set(value + c)} onBackspace={() => set(value.slice(0, -1))} onClear={() => set('')} />
        <Group justify="space-between">
          <Button size="xl" className={classes.formButton} variant="default" onClick={() => store.getState().backToIdle()}>
            {t.cancel}
          </Button>
          <Button type="submit" size="xl" className={classes.formButton} px={48} disabled={!value.trim()}>
            {t.checkIn}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function Register({ store }: { store: KioskStore }) {
  const t = useKioskStrings();
  const language = useLanguage();
  const api = useTerminalApi();
  const draft = useStore(store, (s) => s.draft);
  const formError = useStore(store, (s) => s.formError);
  const [field, setField] = useState<'phone' | 'firstName'>('phone');
  const [countries, setCountries] = useState<CallingCountry[]>([]);
  const storeCountry = useSession((s) => s.terminal?.country ?? null);
  useEffect(() => {
    let live = true;
    loadCallingCountries(api.request).then(
      (list) => live && setCountries(list),
      () => undefined, // Without the list the store's own country is still offered.
    );
    return () => {
      live = false;
    };
  }, [api]);
  const options = useMemo(
    () => [{ value: '', label: storeCountryLabel(t.callingCodeStore, countries, storeCountry) }, ...countries.map((c) => ({ value: c.code, label: callingCountryLabel(c, language) }))],
    [countries, t.callingCodeStore, storeCountry, language],
  );
  const edit = store.getState().edit;
  const current = field === 'phone' ? draft.phone : draft.firstName;
  const setCurrent = (text: string) => edit(field === 'phone' ? { phone: text } : { firstName: text });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void store.getState().register();
  };
  const digits = draft.phone.replace(/\D/g, '');
  const tooShort = digits.length < 5;
  const whyDisabled = useId();
  return (
    <Paper component="form" onSubmit={submit} className={classes.panel} radius="lg" shadow="md" w="100%" maw={1000} data-testid="kiosk-register">
      <Stack className={classes.formStack}>
        <div>
          <Title order={2} className={classes.formTitle}>
            {t.registerTitle}
          </Title>
          <Text fz={18} c="dimmed">
            {t.registerHint}
          </Text>
          {draft.card && (
            <Badge size="xl" variant="light" mt="xs" data-testid="kiosk-joining-card">
              {t.joiningWithCard(draft.card)}
            </Badge>
          )}
        </div>
        <div className={classes.fields}>
          <Select
            label={t.callingCodeLabel}
            size="xl"
            data={options}
            value={draft.callingCountry}
            onChange={(code) => {
              const country = countries.find((c) => c.code === code);
              edit({ callingCountry: country?.code ?? '', callingCode: country?.phoneCode ?? '' });
            }}
            allowDeselect={false}
            searchable
            comboboxProps={{ size: 'lg' }}
            classNames={{ input: classes.selectInput }}
            styles={{ label: { fontSize: 18 } }}
          />
          <TextInput
            label={t.phoneLabel}
            size="xl"
            type="tel"
            value={draft.phone}
            onChange={(e) => edit({ phone: e.currentTarget.value })}
            onFocus={() => setField('phone')}
            autoFocus
            autoComplete="off"
            inputMode="none"
            error={formError}
            errorProps={ANNOUNCED}
            classNames={{ input: classes.fieldInput }}
            styles={{ label: { fontSize: 18 } }}
          />
          <TextInput
            label={t.firstNameLabel}
            size="xl"
            value={draft.firstName}
            onChange={(e) => edit({ firstName: e.currentTarget.value })}
            onFocus={() => setField('firstName')}
            autoComplete="off"
            inputMode="none"
            classNames={{ input: classes.fieldInput }}
            styles={{ label: { fontSize: 18 } }}
          />
        </div>
        <OnScreenKeyboard
          layout={field === 'phone' ? 'digits' : 'full'}
          capitalize={field === 'firstName' ? { text: current } : undefined}
          onKey={(c) => setCurrent(current + c)}
          onBackspace={() => setCurrent(current.slice(0, -1))}
          onClear={() => setCurrent('')}
        />
        <div className={classes.actions}>
          <Button size="xl" className={classes.formButton} variant="default" onClick={() => store.getState().backToIdle()}>
            {t.cancel}
          </Button>
          {/* A greyed Join alone does not say why: said beside it (in the row, so the form grows no taller; under the buttons on a narrow screen). */}
          {tooShort && (
            <Text id={whyDisabled} fz={18} className={classes.actionsNote} data-testid="kiosk-join-why">
              {t.joinNeedsPhone}
            </Text>
          )}
          <Button type="submit" size="xl" className={classes.formButton} px={48} disabled={tooShort} aria-describedby={tooShort ? whyDisabled : undefined}>
            {t.joinButton}
          </Button>
        </div>
      </Stack>
    </Paper>
  );
}

/**
 * "Back to the start in N s", ticking every second: kept outside the views' live regions (a screen
 * reader would read it every second); the welcome says it once in its own status.
 */
function Countdown({ deadline, total }: { deadline: number | null; total: number }) {
  const t = useKioskStrings();
  const seconds = useSecondsLeft(deadline);
  if (seconds === null) return null;
  return (
    <Stack gap={6} w="100%" data-testid="kiosk-countdown" aria-live="off">
      <Progress value={Math.min(100, (seconds * 1000 * 100) / total)} size="sm" transitionDuration={250} aria-hidden="true" />
      <Text size="lg" c="dimmed" ta="center">
        {t.backIn(seconds)}
      </Text>
    </Stack>
  );
}

function Welcome({ store, welcome }: { store: KioskStore; welcome: KioskWelcome }) {
  const t = useKioskStrings();
  const language = useLanguage();
  const country = useSession((s) => s.terminal?.country ?? null);
  const deadline = useStore(store, (s) => s.deadline);
  const [total] = useState(() => (deadline === null ? 1 : Math.max(1, deadline - Date.now())));
  return (
    <Paper className={classes.welcomePanel} radius="lg" shadow="md" w="100%" maw={900} data-testid="kiosk-welcome">
      <Stack align="center" className={classes.welcomeStack}>
        <Stack align="center" className={classes.welcomeStack} w="100%" role="status" aria-live="polite" data-testid="kiosk-welcome-status">
          <Title order={1} ta="center" className={classes.welcomeTitle} data-testid="kiosk-welcome-name">
            {welcome.firstName ? t.welcome(welcome.firstName) : t.welcomeNoName}
          </Title>
          {welcome.tier && (
            <Badge size="xl" variant="light" aria-label={t.tier(welcome.tier)} data-testid="kiosk-tier">
              {welcome.tier}
            </Badge>
          )}
          <Group justify="center" gap="lg">
            {welcome.points.map((p) => (
              <Paper key={p.currencyId} withBorder p="lg" radius="md" className={classes.balance} data-testid="kiosk-points">
                <Text fz={48} fw={800} ta="center" lh={1.1}>
                  {withMinusSign(p.amount, (n) => formatPoints(n, language, welcome.quickPay.currency, country))}
                </Text>
                <Text fz={22} c="dimmed" ta="center">
                  {t.pointsLabel(p.name)}
                </Text>
              </Paper>
            ))}
            <Paper withBorder p="lg" radius="md" className={classes.balance} data-testid="kiosk-quick-pay">
              <Text fz={48} fw={800} ta="center" lh={1.1}>
                {withMinusSign(welcome.quickPay.amount, (n) => formatMoney(n, welcome.quickPay.currency, language, country))}
              </Text>
              <Text fz={22} c="dimmed" ta="center">
                {t.quickPayLabel}
              </Text>
            </Paper>
          </Group>
          <Text fz={22} ta="center">
            {t.welcomeFooter}
          </Text>
          {/* The countdown once, when the welcome is read; the ticking one below is outside this status. */}
          {deadline !== null && <VisuallyHidden>{t.backIn(Math.round(total / 1000))}</VisuallyHidden>}
        </Stack>
        <Countdown deadline={deadline} total={total} />
        <Button size="xl" className={classes.formButton} px={64} autoFocus onClick={() => store.getState().backToIdle()}>
          {t.done}
        </Button>
      </Stack>
    </Paper>
  );
}

function Retry({ store, reason }: { store: KioskStore; reason: RetryReason }) {
  const t = useKioskStrings();
  const deadline = useStore(store, (s) => s.deadline);
  const [total] = useState(() => (deadline === null ? 1 : Math.max(1, deadline - Date.now())));
  const notFound = reason === 'not-found';
  const said = { 'not-found': [t.notFoundTitle, t.notFoundText], unreadable: [t.unreadableTitle, t.unreadableText], 'wrong-card': [t.wrongCardTitle, t.wrongCardText] }[reason];
  // Someone who was not found, or showed a card that is no identification here, may type instead.
  const typeInstead = reason !== 'unreadable';
  return (
    <Paper p={48} radius="lg" shadow="md" w="100%" maw={820} data-testid="kiosk-retry" data-kiosk-reason={reason}>
      <Stack align="center" gap="xl">
        {/* The alert is the message only: the countdown below ticks outside it. */}
        <Stack align="center" gap="xl" role="alert" data-testid="kiosk-retry-message">
          <Title order={1} fz={48} ta="center">
            {said[0]}
          </Title>
          <Text fz={26} ta="center">
            {said[1]}
          </Text>
        </Stack>
        <Group justify="center" gap="lg">
          <Button size="xl" h={72} px={40} autoFocus onClick={() => (typeInstead ? store.getState().startTyping() : store.getState().backToIdle())}>
            {t.tryAgain}
          </Button>
          {notFound && (
            <Button size="xl" h={72} px={40} variant="outline" onClick={() => store.getState().startRegister()}>
              {t.join}
            </Button>
          )}
        </Group>
        <Countdown deadline={deadline} total={total} />
      </Stack>
    </Paper>
  );
}

function Unlinked({ store, card }: { store: KioskStore; card: string }) {
  const t = useKioskStrings();
  const deadline = useStore(store, (s) => s.deadline);
  const [total] = useState(() => (deadline === null ? 1 : Math.max(1, deadline - Date.now())));
  return (
    <Paper p={48} radius="lg" shadow="md" w="100%" maw={820} data-testid="kiosk-unlinked">
      <Stack align="center" gap="xl">
        <Stack align="center" gap="xl" role="status">
          <Title order={1} fz={48} ta="center">
            {t.unlinkedTitle}
          </Title>
          <Text fz={26} ta="center">
            {t.unlinkedText}
          </Text>
        </Stack>
        <Group justify="center" gap="lg">
          <Button size="xl" h={72} px={40} autoFocus onClick={() => store.getState().startRegister(card)}>
            {t.joinWithCard}
          </Button>
          <Button size="xl" h={72} px={40} variant="default" onClick={() => store.getState().backToIdle()}>
            {t.cancel}
          </Button>
        </Group>
        <Countdown deadline={deadline} total={total} />
      </Stack>
    </Paper>
  );
}

function Failure({ store, message }: { store: KioskStore; message: string }) {
  const t = useKioskStrings();
  return (
    <Paper p={48} radius="lg" shadow="md" w="100%" maw={820} data-testid="kiosk-error">
      <Stack align="center" gap="xl">
        <Alert color="red" variant="light" title={t.errorTitle} role="alert" w="100%" styles={{ title: { fontSize: 28 }, message: { fontSize: 24 } }}>
          {message}
        </Alert>
        <Button size="xl" h={72} px={64} autoFocus onClick={() => store.getState().backToIdle()}>
          {t.ok}
        </Button>
      </Stack>
    </Paper>
  );
}

function Working() {
  const t = useKioskStrings();
  return (
    <Stack align="center" gap="lg" data-testid="kiosk-working" role="status">
      <Loader size={72} />
      <Text fz={32}>{t.working}</Text>
    </Stack>
  );
}

export function KioskScreen() {
  const t = useKioskStrings();
  const api = useTerminalApi();
  const terminal = useSession((s) => s.terminal);
  const quickPayCurrency = terminal?.quick_pay_currency ?? null;
  const store = useMemo(() => createKioskStore(api, { quickPayCurrency }), [api, quickPayCurrency]);
  const view = useStore(store, (s) => s.view);
  const lock = useStaffLock();
  // In the desktop app nobody knows the kiosk window's key: no gear there (staff use the cashier window).
  const [settingsAccess] = useState(() => kioskSettingsAccess(window));

  useEffect(() => () => store.getState().dispose(), [store]);
  // Wedge scans on this screen run the kiosk's own flow (working → welcome or retry), not a toast.
  // While the "Staff only" dialog is open, staff are at the kiosk: a scan is not checked in behind
  // the dialog (its welcome took the focus from it); the dialog says it was ignored.
  useEffect(
    () => wedgeStore.getState().claim((line) => (lock.getState().ignoresScan() ? Promise.reject(new Error(useKioskStrings.now().staffScanIgnored)) : store.getState().scanLine(line))),
    [store, lock],
  );
  // Scans of the node's kiosk-station (or unassigned) scanners are greeted; see kiosk-events.ts.
  // The node checked them in already: behind the staff dialog the kiosk just does not greet them.
  useEffect(
    () =>
      eventStream().subscribe((event) => {
        if (lock.getState().open) return;
        if (kioskGreets(event)) void store.getState().sessionOpened(event.pos_session_id);
        if (kioskRetries(event)) store.getState().scanRejected(event.reason ?? '');
      }),
    [store, lock],
  );

  const onKeyDown = (event: KeyboardEvent) => {
    // Keys in the staff dialog (a portal: React still bubbles them here) are not the customer's.
    if (lock.getState().open) return;
    if (event.key === 'Escape' && view.name !== 'idle') store.getState().backToIdle();
    else store.getState().touch();
  };

  return (
    <Box
      component="section"
      role="region"
      aria-label={t.region}
      data-testid="kiosk"
      className={classes.screen}
      onKeyDown={onKeyDown}
      onPointerDown={() => store.getState().touch()}
    >
      <Group justify="space-between" px="lg" className={classes.top} wrap="wrap" gap="sm">
        <Text fz={20} fw={600} c="dimmed" className={classes.wraps}>
          {terminal?.store.name}
        </Text>
        <Group gap="md" wrap="nowrap">
          <KioskLanguage />
          {settingsAccess === 'staff-key' && <GearButton lock={lock} />}
        </Group>
      </Group>
      <div className={classes.center}>
        {view.name === 'idle' && <Idle store={store} />}
        {view.name === 'type' && <TypeIdentification store={store} />}
        {view.name === 'register' && <Register store={store} />}
        {view.name === 'working' && <Working />}
        {view.name === 'welcome' && <Welcome key={view.welcome.sessionId} store={store} welcome={view.welcome} />}
        {view.name === 'retry' && <Retry store={store} reason={view.reason} />}
        {view.name === 'unlinked' && <Unlinked store={store} card={view.card} />}
        {view.name === 'error' && <Failure store={store} message={view.message} />}
      </div>
      {settingsAccess === 'staff-key' && <StaffLockDialog lock={lock} />}
    </Box>
  );
}
