import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { pageLinks } from '../../src/server/http/page-links';

// pageLinks edits the query apart from the URL and writes it back once (page-links.ts): the links
// must be exactly those of setting page and limit on url.searchParams.
describe('pageLinks', () => {
  const reference = (url: string, pageNumber: number, limit: number) => {
    const link = new URL(url, 'http://node.example:8080');
    link.searchParams.set('page', String(pageNumber));
    link.searchParams.set('limit', String(limit));
    return link.toString();
  };

  it.each([
    '/cards',
    '/cards?query=n:C00500&limit=25',
    '/cards?query=n%3Aab+s%3AACTIVE&sort=number&order=ASC&page=3&limit=2',
    '/cards?page=1&page=2&limit=7&a=b c&q=é&x=%E2%82%AC&y=%2B+',
    "/cards?x=1&&y&=z&quote='\"<>`",
    '/c%61rds/./x/../?q=1#fragment',
    '/currencies?query=n:"gold card"',
  ])('%s', (url) => {
    const request = { url, protocol: 'http', host: 'node.example:8080', server: { publicUrl: null } } as unknown as FastifyRequest;
    const links = pageLinks(request, { items: [], page: 2, limit: 5, hasMore: true });
    expect(links).toEqual({ next: reference(url, 3, 5), prev: reference(url, 1, 5) });
  });
});
