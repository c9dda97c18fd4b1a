import type { FastifyRequest } from 'fastify';
import type { ListPage } from '../../core/listing/list-plan';
import { callerBase } from './request-origin';

/** next/prev: this request's absolute URL with every other query parameter kept and page/limit set. */
export function pageLinks(request: FastifyRequest, page: ListPage<unknown>): { next: string | null; prev: string | null } {
  // The parameters are edited apart and written back once: each `url.searchParams.set` rewrote the
  // whole URL, ~5x the cost of a link (issue 13). Same text: a form-encoded query reads back as is.
  const base = callerBase(request);
  const link = (pageNumber: number) => {
    const url = new URL(base + request.url);
    const params = new URLSearchParams(url.search);
    params.set('page', String(pageNumber));
    params.set('limit', String(page.limit));
    url.search = params.toString();
    return url.href;
  };
  return {
    next: page.hasMore ? link(page.page + 1) : null,
    prev: page.page > 1 ? link(page.page - 1) : null,
  };
}
