import type { Kysely, Migration } from 'kysely';

// When a kiosk last identified the customer of an open session (Unix ms; null: the last
// identification was not a kiosk's — a cashier, the app, a counter-station scanner). A kiosk key
// reads only sessions a kiosk identified within the last minutes (onscreen/kiosk-view.ts): the
// rest of the queue is the counter's business. Stays on the node that set it (sync omits it).
export const kioskIdentifiedSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('pos_sessions').addColumn('kiosk_identified_at', 'bigint').execute();
  },
};
