import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { memberExportCsv, memberExportFileName, refuseMemberExportHere } from '../../core/member-export/member-export';
import { requireStaff, staffOf } from '../auth/staff';

/**
 * The program's members as one CSV file (owners only: 'customers.export_all'), streamed page by
 * page as core/member-export reads them from one snapshot: the node never holds the file, and
 * serves its counters between pages. Refusals (403, 409 at a paired store) and a failure before
 * the header (503: no database) come before the first byte, as Fastify answers a stream's error
 * until it has sent headers; a client gone mid-download destroys the stream, which releases the snapshot.
 */
export const backOfficeMemberExportRoutes: FastifyPluginAsyncTypebox<{ engine: Engine }> = async (app, { engine }) => {
  app.get(
    '/backoffice/customers/export.csv',
    {
      config: { style: 'resource' as const },
      // No HEAD twin: Fastify would run the whole export to answer one with no body (and audit it).
      exposeHeadRoute: false,
      preValidation: requireStaff(engine, 'customers.export_all'),
      schema: { tags: ['Back office'], response: { 200: { description: 'text/csv', content: { 'text/csv': { schema: { type: 'string' } } } } } },
    },
    async (request, reply) => {
      const staff = staffOf(request);
      refuseMemberExportHere(engine);
      return reply
        .type('text/csv; charset=utf-8; header=present')
        .header('content-disposition', `attachment; filename="${memberExportFileName(engine.clock.now())}"`)
        .header('cache-control', 'no-store')
        // A stream (never serialised): the schema types the 200 as the text it documents.
        .send(Readable.from(memberExportCsv(engine, staff), { objectMode: false }) as unknown as string);
    },
  );
};
