// Suunto Cloud API reads (providers-3.md §5): GET /v2/workouts with `since`/`until` (epoch ms),
// `limit` and `offset`, answered as `{ error, metadata, payload }`; each workout's FIT export
// (GET /v2/workout/exportFit/{workoutKey}) holds its samples and is kept as its original file
// (output format fit). Every call carries the API Zone subscription key (declared in
// connector.ts, read from SUUNTO_SUBSCRIPTION_KEY). Workouts are normalized one by one: one not
// in the documented shape is reported and skipped.
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { dayChunks } from '../../provider-kit/pagination.ts';
import { addDays, localMidnightMs } from '../../model/time.ts';
import { normalizeEach } from '../../provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { originalFit } from '../../provider-kit/original-files.ts';
import {
  type SuuntoSleepSample,
  type SuuntoWorkout,
  type SuuntoWorkoutList,
  suuntoNormalizers,
} from './normalize/index.ts';

export const SUUNTO_API = 'https://cloudapi.suunto.com';
export const SUUNTO_CHUNK_DAYS = 28;
const LIMIT = 100;
const MAX_PAGES = 1000;

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

export async function suuntoWorkoutPayload(http: ProviderHttp, workout: SuuntoWorkout) {
  const fit =
    typeof workout.workoutKey === 'string' && workout.workoutKey !== ''
      ? await http.bytes({
          url: `${SUUNTO_API}/v2/workout/exportFit/${encodeURIComponent(workout.workoutKey)}`,
          absentOn: [404],
        })
      : null;
  return { workout, fit };
}

async function* workoutPages(http: ProviderHttp, startDate: string, endDate: string) {
  // A day of margin each side: since/until are instants, the range is local days.
  const since = localMidnightMs(addDays(startDate, -1));
  const until = localMidnightMs(addDays(endDate, 1));
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await http.json<SuuntoWorkoutList>({
      url: `${SUUNTO_API}/v2/workouts`,
      query: { since, until, limit: LIMIT, offset: page * LIMIT },
    });
    const workouts = Array.isArray(list?.payload) ? list.payload : [];
    if (workouts.length > 0) yield workouts;
    if (workouts.length < LIMIT) return;
  }
}

export const suuntoFetchers = {
  async *activity(args) {
    for (const range of dayChunks(args.startDate, args.endDate, SUUNTO_CHUNK_DAYS)) {
      for await (const workouts of workoutPages(args.http, range.startDate, range.endDate)) {
        const payloads = [];
        for (const workout of workouts) payloads.push(await suuntoWorkoutPayload(args.http, workout));
        const { records, rejected } = normalizeEach(
          payloads,
          (payload) => `SUUNTO workout ${String(payload.workout?.workoutKey)}`,
          (payload) => suuntoNormalizers.workout.normalize(payload, contextOf(args)),
        );
        // The FIT export each workout was read from is its original (output format fit).
        const originals = payloads.flatMap(
          (payload) => originalFit(String(payload.workout.workoutKey), payload.fit) ?? [],
        );
        yield { records, rejected, raw: workouts, originals };
      }
    }
  },

  async *sleep(args) {
    // 24/7 windows are at most 28 days; a night is listed on the day it starts, a day of margin
    // each side covers local days at any offset.
    for (const range of dayChunks(addDays(args.startDate, -1), addDays(args.endDate, 1), SUUNTO_CHUNK_DAYS)) {
      const answer = await args.http.json({
        url: `${SUUNTO_API}/247samples/sleep`,
        query: { from: localMidnightMs(range.startDate), to: localMidnightMs(range.endDate) },
        absentOn: [404],
      });
      const samples = samplesOf(answer);
      const { records, rejected } = normalizeEach(
        samples,
        (sample, index) => `SUUNTO sleep ${String(sample?.entryData?.SleepId ?? index)}`,
        (sample) => suuntoNormalizers.sleep.normalize({ sleep: sample }, contextOf(args)),
      );
      yield { records, rejected, raw: answer };
    }
  },
} satisfies Record<string, TypeFetcher>;

/** The samples of a 24/7 answer: a list, or a list under `payload` / `samples` / `data` [C/?]. */
function samplesOf(answer: unknown): SuuntoSleepSample[] {
  if (Array.isArray(answer)) return answer as SuuntoSleepSample[];
  if (answer && typeof answer === 'object') {
    for (const key of ['payload', 'samples', 'data']) {
      const value = (answer as Record<string, unknown>)[key];
      if (Array.isArray(value)) return value as SuuntoSleepSample[];
    }
  }
  return [];
}
