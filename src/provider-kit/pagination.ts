// Pagination and range helpers connectors share: cursor tokens (`next_token` and the like),
// numbered pages, and splitting a day range into chunks a provider accepts in one query.
import { addDays } from '../model/time.ts';
import { ProviderDataError } from './data-source.ts';
import type { ProviderHttp, ProviderRequest } from './api.ts';

/** A provider that keeps answering with more pages past this is broken, not busy. */
const MAX_PAGES = 10_000;

function itemsAt(document: unknown, field: string | null): unknown[] {
  const value = field === null ? document : (document as Record<string, unknown> | null)?.[field];
  return Array.isArray(value) ? value : [];
}

export type CursorStyle = {
  /** Query parameter that carries the cursor (`next_token`, `nextToken`). */
  param: string;
  /** Field of the answer that holds the next cursor; absent or null ends the walk. */
  field: string;
  /** Field of the answer that holds the page's items. */
  items: string;
};

/** Pages of a cursor-paginated collection, one array per answer. */
export async function* cursorPages<T>(
  http: ProviderHttp,
  request: ProviderRequest,
  style: CursorStyle,
): AsyncGenerator<T[]> {
  let cursor: string | null = null;
  const seen = new Set<string>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const query: ProviderRequest['query'] =
      cursor === null ? request.query : { ...request.query, [style.param]: cursor };
    const document: unknown = await http.json(query ? { ...request, query } : request);
    if (document === null) return;
    yield itemsAt(document, style.items) as T[];
    const next: unknown = (document as Record<string, unknown>)[style.field];
    if (typeof next !== 'string' || next === '') return;
    if (seen.has(next)) throw new ProviderDataError('unavailable', `${request.url} repeated a page cursor`);
    seen.add(next);
    cursor = next;
  }
  throw new ProviderDataError('unavailable', `${request.url} paginated past ${MAX_PAGES} pages`);
}

/** Every item of a cursor-paginated collection. */
export async function collectCursor<T>(
  http: ProviderHttp,
  request: ProviderRequest,
  style: CursorStyle,
): Promise<T[]> {
  const all: T[] = [];
  for await (const page of cursorPages<T>(http, request, style)) all.push(...page);
  return all;
}

/** Pages of a page-numbered list (1-based), until a short or empty page. */
export async function* numberedPages<T>(
  http: ProviderHttp,
  request: ProviderRequest,
  style: { pageParam: string; perPageParam: string; perPage: number; items?: string | null },
): AsyncGenerator<T[]> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const document = await http.json({
      ...request,
      query: { ...request.query, [style.pageParam]: page, [style.perPageParam]: style.perPage },
    });
    const items = itemsAt(document, style.items ?? null) as T[];
    if (items.length > 0) yield items;
    if (items.length < style.perPage) return;
  }
  throw new ProviderDataError('unavailable', `${request.url} paginated past ${MAX_PAGES} pages`);
}

export type DayRange = { startDate: string; endDate: string };

/** [startDate, endDate) split into consecutive ranges of at most `days` days. */
export function dayChunks(startDate: string, endDate: string, days: number): DayRange[] {
  const chunks: DayRange[] = [];
  for (let from = startDate; from < endDate;) {
    const next = addDays(from, days);
    const to = next < endDate ? next : endDate;
    chunks.push({ startDate: from, endDate: to });
    from = to;
  }
  return chunks;
}
