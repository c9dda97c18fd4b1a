import type { FastifyRequest } from 'fastify';
import type { ListPage } from '../../core/listing/list-plan';

/** scheme://host[:port] the client used to reach this node. */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** next/prev: this request's absolute URL with every other query parameter kept and page/limit set. */
export function pageLinks(request: FastifyRequest, page: ListPage<unknown>): { next: string | null; prev: string | null } {
  const link = (pageNumber: number) => {
    const url = new URL(request.url, requestOrigin(request));
    url.searchParams.set('page', String(pageNumber));
    url.searchParams.set('limit', String(page.limit));
    return url.toString();
  };
  return {
    next: page.hasMore ? link(page.page + 1) : null,
    prev: page.page > 1 ? link(page.page - 1) : null,
  };
}
