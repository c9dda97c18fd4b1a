import { expect } from 'vitest';
import { http, type HttpReply, type TestNode } from './test-node';

/** HTTP calls on one resource-style collection (`/cards`, `/currencies`) of a test node. */
export function resourceApi(nodeOf: () => TestNode, path: string) {
  const url = (suffix: string) => `${nodeOf().url}${suffix}`;
  const withHeaders = (headers?: Record<string, string>) => (headers ? { headers } : {});

  const create = (token: string, body: unknown, headers?: Record<string, string>): Promise<HttpReply> =>
    http(url(path), { method: 'POST', token, body, ...withHeaders(headers) });

  return {
    url,
    create,
    async createOk(token: string, body: Record<string, unknown>): Promise<any> {
      const reply = await create(token, body);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body;
    },
    get: (token: string, id: string) => http(url(`${path}/${id}`), { token }),
    put: (token: string, id: string, body: unknown, headers?: Record<string, string>) =>
      http(url(`${path}/${id}`), { method: 'PUT', token, body, ...withHeaders(headers) }),
    del: (token: string, id: string) => http(url(`${path}/${id}`), { method: 'DELETE', token }),
    list(token: string, params: Record<string, string | number> = {}): Promise<HttpReply> {
      const search = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
      return http(url(`${path}${search ? `?${search}` : ''}`), { token });
    },
    /** Every object of the vendor, following `next` links. */
    async listAll(token: string): Promise<any[]> {
      const items: any[] = [];
      let next: string | null = url(`${path}?limit=100`);
      while (next) {
        const reply: HttpReply = await http(next, { token });
        expect(reply.status).toBe(200);
        items.push(...reply.body.items);
        next = reply.body.next;
      }
      return items;
    },
  };
}

/** An ISO 8601 UTC time with milliseconds, as the resource calls write dates. */
export const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Which parts of the resource-style error envelope `expectResourceError` checks beyond status, code, internal_code, keys and field. */
export interface ResourceErrorChecks {
  /** A JSON content type (default true). */
  contentType?: boolean;
  /** message is a string (default true). */
  message?: boolean;
  /** message is not empty. */
  messageNonEmpty?: boolean;
}

/** The resource-style error envelope: exactly internal_code (null), message, code and maybe field. */
export function expectResourceError(reply: HttpReply, status: number, code: string, field?: string, checks: ResourceErrorChecks = {}): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  if (checks.contentType ?? true) expect(reply.headers.get('content-type') ?? '').toMatch(/application\/json/);
  expect(reply.body.code).toBe(code);
  expect(reply.body.internal_code).toBeNull();
  if (checks.message ?? true) expect(typeof reply.body.message).toBe('string');
  if (checks.messageNonEmpty) expect(reply.body.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(reply.body)) expect(['internal_code', 'message', 'code', 'field']).toContain(key);
  expect(reply.body.field).toBe(field);
}

/** A new vendor of the node with its bearer token and the curr_ ids of its "Points" and quick-pay (USD) currencies. */
export async function vendorWithCurrencies(node: TestNode) {
  const creds = await node.addVendor();
  const all = await resourceApi(() => node, '/currencies').listAll(creds.accessToken);
  const points = all.find((c) => c.name === 'Points');
  const cash = all.find((c) => c.code === 'USD');
  expect(points).toBeDefined();
  expect(cash).toBeDefined();
  return { ...creds, token: creds.accessToken, points: points.id as string, cash: cash.id as string };
}
