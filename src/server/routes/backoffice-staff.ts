import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listAudit } from '../../core/audit/list-audit';
import type { Engine } from '../../core/engine';
import { inviteStaff } from '../../core/staff/invite-staff';
import { listStaff, updateStaff } from '../../core/staff/manage-staff';
import { AuditEntrySchema, AuditQuery, InviteBody, NumericIdParams, offsetPageOf, StaffSchema, StaffUpdateBody } from '../../shared/schemas/backoffice';
import { toIso } from '../../shared/time';
import { Type } from 'typebox';
import { backOfficeLinkBase, requireStaff, staffOf } from '../auth/staff';
import { staffToWire } from './backoffice-auth';

const tags = ['Back office'];
const config = { style: 'resource' as const };

/** Staff (owners only) and the audit log (owners and managers). */
export const backOfficeStaffRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  const owners = requireStaff(engine, 'staff.manage');

  app.get('/backoffice/staff', { config, preValidation: owners, schema: { tags, response: { 200: Type.Object({ items: Type.Array(StaffSchema) }) } } }, async (request) => ({
    items: (await listStaff(engine, staffOf(request).vendorId)).map(staffToWire),
  }));

  // 201: invited; 200: the email's waiting invitation (expired or not) sent again (invite-staff.ts).
  app.post('/backoffice/staff', { config, preValidation: owners, schema: { tags, body: InviteBody, response: { 200: StaffSchema, 201: StaffSchema } } }, async (request, reply) => {
    const { email, name, role, store_id } = request.body;
    const staff = await inviteStaff(engine, staffOf(request), { email, name, role, storeId: store_id, linkBase: backOfficeLinkBase(request) });
    return reply.code(staff.resent ? 200 : 201).send(staffToWire(staff));
  });

  app.put('/backoffice/staff/:id', { config, preValidation: owners, schema: { tags, params: NumericIdParams, body: StaffUpdateBody, response: { 200: StaffSchema } } }, async (request) => {
    const { name, role, store_id, status } = request.body;
    return staffToWire(await updateStaff(engine, staffOf(request), request.params.id, { name, role, storeId: store_id, status }));
  });

  app.get('/backoffice/audit', { config, preValidation: requireStaff(engine, 'audit.read'), schema: { tags, querystring: AuditQuery, response: { 200: offsetPageOf(AuditEntrySchema) } } }, async (request) => {
    const limit = request.query.limit ?? 25;
    const offset = request.query.offset ?? 0;
    const page = await listAudit(engine, staffOf(request).vendorId, { limit, offset, objectType: request.query.object_type });
    return {
      total: page.total,
      limit,
      offset,
      items: page.items.map((e) => ({ id: e.id, staff_id: e.staffId, actor: e.actor, action: e.action, object_type: e.objectType, object_id: e.objectId, before: e.before, after: e.after, date_created: toIso(e.createdAt) })),
    };
  });
};
