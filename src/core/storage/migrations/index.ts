import type { Migration } from 'kysely';
import { foundation } from './0001-foundation';
import { messagingGeo } from './0002-messaging-geo';
import { accounts } from './0003-accounts';
import { storesContent } from './0004-stores-content';
import { posSessions } from './0005-pos-sessions';
import { ordersRules } from './0006-orders-rules';
import { payments } from './0007-payments';
import { egifts } from './0008-egifts';
import { chargeCurrency } from './0009-charge-currency';
import { sync } from './0010-sync';
import { clientCalls } from './0012-client-calls';
import { webhooks } from './0013-webhooks';
import { backOffice } from './0014-back-office';
import { demoLooseEnds } from './0015-demo-loose-ends';
import { referralPoints } from './0016-referral-points';
import { speed } from './0017-speed';
import { backOfficeScreens } from './0018-back-office-screens';
import { scannerStations } from './0019-scanner-stations';
import { snapshot } from './0020-snapshot';
import { apiKeyVersions } from './0021-api-key-versions';
import { ordersByCustomerTime } from './0022-orders-by-customer-time';
import { hourlyJobIndexes } from './0023-hourly-job-indexes';
import { outboxIndexes } from './0024-outbox-indexes';
import { dashboardIndexes } from './0025-dashboard-indexes';
import { accountEntryIndexes } from './0026-account-entry-indexes';
import { accessTokenVersions } from './0027-access-token-versions';
import { syncEventIds } from './0028-sync-event-ids';
import { openSessionPerProgram } from './0029-open-session-per-program';
import { formerMembers } from './0030-former-members';
import { pushEndpointsAtCentral } from './0031-push-endpoints-at-central';
import { mergedCustomers } from './0032-merged-customers';
import { barcodeTokensByCustomer } from './0033-barcode-tokens-by-customer';
import { kioskIdentifiedSessions } from './0034-kiosk-identified-sessions';
import { barcodeTokensByExpiry } from './0035-barcode-tokens-by-expiry';
import { namesFoldedForSearch } from './0036-names-folded-for-search';
import { syncMovedRows } from './0037-sync-moved-rows';
import { messagesByCustomer } from './0038-messages-by-customer';
import { paymentLimits } from './0039-payment-limits';
import { storedValuePaybacks } from './0040-stored-value-paybacks';
import { guestBuyersAndStuckPaybacks } from './0041-guest-buyers-and-stuck-paybacks';
import { webhookRetryWindow } from './0043-webhook-retry-window';
import { storeSchemaLevels } from './0044-store-schema-levels';
import { syncExceptionMessageData } from './0045-sync-exception-message-data';
import { personLookups } from './0046-person-lookups';
import { importJobs } from './0047-import-jobs';
import { backOfficeAtScale } from './0048-back-office-at-scale';
import { interruptedMessages } from './0049-interrupted-messages';
import { tierCurrency } from './0050-tier-currency';
import { hardening } from './0011-hardening';

// Additive only: a migration that shipped is never edited; change the schema with a new one.
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-messaging-geo': messagingGeo,
  '0003-accounts': accounts,
  '0004-stores-content': storesContent,
  '0005-pos-sessions': posSessions,
  '0006-orders-rules': ordersRules,
  '0007-payments': payments,
  '0008-egifts': egifts,
  '0009-charge-currency': chargeCurrency,
  '0010-sync': sync,
  '0011-hardening': hardening,
  '0012-client-calls': clientCalls,
  '0013-webhooks': webhooks,
  '0014-back-office': backOffice,
  '0015-demo-loose-ends': demoLooseEnds,
  '0016-referral-points': referralPoints,
  '0017-speed': speed,
  '0018-back-office-screens': backOfficeScreens,
  '0019-scanner-stations': scannerStations,
  '0020-snapshot': snapshot,
  '0021-api-key-versions': apiKeyVersions,
  '0022-orders-by-customer-time': ordersByCustomerTime,
  '0023-hourly-job-indexes': hourlyJobIndexes,
  '0024-outbox-indexes': outboxIndexes,
  '0025-dashboard-indexes': dashboardIndexes,
  '0026-account-entry-indexes': accountEntryIndexes,
  '0027-access-token-versions': accessTokenVersions,
  '0028-sync-event-ids': syncEventIds,
  '0029-open-session-per-program': openSessionPerProgram,
  '0030-former-members': formerMembers,
  '0031-push-endpoints-at-central': pushEndpointsAtCentral,
  '0032-merged-customers': mergedCustomers,
  '0033-barcode-tokens-by-customer': barcodeTokensByCustomer,
  '0034-kiosk-identified-sessions': kioskIdentifiedSessions,
  '0035-barcode-tokens-by-expiry': barcodeTokensByExpiry,
  '0036-names-folded-for-search': namesFoldedForSearch,
  '0037-sync-moved-rows': syncMovedRows,
  '0038-messages-by-customer': messagesByCustomer,
  '0039-payment-limits': paymentLimits,
  '0040-stored-value-paybacks': storedValuePaybacks,
  '0041-guest-buyers-and-stuck-paybacks': guestBuyersAndStuckPaybacks,
  '0043-webhook-retry-window': webhookRetryWindow,
  '0044-store-schema-levels': storeSchemaLevels,
  '0045-sync-exception-message-data': syncExceptionMessageData,
  '0046-person-lookups': personLookups,
  '0047-import-jobs': importJobs,
  '0048-back-office-at-scale': backOfficeAtScale,
  '0049-interrupted-messages': interruptedMessages,
  '0050-tier-currency': tierCurrency,
};
