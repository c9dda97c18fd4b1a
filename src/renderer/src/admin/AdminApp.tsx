import { Alert, AppShell, Box, Button, Group, Tabs, Text, Title, VisuallyHidden } from '@mantine/core';
import { type ReactNode, useEffect } from 'react';
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
import { WebhookDeliveries } from './WebhookDeliveries';
import { useWebhookStrings } from './webhooks-strings';
import { WebhooksScreen } from './WebhooksScreen';
import { go, useHashRoute } from './use-hash-route';

const SECTIONS = ['dashboard', 'program', 'stores', 'customers', 'import', 'payment-exceptions', 'webhooks', 'staff', 'audit'];
/** Addresses kept for a screen that moved: `#/payments` was the payment exceptions' first. */
const ALIASES: Readonly<Record<string, string>> = { payments: 'payment-exceptions' };

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
  const sectionName = { dashboard: t.dashboard, program: t.program, stores: t.stores, customers: t.customers, import: m.tab, 'payment-exceptions': p.tab, webhooks: w.tab, staff: t.staff, audit: t.audit }[section];
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
            {staff && <Text size="sm">{t.signedInAs(staff.name, roleName)}</Text>}
            <LanguageSwitch />
            {signedIn && (
              <>
                <Button variant="light" onClick={() => void adminStore.getState().signOut()}>
                  {t.signOut}
                </Button>
                <Button variant="subtle" onClick={() => void adminStore.getState().signOut(true)}>
                  {t.signOutEverywhere}
                </Button>
              </>
            )}
          </Group>
        </Group>
      </Box>
      <AppShell.Main>
        {!signedIn ? (
          <SignInScreen route={route} />
        ) : (
          <Tabs value={section} onChange={(value) => value && go(`#/${value}`)}>
            {/* The screen's name, for screen readers: the selected tab shows it on screen. */}
            <VisuallyHidden>
              <Title order={1}>{sectionName}</Title>
            </VisuallyHidden>
            <Tabs.List aria-label={t.navigation} mb="md">
              <Tabs.Tab value="dashboard">{t.dashboard}</Tabs.Tab>
              <Tabs.Tab value="program">{t.program}</Tabs.Tab>
              <Tabs.Tab value="stores">{t.stores}</Tabs.Tab>
              <Tabs.Tab value="customers">{t.customers}</Tabs.Tab>
              {roleAllows(staff.role, 'customers.import') && <Tabs.Tab value="import">{m.tab}</Tabs.Tab>}
              {roleAllows(staff.role, 'payments.manage') && <PaymentExceptionsTab value="payment-exceptions" />}
              {roleAllows(staff.role, 'webhooks.manage') && <Tabs.Tab value="webhooks">{w.tab}</Tabs.Tab>}
              {roleAllows(staff.role, 'staff.manage') && <Tabs.Tab value="staff">{t.staff}</Tabs.Tab>}
              {roleAllows(staff.role, 'audit.read') && <Tabs.Tab value="audit">{t.audit}</Tabs.Tab>}
            </Tabs.List>
            <NoPasswordNotice />
            <Tabs.Panel value="dashboard">{section === 'dashboard' && <DashboardScreen />}</Tabs.Panel>
            <Tabs.Panel value="program">{section === 'program' && <ProgramScreen />}</Tabs.Panel>
            <Tabs.Panel value="stores">{id ? <StoreDetail storeId={Number(id)} /> : <StoreList />}</Tabs.Panel>
            <Tabs.Panel value="customers">{section === 'customers' && (id ? <CustomerDetail customerId={Number(id)} /> : <CustomerSearch />)}</Tabs.Panel>
            {/* A section typed by someone whose role may not (a store manager): one clear answer, not the screen with a refusal. */}
            <Tabs.Panel value="import">
              {section === 'import' && <OnlyIf allowed={roleAllows(staff.role, 'customers.import')} otherwise={m.notAllowed}><ImportScreen /></OnlyIf>}
            </Tabs.Panel>
            <Tabs.Panel value="payment-exceptions">
              {section === 'payment-exceptions' && <OnlyIf allowed={roleAllows(staff.role, 'payments.manage')} otherwise={p.notAllowed}><PaymentExceptionsScreen /></OnlyIf>}
            </Tabs.Panel>
            <Tabs.Panel value="webhooks">
              {section === 'webhooks' && <OnlyIf allowed={roleAllows(staff.role, 'webhooks.manage')} otherwise={t.notAllowedWebhooks}>{id ? <WebhookDeliveries endpointId={id} /> : <WebhooksScreen />}</OnlyIf>}
            </Tabs.Panel>
            <Tabs.Panel value="staff">
              {section === 'staff' && <OnlyIf allowed={roleAllows(staff.role, 'staff.manage')} otherwise={t.notAllowedStaff}><StaffScreen /></OnlyIf>}
            </Tabs.Panel>
            <Tabs.Panel value="audit">
              {section === 'audit' && <OnlyIf allowed={roleAllows(staff.role, 'audit.read')} otherwise={t.notAllowedAudit}><AuditScreen /></OnlyIf>}
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
