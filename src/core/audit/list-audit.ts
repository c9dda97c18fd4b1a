import type { Engine } from '../engine';

export interface AuditRecord {
  id: number;
  staffId: number | null;
  actor: string;
  action: string;
  objectType: string;
  objectId: string;
  before: unknown;
  after: unknown;
  createdAt: number;
}

export interface AuditPage {
  items: AuditRecord[];
  total: number;
}

/** The vendor's audit log, newest first, a page at a time (offset paging over the vendor's index). */
export async function listAudit(engine: Engine, vendorId: number, page: { limit: number; offset: number; objectType?: string | undefined }): Promise<AuditPage> {
  let base = engine.db.selectFrom('audit_log').where('vendor_id', '=', vendorId);
  if (page.objectType) base = base.where('object_type', '=', page.objectType);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.n),
    items: rows.map((row) => ({
      id: row.id,
      staffId: row.staff_id,
      actor: row.actor,
      action: row.action,
      objectType: row.object_type,
      objectId: row.object_id,
      before: row.before === null ? null : JSON.parse(row.before),
      after: row.after === null ? null : JSON.parse(row.after),
      createdAt: row.created_at,
    })),
  };
}
