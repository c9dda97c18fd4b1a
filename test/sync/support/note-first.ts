import type { PushRequest, RowChange } from '../../../src/core/sync/protocol';
import type { SyncTransport } from '../../../src/core/sync/store/sync-client';

/** The order in which central receives an event's rows: as the store captured them, or a tier note before the membership. */
export type RowOrder = 'as captured' | 'note first';

/** In an event with a tier note, the membership's rows after the others (a store whose capture ordered them so). */
export function noteFirst(request: PushRequest): PushRequest {
  const hasNote = (changes: RowChange[]) => changes.some((c) => c.tbl === 'transactions' && c.data['kind'] === 'tier_change');
  return {
    ...request,
    events: request.events.map((event) =>
      hasNote(event.changes) ? { ...event, changes: [...event.changes.filter((c) => c.tbl !== 'user_vendors'), ...event.changes.filter((c) => c.tbl === 'user_vendors')] } : event,
    ),
  };
}

/** A store's link to central that pushes each event's rows in `order`. */
export function pushingRowsIn(order: RowOrder, direct: SyncTransport): SyncTransport {
  return order === 'note first' ? { ...direct, push: (request) => direct.push(noteFirst(request)) } : direct;
}
