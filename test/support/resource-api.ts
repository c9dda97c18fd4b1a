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
