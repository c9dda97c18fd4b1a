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

type AuditPageAsked = { limit: number; offset: number; objectType?: string | undefined };

/**
 * The program's records (of one kind of object), through (vendor_id, created_at, id) or, for a kind,
 * (vendor_id, object_type, created_at, id) (migration 0048): in the page's order, counted without
 * reading a row. Exported for the plan test.
 */
export function auditQueries(engine: Engine, vendorId: number, page: AuditPageAsked) {
  let base = engine.db.selectFrom('audit_log').where('vendor_id', '=', vendorId);
  if (page.objectType) base = base.where('object_type', '=', page.objectType);
  return {
    rows: base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset),
    count: base.select((eb) => eb.fn.countAll<number>().as('n')),
  };
}

/** The vendor's audit log, newest first, a page at a time (offset paging over the vendor's index). */
export async function listAudit(engine: Engine, vendorId: number, page: AuditPageAsked): Promise<AuditPage> {
  const queries = auditQueries(engine, vendorId, page);
  const [rows, count] = await Promise.all([queries.rows.execute(), queries.count.executeTakeFirstOrThrow()]);
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
