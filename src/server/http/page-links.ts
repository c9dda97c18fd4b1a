import type { FastifyRequest } from 'fastify';
import type { ListPage } from '../../core/listing/list-plan';

/** next/prev: this request's absolute URL with every other query parameter kept and page/limit set. */
export function pageLinks(request: FastifyRequest, page: ListPage<unknown>): { next: string | null; prev: string | null } {
  const link = (pageNumber: number) => {
    const url = new URL(request.url, `${request.protocol}://${request.host}`);
    url.searchParams.set('page', String(pageNumber));
    url.searchParams.set('limit', String(page.limit));
    return url.toString();
  };
  return {
    next: page.hasMore ? link(page.page + 1) : null,
    prev: page.page > 1 ? link(page.page - 1) : null,
  };
}
