// Concept2 Logbook reads (providers-3.md §6): GET /api/users/me/results with `from`/`to`
// (local dates, inclusive), `page` and `per_page` (at most 250), answered as
// `{ data, meta.pagination }`; a result with `stroke_data: true` has its strokes at
// GET /api/users/me/results/{id}/strokes. Every call names the API version in its Accept
// header. Results are normalized one by one: one not in the documented shape is reported and
// skipped.
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { dayChunks } from '../../provider-kit/pagination.ts';
import { addDays } from '../../model/time.ts';
import { normalizeEach } from '../../provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import {
  type Concept2Page,
  type Concept2Result,
  type Concept2Stroke,
  type Concept2User,
  concept2Normalizers,
} from './normalize/index.ts';

export const CONCEPT2_API = 'https://log.concept2.com/api';
export const CONCEPT2_CHUNK_DAYS = 30;
/** The documented version header. */
export const CONCEPT2_ACCEPT = { accept: 'application/vnd.c2logbook.v1+json' };
const PER_PAGE = 250;
const MAX_PAGES = 1000;

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

export async function concept2ResultPayload(http: ProviderHttp, result: Concept2Result) {
  const strokes =
    result.stroke_data === true
      ? await http.json<Concept2Page<Concept2Stroke>>({
          url: `${CONCEPT2_API}/users/me/results/${encodeURIComponent(String(result.id))}/strokes`,
          headers: CONCEPT2_ACCEPT,
          absentOn: [404],
        })
      : null;
  return { result, strokes: Array.isArray(strokes?.data) ? strokes.data : null };
}

async function* resultPages(http: ProviderHttp, startDate: string, endDate: string) {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = await http.json<Concept2Page<Concept2Result>>({
      url: `${CONCEPT2_API}/users/me/results`,
      headers: CONCEPT2_ACCEPT,
      // `to` is inclusive; the range's end is exclusive.
      query: { from: startDate, to: addDays(endDate, -1), page, per_page: PER_PAGE },
    });
    const results = Array.isArray(list?.data) ? list.data : [];
    if (results.length > 0) yield results;
    const pages = list?.meta?.pagination?.total_pages;
    if (results.length < PER_PAGE || (typeof pages === 'number' && page >= pages)) return;
  }
}

export const concept2Fetchers = {
  async *activity(args) {
    for (const range of dayChunks(args.startDate, args.endDate, CONCEPT2_CHUNK_DAYS)) {
      for await (const results of resultPages(args.http, range.startDate, range.endDate)) {
        const payloads = [];
        for (const result of results) payloads.push(await concept2ResultPayload(args.http, result));
        const { records, rejected } = normalizeEach(
          payloads,
          (payload) => `CONCEPT2 result ${String(payload.result?.id)}`,
          (payload) => concept2Normalizers.result.normalize(payload, contextOf(args)),
        );
        yield { records, rejected, raw: results };
      }
    }
  },

  async *athlete(args) {
    const user = await args.http.json<{ data?: Concept2User }>({
      url: `${CONCEPT2_API}/users/me`,
      headers: CONCEPT2_ACCEPT,
    });
    if (user?.data)
      yield { records: concept2Normalizers.user.normalize({ user: user.data }, contextOf(args)), raw: user };
  },
} satisfies Record<string, TypeFetcher>;
