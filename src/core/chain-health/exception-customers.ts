import type { Engine } from '../engine';
import { noIndexOn } from '../storage/dialect';
import { seenAtCounter } from '../customers/seen-at-counter';
import type { SyncExceptionRecord } from '../sync/central/sync-exceptions';
import { customerIdInSubject } from '../../shared/exception-subject';

/** A customer a sync exception mentions, as the program's back office may name them. */
export interface ExceptionCustomer {
  id: number;
  /** Their name, or their email when the name is empty (as the program sees them: seenAtCounter). */
  name: string;
}

export type ChainException = SyncExceptionRecord & { customers: ExceptionCustomer[] };

// The stored text names customers by id ("user 8589934607", "… of customer 4294967302"): staff
// found nobody by an id, so the chain page shows their names. Read when shown, so exceptions
// recorded before keep their text and are named too. An overdraft's subject adds its currency.
const MESSAGE_CUSTOMER = /\bcustomer (\d+)\b/g;

/** The customer ids an exception's subject and message mention, in the order they appear, once each. */
export function customerIdsIn(exception: Pick<SyncExceptionRecord, 'subject' | 'message'>): number[] {
  const ids = [customerIdInSubject(exception.subject), ...[...exception.message.matchAll(MESSAGE_CUSTOMER)].map((m) => m[1])];
  return [...new Set(ids.filter((id): id is string => id !== undefined).map(Number).filter(Number.isSafeInteger))];
}

/**
 * Each exception with the customers it mentions who are members of the program, named (one read
 * for the whole page). A customer of another program only (a contact held by them) stays an id:
 * this program may not see who they are. A copy merged into a member (a customer this program's
 * counter registered offline with a contact someone already had) is named as it was registered:
 * its membership moved to the survivor, and without this the chain page said "user 4294967317 …
 * merged into Carla Ruiz", never who had been registered.
 */
export async function withCustomersNamed<E extends SyncExceptionRecord>(engine: Engine, vendorId: number, exceptions: E[], alsoNamed: (exception: E) => number[] = () => []): Promise<Array<E & { customers: ExceptionCustomer[] }>> {
  const mentioned = (e: E) => [...new Set([...customerIdsIn(e), ...alsoNamed(e)])];
  const ids = [...new Set(exceptions.flatMap(mentioned))];
  const members = ids.length === 0 ? [] : await mentionedMembersQuery(engine, vendorId, ids).execute();
  const names = new Map(
    members.map((m) => {
      const shown = seenAtCounter(m, m);
      const name = `${shown.first_name} ${shown.last_name}`.trim();
      return [Number(m.id), name !== '' ? name : (shown.email ?? '')] as const;
    }),
  );
  return exceptions.map((e) => ({
    ...e,
    customers: mentioned(e).flatMap((id) => {
      const name = names.get(id);
      return name ? [{ id, name }] : [];
    }),
  }));
}

/**
 * The mentioned customers by their keys, each one's membership (or the survivor's) by the
 * memberships' user index. `+vendor_id` on SQLite: through the program's index it read every member
 * (0.5–1.4 s for the chain page of a central with 1M members, nineteenth round). Exported for the plan test.
 */
export const mentionedMembersQuery = (engine: Engine, vendorId: number, ids: readonly number[]) =>
  engine.db
    .selectFrom('users as u')
    .innerJoin('user_vendors as m', (join) => join.on((eb) => eb.or([eb('m.user_id', '=', eb.ref('u.id')), eb('m.user_id', '=', eb.ref('u.merged_into'))])).on(noIndexOn(engine.dialect, 'm.vendor_id'), '=', vendorId))
    .select(['u.id', 'u.first_name', 'u.last_name', 'u.email', 'u.phone', 'm.counter_enrolled'])
    .where('u.id', 'in', ids);
