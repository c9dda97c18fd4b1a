import type { Kysely } from 'kysely';
import type { Engine } from '../../engine';
import type { DB } from '../../storage/schema';
import type { PairedNode } from './apply-push';
import { hasMembership } from './push-scope';
import { recordSyncException } from './sync-exceptions';

// A customer's row is central's (profile changes, passwords, deletion are forwarded to it), except
// what a store's counter changes locally: the passport number of an existing customer
// (POST /onscreen/register, register-in-store.ts). Whatever else a store's copy says is ignored,
// and the row is touched either way, so central's current version is logged and flows back.

/** Letters and digits, upper case, 5 to 20: what cleanPassportNumber stores. */
const PASSPORT = /^[0-9A-Z]{5,20}$/;

/**
 * Applies a store's copy of a customer central has. A merged customer's passport goes to the one
 * they were merged into; a deleted account takes nothing back; a passport another account holds
 * stays there (one account per passport) with an exception for staff.
 */
export async function updateCustomerFromStore(
  trx: Kysely<DB>,
  engine: Engine,
  node: PairedNode,
  existing: Record<string, unknown>,
  data: Record<string, unknown>,
  survivorOf: (userId: number) => Promise<number>,
): Promise<void> {
  const id = Number(existing['id']);
  const passport = data['passport_number'];
  const sent = 'passport_number' in data && (passport === null || (typeof passport === 'string' && PASSPORT.test(passport)));
  if (sent && passport !== existing['passport_number']) {
    const targetId = existing['merged_into'] == null ? id : await survivorOf(id);
    const target = targetId === id ? existing : await trx.selectFrom('users').select(['passport_number', 'status', 'updated_at']).where('id', '=', targetId).executeTakeFirst();
    if (target && target['status'] !== 'deleted' && target['status'] !== 'merged' && passport !== target['passport_number'] && (await hasMembership(trx, targetId, node.vendorId))) {
      const holder = passport === null ? undefined : await trx.selectFrom('users').select('id').where('passport_number', '=', passport).where('status', '!=', 'deleted').where('id', '!=', targetId).executeTakeFirst();
      if (holder) {
        await recordSyncException(trx, engine, node, 'passport_conflict', `user ${targetId}`, `passport number ${String(passport)} set at the store is held by customer ${holder.id}; customer ${targetId} keeps central's`);
      } else {
        // The newer of the two times, so a later change at central is not dated before this one.
        const updatedAt = Math.max(Number(target['updated_at']), Number(data['updated_at']) || 0);
        await trx.updateTable('users').set({ passport_number: passport, updated_at: updatedAt }).where('id', '=', targetId).execute();
        if (targetId === id) return;
      }
    }
  }
  // Nothing taken for this row: touch it, so central's version is logged and flows back.
  await trx.updateTable('users').set({ id }).where('id', '=', id).execute();
}
