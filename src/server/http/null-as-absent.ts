import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Optional body fields sent as null are read as not sent (POS serialisers write null for what they leave out). */
    nullAsAbsent?: boolean;
  }
}

// Registered before the number checks and validation: `"till": null` is a field the POS left out,
// not a number to refuse, and `"items": null` not a list of one missing item. Only the body's own
// optional properties go; a required one sent as null is still refused by name.
export function registerNullAsAbsent(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    if (!request.routeOptions.config.nullAsAbsent) return;
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
    const schema = request.routeOptions.schema?.body as { required?: string[] } | undefined;
    const required = new Set(schema?.required ?? []);
    const fields = body as Record<string, unknown>;
    for (const [name, value] of Object.entries(fields)) if (value === null && !required.has(name)) delete fields[name];
  });
}
