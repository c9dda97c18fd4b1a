import type { Static } from 'typebox';
import type { AdminStoreSchema, ApiKeySchema, AuditEntrySchema, CustomerHitSchema, CustomerProfileSchema, StaffSchema, StaffSessionSchema } from '../../../shared/schemas/backoffice';
import type { BlockStateSchema, ChainExceptionSchema, ChainHealthSchema, CustomerEmailSchema, DashboardSchema, ProgramOverviewSchema, RemovedMemberSchema, RemoveMemberBody, SyncExceptionSchema } from '../../../shared/schemas/backoffice-screens';
import type { PeriodStatementSchema } from '../../../shared/schemas/backoffice-period';
import type { StaffPaymentExceptionSchema, UnfinishedPaybackSchema } from '../../../shared/schemas/backoffice-payment-exceptions';
import type { BackOfficeDeliveriesSchema, BackOfficeWebhooksSchema, WebhookEndpointSchema, WebhookEndpointWithSecretSchema } from '../../../shared/schemas/webhooks';
import type { PayBackOptionsSchema, PayBackSchema } from '../../../shared/schemas/pay-back';
import type { ImportJobListSchema, ImportJobSchema } from '../../../shared/schemas/backoffice-import';
import { createRequester, NodeApiError, type NodeFile, type RequestOptions } from '../api/client';
import { BACKGROUND_REQUEST_HEADER, BACKGROUND_REQUEST_VALUE } from '../../../shared/background-request';

export type Staff = Static<typeof StaffSchema>;
export type StaffSession = Static<typeof StaffSessionSchema>;
export type AdminStore = Static<typeof AdminStoreSchema>;
export type ApiKey = Static<typeof ApiKeySchema>;
export type AuditEntry = Static<typeof AuditEntrySchema>;
export type CustomerHit = Static<typeof CustomerHitSchema>;
export type CustomerProfile = Static<typeof CustomerProfileSchema>;
export type ProgramOverview = Static<typeof ProgramOverviewSchema>;
export type Dashboard = Static<typeof DashboardSchema>;
export type PeriodStatement = Static<typeof PeriodStatementSchema>;
export type ChainHealth = Static<typeof ChainHealthSchema>;
export type SyncException = Static<typeof SyncExceptionSchema>;
export type ChainException = Static<typeof ChainExceptionSchema>;
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;
export type WebhookDeliveries = Static<typeof BackOfficeDeliveriesSchema>;
export type StaffPaymentException = Static<typeof StaffPaymentExceptionSchema>;
export type UnfinishedPayback = Static<typeof UnfinishedPaybackSchema>;
export type ImportJob = Static<typeof ImportJobSchema>;
/** A page of a back-office list, as the node pages them (offset, limit, the filter's total). */
export interface ListPage<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}
type Body = Record<string, unknown>;
const BACKGROUND_HEADERS = { [BACKGROUND_REQUEST_HEADER]: BACKGROUND_REQUEST_VALUE };

/** An endpoint as the Webhooks screen sends it; the node reads an empty description or alert email as none. */
export interface WebhookDetails {
  url: string;
  events: string[];
  description: string;
  /** Told when the node disables the endpoint (410 Gone, or failing for 3 days). */
  alert_email: string;
}

/** A store's details as the Stores screen sends them (address2 and coordinates are left as they are). */
export interface StoreDetails {
  name: string;
  address: string;
  city: string;
  region: string | null;
  postal_code: string | null;
  country: string;
  phone: string | null;
  time_zone: string;
  status: 'active' | 'inactive';
  /** null: no hours known (the list says "No hours"); a day left out is closed. */
  hours: Record<string, string> | null;
}

/** The back office's calls (/backoffice/*), with the staff session token when there is one. */
/** `onSessionEnded`: a call made with the token was refused 401 (the session ended: idle, signed out elsewhere, disabled). */
export function createAdminApi(baseUrl: string, token: string | null, onSessionEnded?: (message: string) => void) {
  const request = createRequester({ baseUrl, credential: token });
  const call = <T>(path: string, options: RequestOptions = {}) =>
    (request(path, { ...options, auth: token !== null }) as Promise<T>).catch((error: unknown) => {
      if (token !== null && error instanceof NodeApiError && error.status === 401) onSessionEnded?.(error.message);
      throw error;
    });
  return {
    signIn: (email: string, password: string) => call<StaffSession>('/backoffice/sign-in', { method: 'POST', body: { email, password } }),
    signInWithLink: (linkToken: string) => call<StaffSession>('/backoffice/sign-in/link', { method: 'POST', body: { token: linkToken } }),
    acceptInvitation: (inviteToken: string, password: string) => call<StaffSession>('/backoffice/invitations/accept', { method: 'POST', body: { token: inviteToken, password } }),
    /** Answers the same whether or not the email has an account (202). */
    requestPasswordReset: (email: string) => call<object>('/backoffice/password-reset', { method: 'POST', body: { email } }),
    resetPassword: (resetToken: string, password: string) => call<object>('/backoffice/password-reset/confirm', { method: 'POST', body: { token: resetToken, password } }),
    me: () => call<Staff>('/backoffice/me'),
    /** The first password of someone signed in by a one-time link (409 `password_already_set` after). */
    setFirstPassword: (password: string) => call<object>('/backoffice/me/password', { method: 'POST', body: { password } }),
    /** Public: the node's role, and on a paired store its sync (null elsewhere). */
    health: () => call<{ role: 'store' | 'central'; checks: { sync: object | null } }>('/health'),
    /** Public, as /health, on store nodes only: a paired store names its central (whose back office holds the chain's staff). */
    syncStatus: () => call<{ paired: boolean; central: string | null }>('/sync/status'),
    signOut: () => call<object>('/backoffice/sign-out', { method: 'POST' }),
    signOutEverywhere: () => call<{ sessions_ended: number }>('/backoffice/sign-out-everywhere', { method: 'POST' }),
    stores: () => call<{ items: AdminStore[] }>('/backoffice/stores'),
    store: (id: number) => call<AdminStore>(`/backoffice/stores/${id}`),
    /** The node checks every field; a paired store refuses (409 `stores_managed_by_central`). */
    createStore: (body: StoreDetails) => call<AdminStore>('/backoffice/stores', { method: 'POST', body }),
    updateStore: (id: number, body: StoreDetails) => call<AdminStore>(`/backoffice/stores/${id}`, { method: 'PUT', body }),
    keys: (storeId: number) => call<{ items: ApiKey[] }>(`/backoffice/stores/${storeId}/keys`),
    issueKey: (storeId: number, role: string, label: string) => call<{ api_key: string; key: ApiKey; screens_url: string }>(`/backoffice/stores/${storeId}/keys`, { method: 'POST', body: { role, label } }),
    revokeKey: (keyId: number) => call<ApiKey>(`/backoffice/keys/${keyId}`, { method: 'DELETE' }),
    staff: () => call<{ items: Staff[] }>('/backoffice/staff'),
    invite: (body: { email: string; name: string; role: string; store_id: number | null }) => call<Staff>('/backoffice/staff', { method: 'POST', body }),
    /** Disabling ends the member's sessions; enabling one who never chose a password answers `invited`. */
    setStaffStatus: (id: number, status: 'active' | 'disabled') => call<Staff>(`/backoffice/staff/${id}`, { method: 'PUT', body: { status } }),
    renameStaff: (id: number, name: string) => call<Staff>(`/backoffice/staff/${id}`, { method: 'PUT', body: { name } }),
    /** A store manager's store comes with the role (null for the others); the last active owner keeps the role (409 `last_owner`). */
    setStaffRole: (id: number, role: string, storeId: number | null) => call<Staff>(`/backoffice/staff/${id}`, { method: 'PUT', body: { role, store_id: storeId } }),
    customers: (q: string, limit: number) => call<{ items: CustomerHit[] }>('/backoffice/customers', { query: { q, limit } }),
    customer: (id: number) => call<CustomerProfile>(`/backoffice/customers/${id}`),
    /** Everything the program holds about the member, as a JSON file to hand them (owners and managers; audited). */
    customerPersonalData: (id: number) => call<NodeFile>(`/backoffice/customers/${id}/personal-data`, { file: true }),
    membersFile: () => call<NodeFile>('/backoffice/customers/export.csv', { file: true }),
    adjust: (id: number, body: { currency: string; amount: number; reason: string }) => call<{ ledger_entry: number; balance: number }>(`/backoffice/customers/${id}/adjustments`, { method: 'POST', body }),
    payBackOptions: (id: number) => call<Static<typeof PayBackOptionsSchema>>(`/backoffice/customers/${id}/pay-back`),
    /** The same idempotency_key answers the same pay-back: a retry after a lost answer never pays twice. */
    payBack: (id: number, body: { amount: number; method: 'cash' | 'card'; idempotency_key: string }) => call<Static<typeof PayBackSchema>>(`/backoffice/customers/${id}/pay-backs`, { method: 'POST', body }),
    block: (id: number, reason: string) => call<Static<typeof BlockStateSchema>>(`/backoffice/customers/${id}/block`, { method: 'POST', body: { reason } }),
    unblock: (id: number) => call<Static<typeof BlockStateSchema>>(`/backoffice/customers/${id}/unblock`, { method: 'POST' }),
    removeCustomer: (id: number, body: Static<typeof RemoveMemberBody>) => call<Static<typeof RemovedMemberSchema>>(`/backoffice/customers/${id}/remove`, { method: 'POST', body }),
    /** Only for a customer who has no email yet (a guest the counter registered by phone): their way to claim an app account. */
    addCustomerEmail: (id: number, email: string) => call<Static<typeof CustomerEmailSchema>>(`/backoffice/customers/${id}/email`, { method: 'PUT', body: { email } }),
    program: () => call<ProgramOverview>('/backoffice/program'),
    /** A program change: `kind` is currencies, earning-rules, rewards or tiers; no id adds one. */
    saveProgramItem: (kind: string, id: string | null, body: Body) => call<object>(`/backoffice/program/${kind}${id ? `/${id}` : ''}`, { method: id ? 'PUT' : 'POST', body }),
    saveSettings: (body: Body) => call<object>('/backoffice/program/settings', { method: 'PUT', body }),
    saveCountry: (country: string) => call<{ country: string }>('/backoffice/program/country', { method: 'PUT', body: { country } }),
    saveLanguage: (language: string) => call<{ language: string }>('/backoffice/program/language', { method: 'PUT', body: { language } }),
    saveOfflineCaps: (body: Body) => call<object>('/backoffice/program/offline-caps', { method: 'PUT', body }),
    saveContent: (slug: string, body: Body) => call<object>(`/backoffice/program/content/${slug}`, { method: 'PUT', body }),
    dashboard: (store: number | null) => call<Dashboard>('/backoffice/dashboard', store === null ? {} : { query: { store } }),
    /** The statement of the days from–to (ISO dates), the whole program or one store. */
    periodStatement: (from: string, to: string, store: number | null) => call<PeriodStatement>('/backoffice/dashboard/period', { query: { from, to, store: store ?? undefined } }),
    /** The same as a CSV file for the accountant. */
    periodStatementFile: (from: string, to: string, store: number | null) => call<NodeFile>('/backoffice/dashboard/period.csv', { query: { from, to, store: store ?? undefined }, file: true }),
    /** Owners: a members file (its bytes in base64) starts its preview, a dry run the screen follows (202); the points' currency where the program has several. */
    startImport: (fileName: string, contentBase64: string, pointsCurrency: string | null) =>
      call<ImportJob>('/backoffice/imports/customers', { method: 'POST', body: { file_name: fileName, content_base64: contentBase64, ...(pointsCurrency ? { points_currency: pointsCurrency } : {}) } }),
    /** Imports a finished preview's file, once. */
    confirmImport: (id: string) => call<ImportJob>(`/backoffice/imports/customers/${id}/confirm`, { method: 'POST' }),
    /** Read on a timer while it runs: a background refresh. */
    importJob: (id: string) => call<ImportJob>(`/backoffice/imports/customers/${id}`, { headers: BACKGROUND_HEADERS }),
    importJobs: () => call<Static<typeof ImportJobListSchema>>('/backoffice/imports/customers'),
    /** The refused rows to fix and upload again, the reasons in the screen's language. */
    importProblemsFile: (id: string, language: 'en' | 'es') => call<NodeFile>(`/backoffice/imports/customers/${id}/problems.csv`, { query: { language }, file: true }),
    chain: (store: number | null) => call<ChainHealth>('/backoffice/chain', store === null ? {} : { query: { store } }),
    resolveException: (id: number, note: string) => call<SyncException>(`/backoffice/chain/exceptions/${id}/resolve`, { method: 'POST', body: { note } }),
    /** A till replaced or gone: central refuses its syncs from then on (it sells nothing until paired again). */
    unpairNode: (id: number) => call<{ id: number; revoked_at: string }>(`/backoffice/chain/nodes/${id}`, { method: 'DELETE' }),
    webhooks: () => call<Static<typeof BackOfficeWebhooksSchema>>('/backoffice/webhooks'),
    /** An empty description or alert email is none. */
    addWebhook: (body: WebhookDetails) => call<Static<typeof WebhookEndpointWithSecretSchema>>('/backoffice/webhooks', { method: 'POST', body }),
    setWebhookStatus: (id: string, status: 'enabled' | 'paused') => call<WebhookEndpoint>(`/backoffice/webhooks/${id}`, { method: 'PUT', body: { status } }),
    /** The node's checks as on creation: an address it does not send to, an unknown kind. */
    editWebhook: (id: string, body: WebhookDetails) => call<WebhookEndpoint>(`/backoffice/webhooks/${id}`, { method: 'PUT', body }),
    /** What the endpoint had not received is cancelled. */
    deleteWebhook: (id: string) => call<object>(`/backoffice/webhooks/${id}`, { method: 'DELETE' }),
    rotateWebhookSecret: (id: string) => call<Static<typeof WebhookEndpointWithSecretSchema>>(`/backoffice/webhooks/${id}/rotate-secret`, { method: 'POST' }),
    /** `endpoint_status` paused or disabled: the event waits until the endpoint is enabled. */
    sendWebhookTest: (id: string) => call<{ event_id: string; endpoint_status: WebhookEndpoint['status'] }>(`/backoffice/webhooks/${id}/test`, { method: 'POST' }),
    /** `background`: the screen refreshing by itself, which the node does not count as the staff member's activity. */
    webhookDeliveries: (id: string, page: number, options: { background?: boolean } = {}) =>
      call<WebhookDeliveries>(`/backoffice/webhooks/${id}/deliveries`, { query: { page, limit: 20 }, ...(options.background ? { headers: BACKGROUND_HEADERS } : {}) }),
    replayWebhookEvent: (id: string, eventId: string) => call<{ queued: number; endpoint_status: WebhookEndpoint['status'] }>(`/backoffice/webhooks/${id}/replay`, { method: 'POST', body: { event_id: eventId } }),
    /** `status`: open (with refunds whose answer was lost), refunding, refunded, credited, settled or all. */
    paymentExceptions: (status: string, offset = 0, limit = 25) => call<ListPage<StaffPaymentException>>('/backoffice/payment-exceptions', { query: { status, offset, limit } }),
    /** Card pay-backs across customers whose refund outcome is unknown (oldest first). */
    unfinishedPaybacks: (offset = 0, limit = 25) => call<ListPage<UnfinishedPayback>>('/backoffice/unfinished-paybacks', { query: { offset, limit } }),
    finishPayback: (id: number) => call<UnfinishedPayback>(`/backoffice/unfinished-paybacks/${id}/finish`, { method: 'POST' }),
    resolvePaymentException: (id: number, action: 'refund' | 'credit') => call<StaffPaymentException>(`/backoffice/payment-exceptions/${id}/resolve`, { method: 'POST', body: { action } }),
    /** `objectType`: only the changes to that kind of object (staff, store, api_key…); null: every change. */
    audit: (offset: number, limit: number, objectType: string | null = null) =>
      call<{ items: AuditEntry[]; total: number }>('/backoffice/audit', { query: { offset, limit, ...(objectType === null ? {} : { object_type: objectType }) } }),
  };
}

export type AdminApi = ReturnType<typeof createAdminApi>;
