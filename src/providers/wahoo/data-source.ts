// Wahoo Cloud API reads (docs/providers.md#wahoo; providers-3.md §4): GET /v1/workouts lists
// workouts newest first (`order: descending`, `sort: starts`) in numbered pages with no date
// filter, so pages are read until they reach workouts older than the range. Each workout
// carries its workout_summary; the summary's FIT file (on Wahoo's CDN, fetched without the
// user's token) holds the samples and is kept as the workout's original file (output format
// fit). Workouts are normalized one by one: one that is not in the documented shape is reported
// and skipped, the others are kept.
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { addDays } from '../../model/time.ts';
import { normalizeEach } from '../../provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { originalFit } from '../../provider-kit/original-files.ts';
import {
  fileUrlOf,
  type WahooUser,
  type WahooWorkout,
  type WahooWorkoutList,
  wahooNormalizers,
} from './normalize/index.ts';

export const WAHOO_API = 'https://api.wahooligan.com';
export const WAHOO_CHUNK_DAYS = 30;
const PER_PAGE = 30;
/** A list that keeps paging past this is broken, not long. */
const MAX_PAGES = 1000;

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

/** The workout with its FIT file (null when it has none or the CDN no longer has it). */
export async function workoutPayload(http: ProviderHttp, workout: WahooWorkout) {
  const url = fileUrlOf(workout);
  const fit = url ? await http.bytes({ url, auth: 'app', absentOn: [403, 404] }) : null;
  return { workout, fit };
}

/** Workouts whose start lies in [startDate - 1 day, endDate + 1 day), newest first, page by page. */
async function* workoutsIn(args: TypeFetchArgs): AsyncGenerator<WahooWorkout[]> {
  const from = addDays(args.startDate, -1);
  const to = addDays(args.endDate, 1);
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = await args.http.json<WahooWorkoutList>({
      url: `${WAHOO_API}/v1/workouts`,
      query: { page, per_page: PER_PAGE },
    });
    const workouts = Array.isArray(list?.workouts) ? list.workouts : [];
    yield workouts.filter((workout) => {
      const day = typeof workout.starts === 'string' ? workout.starts.slice(0, 10) : '';
      return day >= from && day < to;
    });
    const oldest = workouts[workouts.length - 1]?.starts;
    if (workouts.length < PER_PAGE || (typeof oldest === 'string' && oldest.slice(0, 10) < from)) return;
  }
}

export const wahooFetchers = {
  async *activity(args) {
    for await (const workouts of workoutsIn(args)) {
      const payloads = [];
      for (const workout of workouts) payloads.push(await workoutPayload(args.http, workout));
      const { records, rejected } = normalizeEach(
        payloads,
        (payload) => `WAHOO workout ${String(payload.workout.id)}`,
        (payload) => wahooNormalizers.workout.normalize(payload, contextOf(args)),
      );
      // The FIT file each workout was read from is its original (output format fit).
      const originals = payloads.flatMap(
        (payload) => originalFit(String(payload.workout.id), payload.fit) ?? [],
      );
      yield { records, rejected, raw: workouts, originals };
    }
  },

  async *athlete(args) {
    const user = await args.http.json<WahooUser>({ url: `${WAHOO_API}/v1/user` });
    if (user) yield { records: wahooNormalizers.user.normalize({ user }, contextOf(args)), raw: user };
  },
} satisfies Record<string, TypeFetcher>;
