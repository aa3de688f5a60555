// Hevy reads (Hevy OpenAPI document, api.hevyapp.com/docs, version 0.0.1):
// - GET /v1/workouts/events?since=&page=&pageSize=: "a paged list of workout events (updates or
//   deletes) since a given date … ordered from newest to oldest"; `pageSize` at most 10, `page`
//   from 1; the answer is `{page, page_count, events: [{type: 'updated', workout} | {type:
//   'deleted', id, deleted_at}]}`.
// GET /v1/workouts pages the whole history with no date filter and no documented order, so a day
// range is read from the events instead: a workout is created when it is logged, after it started,
// so every workout that started in the range was updated since the range began; `since` is one day
// early, and the workouts are then kept by their start. The framework's HTTP client sends the
// key in the `api-key` header and handles retries, 429s and budgets; a fetcher only asks.
import type { ProviderHttp, TypeFetcher } from '../../provider-kit/api.ts';
import { normalizeEach } from '../../provider-kit/normalize/errors.ts';
import { isoDateToDayNumber, MS_PER_DAY } from '../../model/time.ts';
import { type HevyWorkout, hevyInstant, hevyNormalizers } from './normalize/index.ts';

export const HEVY_API = 'https://api.hevyapp.com/v1';
/** The document's maximum `pageSize` for workouts and events. */
export const HEVY_PAGE_SIZE = 10;
/** Days a backfill chunk spans: each chunk reads the events since its first day. */
export const HEVY_CHUNK_DAYS = 30;
const MAX_PAGES = 10_000;

export type HevyEvent =
  | { type: 'updated'; workout?: HevyWorkout | null }
  | { type: 'deleted'; id?: string; deleted_at?: string | null }
  | { type?: unknown };

type EventsPage = { page?: unknown; page_count?: unknown; events?: unknown };

/** Every event since `since`, page by page (the document's page/page_count). */
export async function* eventPages(http: ProviderHttp, since: Date): AsyncGenerator<HevyEvent[]> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const body = await http.json<EventsPage>({
      url: `${HEVY_API}/workouts/events`,
      query: { page, pageSize: HEVY_PAGE_SIZE, since: since.toISOString() },
    });
    const events = Array.isArray(body?.events) ? (body.events as HevyEvent[]) : [];
    if (events.length > 0) yield events;
    const count = typeof body?.page_count === 'number' ? body.page_count : 0;
    if (page >= count || events.length === 0) return;
  }
}

/** The UTC day (`YYYY-MM-DD`) of an instant. */
export const utcDay = (epochMs: number) =>
  new Date(Math.floor(epochMs / MS_PER_DAY) * MS_PER_DAY).toISOString().slice(0, 10);

/** The workouts that started on UTC days [startDate, endDate), newest version of each. */
export async function* workoutsStarting(
  http: ProviderHttp,
  startDate: string,
  endDate: string,
): AsyncGenerator<{ workouts: HevyWorkout[]; raw: HevyEvent[] }> {
  const since = new Date((isoDateToDayNumber(startDate) - 1) * MS_PER_DAY);
  const seen = new Set<string>();
  for await (const events of eventPages(http, since)) {
    const workouts: HevyWorkout[] = [];
    for (const event of events) {
      if (event?.type === 'deleted' && 'id' in event && typeof event.id === 'string') seen.add(event.id);
      if (event?.type !== 'updated' || !('workout' in event) || !event.workout) continue;
      const workout = event.workout;
      const id = typeof workout.id === 'string' ? workout.id : null;
      // Newest first: the first event of a workout is its current version (or its deletion).
      if (id === null || seen.has(id)) continue;
      seen.add(id);
      const start = hevyInstant(workout.start_time);
      const day = Number.isNaN(start) ? null : utcDay(start);
      if (day !== null && (day < startDate || day >= endDate)) continue;
      workouts.push(workout);
    }
    if (workouts.length > 0) yield { workouts, raw: events };
  }
}

export const hevyFetchers = {
  async *activity(args) {
    for await (const { workouts, raw } of workoutsStarting(args.http, args.startDate, args.endDate)) {
      const { records, rejected } = normalizeEach(
        workouts,
        (workout) => `HEVY workout ${String(workout?.id)}`,
        (workout) =>
          hevyNormalizers.workout.normalize(workout, { userOffsetMinutes: null, now: args.now.getTime() }),
      );
      yield { records, rejected, raw };
    }
  },
} satisfies Record<string, TypeFetcher>;
