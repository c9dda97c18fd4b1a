import type { Kysely } from 'kysely';
import { ServiceError } from '../../shared/errors';
import { survivingCustomerId } from '../customers/customer-store';
import type { Engine } from '../engine';
import { findIdentifiedCustomer } from '../onscreen/identify-customer';
import type { DB } from '../storage/schema';

/**
 * An order (or its resend) that sends both a session hash and a card_number must name one
 * customer: the session's customer is charged, so a card_number naming someone else — a till that
 * kept the previous customer's scan — is refused (400 identification_conflict) rather than one of
 * the two silently chosen. A card_number naming nobody is refused as it would be alone. A merge
 * keeps the survivor: the same person.
 */
export async function refuseConflictingIdentification(
  db: Kysely<DB>,
  engine: Engine,
  named: { vendorId: number; country: string; identification: string | undefined },
  sessionUserId: number,
): Promise<void> {
  if (!named.identification?.trim()) return;
  const { user } = await findIdentifiedCustomer(db, engine, { vendorId: named.vendorId, country: named.country, identification: named.identification });
  if ((await survivingCustomerId(db, user.id)) === (await survivingCustomerId(db, sessionUserId))) return;
  throw new ServiceError('identification_conflict', undefined, 'card_number');
}
