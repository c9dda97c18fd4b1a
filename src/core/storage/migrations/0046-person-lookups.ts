import type { Kysely, Migration } from 'kysely';

// A person's eGifts (bought or claimed) and promotion awards found by the person: a copy of their
// data (docs/decisions.md, "Sixteenth round: a copy of a person's data") and an erasure read them,
// and both scanned every program's rows. No hot path filters these tables by person, so the new
// indexes capture no other plan (test/storage/query-plans).
export const personLookups: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('egifts_buyer').on('egifts').column('buyer_user_id').execute();
    await db.schema.createIndex('egifts_claimed_by').on('egifts').column('claimed_by_user_id').execute();
    await db.schema.createIndex('promotion_awards_by_user').on('promotion_awards').column('user_id').execute();
  },
};
