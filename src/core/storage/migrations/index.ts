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
  '0011-hardening': hardening,
};
