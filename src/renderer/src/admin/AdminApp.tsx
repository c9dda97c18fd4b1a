import { Alert, AppShell, Badge, Box, Burger, Button, Drawer, Group, NavLink, Stack, Tabs, Text, Title, VisuallyHidden } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { type ReactNode, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { LanguageSwitch } from '../app/LanguageSwitch';
import { roleAllows } from '../../../shared/staff-roles';
import { adminStore, useAdmin } from './admin-store';
import { AuditScreen } from './AuditScreen';
import { CustomerDetail, CustomerSearch } from './CustomersScreen';
import { DashboardScreen } from './DashboardScreen';
import { ImportScreen } from './ImportScreen';
import { useImportStrings } from './import-strings';
import { NoPasswordNotice } from './NoPasswordNotice';
import { PaymentExceptionsScreen, PaymentExceptionsTab } from './PaymentExceptionsScreen';
import { usePaymentExceptionStrings } from './payment-exceptions-strings';
import { ProgramScreen } from './ProgramScreen';
import { SignInScreen } from './SignInScreen';
import { StaffScreen } from './StaffScreen';
import { StoreDetail, StoreList } from './StoresScreen';
import { useAdminStrings } from './strings';
import { waitingCounts } from './waiting-counts';
import { WebhookDeliveries } from './WebhookDeliveries';
import { useWebhookStrings } from './webhooks-strings';
import { WebhooksScreen } from './WebhooksScreen';
import { go, useHashRoute } from './use-hash-route';
import classes from './admin-layout.module.css';

const SECTIONS = ['dashboard', 'program', 'stores', 'customers', 'import', 'payment-exceptions', 'webhooks', 'staff', 'audit'];
/** What a role must be allowed for a section's tab to show (the others show to every role). */
const NEEDS = { import: 'customers.import', 'payment-exceptions': 'payments.manage', webhooks: 'webhooks.manage', staff: 'staff.manage', audit: 'audit.read' } as const;
/** Addresses kept for a screen that moved: `#/payments` was the payment exceptions' first. */
const ALIASES: Readonly<Record<string, string>> = { payments: 'payment-exceptions' };
/** Narrower than Mantine's xs (36em), where `hiddenFrom="xs"` shows the menu button and its drawer. */
const PHONE_WIDTH = '(max-width: 35.99em)';

/** The merchant's back office at /admin: sign-in, dashboard, program, stores and keys, customers, webhooks, staff, audit log. */
export function AdminApp() {
  const t = useAdminStrings();
  const w = useWebhookStrings();
  const p = usePaymentExceptionStrings();
  const m = useImportStrings();
  const route = useHashRoute();
  const staff = useAdmin((s) => s.staff);
  useEffect(() => {
    void adminStore.getState().resume();
  }, []);
  // The back office's mark on <body>, for its dialogs too (portalled out of the shell): on a touch
  // screen its buttons and fields are 44 px high (admin-layout.module.css).
  useEffect(() => {
    document.body.classList.add(classes.admin!);
    return () => document.body.classList.remove(classes.admin!);
  }, []);
  const signedInAs = staff?.id ?? null;
  // Each screen asks who the staff member is now (sessions carry no role): a role or store another
  // owner changed takes effect at the node's next call, and the tabs and header follow it here.
  const where = route.parts.join('/');
  useEffect(() => {
    if (signedInAs !== null) void adminStore.getState().refresh();
  }, [where, signedInAs]);
  const [typed = 'dashboard', id] = route.parts;
  const asked = ALIASES[typed] ?? typed;
  // Anything else (a sign-in link's route, an old address) opens the dashboard.
  const section = SECTIONS.includes(asked) ? asked : 'dashboard';
  const signedIn = staff !== null;
  const roleName = staff ? { owner: t.role_owner, manager: t.role_manager, store_manager: t.role_store_manager }[staff.role] : '';
  const names: Record<string, string> = { dashboard: t.dashboard, program: t.program, stores: t.stores, customers: t.customers, import: m.tab, 'payment-exceptions': p.tab, webhooks: w.tab, staff: t.staff, audit: t.audit };
  const sectionName = names[section];
  // On a phone held upright (under Mantine's xs, 36em) the nine tabs wrapped into four rows and the
  // header into three: 40% of the screen before any figure. There the sections, who is signed in and
  // the sign-out buttons are behind one button (a drawer); wider (200% zoom's 640 px included) the
  // tabs and header stay as they were.
  const [menuOpen, setMenuOpen] = useState(false);
  // The phone turned sideways (wider than xs) hides the drawer but left it open, its scroll lock
  // holding the page still: the menu closes when the screen is no longer a phone's.
  const phone = useMediaQuery(PHONE_WIDTH);
  useEffect(() => {
    if (!phone) setMenuOpen(false);
  }, [phone]);
  const waiting = useStore(waitingCounts);
  const sectionAllowed = (s: string) => staff !== null && (!(s in NEEDS) || roleAllows(staff.role, NEEDS[s as keyof typeof NEEDS]));
  const allowedSections = SECTIONS.filter(sectionAllowed);
  const waitingWords = [waiting.count ? p.openCount(waiting.count) : null, waiting.paybacks ? p.paybackCount(waiting.paybacks) : null].filter(Boolean).join(' · ');
  // The header is in the page's flow and wraps: fixed at 60 px it cut "Sign out" at 200% zoom and
  // covered a quarter of the window at 400%.
  return (
    <AppShell padding="md">
      <Box component="header" px="md" py="xs" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
        <Group justify="space-between" gap="xs">
          <Text fw={700} size="xl">
            {t.title}
          </Text>
          <Group gap="sm">
            {staff && (
              <Text size="sm" visibleFrom="xs">
                {t.signedInAs(staff.name, roleName)}
              </Text>
            )}
            <LanguageSwitch />
            {signedIn && (
              <>
                <Button variant="light" visibleFrom="xs" onClick={() => void adminStore.getState().signOut()}>
                  {t.signOut}
                </Button>
                <Button variant="subtle" visibleFrom="xs" onClick={() => void adminStore.getState().signOut(true)}>
                  {t.signOutEverywhere}
                </Button>
                <Burger opened={menuOpen} onClick={() => setMenuOpen((open) => !open)} aria-label={t.openMenu} aria-expanded={menuOpen} size="md" hiddenFrom="xs" className={classes.burger} />
              </>
            )}
          </Group>
        </Group>
        {signedIn && (
          <Text hiddenFrom="xs" fw={600} aria-hidden="true" data-testid="phone-section">
            {sectionName}
          </Text>
        )}
      </Box>
      {signedIn && (
        <Drawer opened={menuOpen} onClose={() => setMenuOpen(false)} position="right" size="85%" title={t.title} hiddenFrom="xs">
          <Stack gap="md">
            <Text size="sm">{t.signedInAs(staff.name, roleName)}</Text>
            <Box component="nav" aria-label={t.navigation}>
              {allowedSections.map((value) => (
                <NavLink
                  key={value}
                  href={`#/${value}`}
                  label={names[value]}
                  active={value === section}
                  aria-current={value === section ? 'page' : undefined}
                  rightSection={value === 'payment-exceptions' && waitingWords ? <Badge color="red" variant="light">{waitingWords}</Badge> : null}
                  className={classes.navLink}
                  onClick={() => setMenuOpen(false)}
                />
              ))}
            </Box>
            <Button variant="light" size="md" onClick={() => void adminStore.getState().signOut()}>
              {t.signOut}
            </Button>
            <Button variant="subtle" size="md" onClick={() => void adminStore.getState().signOut(true)}>
              {t.signOutEverywhere}
            </Button>
          </Stack>
        </Drawer>
      )}
      <AppShell.Main>
        {!signedIn ? (
          <SignInScreen route={route} />
        ) : (
          <Tabs value={section} onChange={(value) => value && go(`#/${value}`)}>
            {/* The screen's name, for screen readers: the selected tab shows it on screen. */}
            <VisuallyHidden>
              <Title order={1}>{sectionName}</Title>
            </VisuallyHidden>
            <Tabs.List aria-label={t.navigation} mb="md" visibleFrom="xs">
              {allowedSections.map((value) =>
                value === 'payment-exceptions' ? (
                  <PaymentExceptionsTab key={value} value={value} />
                ) : (
                  <Tabs.Tab key={value} value={value}>
                    {names[value]}
                  </Tabs.Tab>
                ),
              )}
            </Tabs.List>
            <NoPasswordNotice />
            <Tabs.Panel value="dashboard">{section === 'dashboard' && <DashboardScreen />}</Tabs.Panel>
            <Tabs.Panel value="program">{section === 'program' && <ProgramScreen />}</Tabs.Panel>
            <Tabs.Panel value="stores">{id ? <StoreDetail storeId={Number(id)} /> : <StoreList />}</Tabs.Panel>
            <Tabs.Panel value="customers">{section === 'customers' && (id ? <CustomerDetail customerId={Number(id)} /> : <CustomerSearch />)}</Tabs.Panel>
            {/* A section typed by someone whose role may not (a store manager): one clear answer, not the screen with a refusal. */}
            <Tabs.Panel value="import">
              {section === 'import' && <OnlyIf allowed={sectionAllowed('import')} otherwise={m.notAllowed}><ImportScreen /></OnlyIf>}
            </Tabs.Panel>
            <Tabs.Panel value="payment-exceptions">
              {section === 'payment-exceptions' && <OnlyIf allowed={sectionAllowed('payment-exceptions')} otherwise={p.notAllowed}><PaymentExceptionsScreen /></OnlyIf>}
            </Tabs.Panel>
            <Tabs.Panel value="webhooks">
              {section === 'webhooks' && <OnlyIf allowed={sectionAllowed('webhooks')} otherwise={t.notAllowedWebhooks}>{id ? <WebhookDeliveries endpointId={id} /> : <WebhooksScreen />}</OnlyIf>}
            </Tabs.Panel>
            <Tabs.Panel value="staff">
              {section === 'staff' && <OnlyIf allowed={sectionAllowed('staff')} otherwise={t.notAllowedStaff}><StaffScreen /></OnlyIf>}
            </Tabs.Panel>
            <Tabs.Panel value="audit">
              {section === 'audit' && <OnlyIf allowed={sectionAllowed('audit')} otherwise={t.notAllowedAudit}><AuditScreen /></OnlyIf>}
            </Tabs.Panel>
          </Tabs>
        )}
      </AppShell.Main>
    </AppShell>
  );
}

/** A section's screen for a role that may use it; for one that may not, what it is for and whom to ask. */
function OnlyIf({ allowed, otherwise, children }: { allowed: boolean; otherwise: string; children: ReactNode }) {
  if (allowed) return children;
  return (
    <Alert color="yellow" role="alert" data-testid="section-not-allowed">
      {otherwise}
    </Alert>
  );
}
