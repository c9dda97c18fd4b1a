import type { Kysely } from 'kysely';
import type { Engine } from '../engine';
import { nextObjectId } from '../storage/ids';
import type { DB } from '../storage/schema';

/** Who made a back-office change: a signed-in staff member, the CLI on the node's machine, or the node's jobs. */
export interface Actor {
  vendorId: number;
  staffId: number | null;
  /** As the audit log shows it: the staff member's email, "cli", or "system" (the node's jobs). */
  label: string;
}

/** A change no staff member made: from the command line (`cli`) or by the node's own jobs (`system`). */
export const actorWithoutStaff = (vendorId: number, label: 'cli' | 'system'): Actor => ({ vendorId, staffId: null, label });

export interface AuditEntry {
  action: string;
  objectType: string;
  objectId: string | number;
  before: unknown;
  after: unknown;
}

/**
 * Writes one audit record in the caller's transaction, so a change and its record commit or roll
 * back together. `before`/`after` are plain objects (null for a creation / removal); secrets never
 * go in (callers pass wire shapes, which carry none).
 */
export async function recordAudit(db: Kysely<DB>, engine: Engine, actor: Actor, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: await nextObjectId(db, engine.nodeId),
      vendor_id: actor.vendorId,
      staff_id: actor.staffId,
      actor: actor.label,
      action: entry.action,
      object_type: entry.objectType,
      object_id: String(entry.objectId),
      before: entry.before === null || entry.before === undefined ? null : JSON.stringify(entry.before),
      after: entry.after === null || entry.after === undefined ? null : JSON.stringify(entry.after),
      created_at: engine.clock.now(),
    })
    .execute();
}
