import { describe, expect, it } from 'vitest';
import { auditQueries } from '../../src/core/audit/list-audit';
import { nodeForPlans } from '../support/query-plan';

// The audit log's pages, filtered by the kind of object or not, walk an index in the page's order and
// count without reading a row. Filtered, it read every record of the program to find the kind's:
// 263 ms at page 40 of a year-old central's 200k records (nineteenth round; migration 0048).

const node = nodeForPlans('punchcard-audit-plans-');
const { planOf } = node;

describe('the audit log reads its page', () => {
  const page = { limit: 25, offset: 1000 };

  it('every record: the program’s (vendor_id, created_at, id) index, no sort; counted from the index alone', async () => {
    const q = auditQueries(node.engine(), 1, page);
    expect(await planOf(q.rows)).toBe('SEARCH audit_log USING INDEX audit_log_vendor (vendor_id=?)');
    expect(await planOf(q.count)).toBe('SEARCH audit_log USING COVERING INDEX audit_log_vendor (vendor_id=?)');
  });

  it('one kind of object: the (vendor_id, object_type, created_at, id) index, no sort; counted from the index alone', async () => {
    const q = auditQueries(node.engine(), 1, { ...page, objectType: 'staff' });
    expect(await planOf(q.rows)).toBe('SEARCH audit_log USING INDEX audit_log_object_type (vendor_id=? AND object_type=?)');
    expect(await planOf(q.count)).toBe('SEARCH audit_log USING COVERING INDEX audit_log_object_type (vendor_id=? AND object_type=?)');
  });
});
