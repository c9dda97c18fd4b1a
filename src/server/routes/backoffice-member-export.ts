import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Engine } from '../../core/engine';
import { memberExportCsv, memberExportFileName } from '../../core/member-export/member-export';
import { requireStaff, staffOf } from '../auth/staff';
import { streamAfterFirstChunk } from '../http/stream-after-first-chunk';

/**
 * The program's members as one CSV file (owners only: 'customers.export_all'), streamed page by
 * page as core/member-export reads them from one snapshot: the node never holds the file, and
 * serves its counters between pages. Refusals (403, 409 at a paired store, 429 two downloads
 * running) and a failure before the header (503: no database) are answered as errors before the
 * file's headers are set; a client gone mid-download, or the snapshot's time limit, destroys the
 * stream, which ends the export (its slot freed, its audit written).
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
      let stream: Readable | null = null;
      const cutOff = () => stream?.destroy(new Error('the members export ran past its time limit'));
      stream = await streamAfterFirstChunk(memberExportCsv(engine, staff, { onTimeLimit: cutOff }));
      return reply
        .type('text/csv; charset=utf-8; header=present')
        .header('content-disposition', `attachment; filename="${memberExportFileName(engine.clock.now())}"`)
        .header('cache-control', 'no-store')
        // A stream (never serialised): the schema types the 200 as the text it documents.
        .send(stream as unknown as string);
    },
  );
};
