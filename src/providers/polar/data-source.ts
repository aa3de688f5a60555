// Polar AccessLink v3 reads (docs/providers.md#polar). Exercises, sleep and nightly recharge
// have no date parameters (the last 30 / 28 days, as lists), so those lists are read whole and
// cut to the asked days; daily activity and continuous heart rate take `from`/`to` (inclusive,
// at most 28 days apart, no older than 365 days). Each unified type is a row of the normalizer
// table with its companions for the same range.
import { type DayRange, dayChunks } from '../../provider-kit/pagination.ts';
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { addDays } from '../../model/time.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { fetchOriginalFit } from '../../provider-kit/original-files.ts';
import type { OriginalFile } from '../../provider-kit/data-source.ts';
import {
  type PolarActivity,
  type PolarContinuousHeartRate,
  type PolarExercise,
  type PolarNight,
  type PolarNightlyRecharge,
  type PolarPhysicalInfo,
  type PolarUser,
  polarNormalizers,
} from './normalize/index.ts';

export const POLAR_API = 'https://www.polaraccesslink.com/v3';
/** Polar's longest `from`/`to` span is 28 days; a chunk of 28 days asks for 27 days apart. */
export const POLAR_CHUNK_DAYS = 28;
/** Exercises (with their FIT files) per page of an activity fetch. */
const EXERCISES_PER_PAGE = 4;
/** Daily activity is served back this far; older asks are refused with a 400. */
const ACTIVITY_HISTORY_DAYS = 365;

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

/** Whether a local day (`YYYY-MM-DD…`) lies in [startDate, endDate), a day wider on each side. */
const within = (day: string, range: DayRange) =>
  day.slice(0, 10) >= addDays(range.startDate, -1) && day.slice(0, 10) <= range.endDate;

/** The part of a range Polar still serves daily activity for (null when none of it). */
function servedRange(args: TypeFetchArgs, range: DayRange): { from: string; to: string } | null {
  const today = args.now.toISOString().slice(0, 10);
  const oldest = addDays(today, -ACTIVITY_HISTORY_DAYS + 1);
  const from = range.startDate < oldest ? oldest : range.startDate;
  const last = addDays(range.endDate, -1);
  const to = last > addDays(today, 1) ? addDays(today, 1) : last;
  return from <= to ? { from, to } : null;
}

async function list<T>(http: ProviderHttp, path: string, key: string): Promise<T[]> {
  const body = await http.json<Record<string, T[] | undefined>>({
    url: `${POLAR_API}${path}`,
    absentOn: [204, 404],
  });
  return body?.[key] ?? [];
}

/** Needed by the athlete and body rows; absent until the user has set it up in Flow. */
const physicalInfo = (http: ProviderHttp) =>
  http.json<PolarPhysicalInfo>({ url: `${POLAR_API}/users/physical-info`, absentOn: [204, 404] });

/**
 * Each exercise's FIT file (GET /v3/exercises/{exerciseId}/fit: 200 binary, 404 not found, 403
 * mandatory consents not accepted), kept as its original (output format fit). The exercise's
 * own samples come from its JSON; only the original is read from the file. A file already kept is
 * not fetched again (a recorded exercise's file does not change; each costs a request).
 */
async function exerciseFits(
  args: Pick<TypeFetchArgs, 'http' | 'originalsKept'>,
  exercises: readonly PolarExercise[],
): Promise<OriginalFile[]> {
  const ids = exercises.map(({ id }) => id).filter((id): id is string => typeof id === 'string' && id !== '');
  const kept = (await args.originalsKept?.(ids)) ?? new Set<string>();
  const originals: OriginalFile[] = [];
  for (const id of ids) {
    if (kept.has(id)) continue;
    const file = await fetchOriginalFit(args.http, id, {
      url: `${POLAR_API}/exercises/${encodeURIComponent(id)}/fit`,
      absentOn: [204, 403, 404],
    });
    if (file) originals.push(file);
  }
  return originals;
}

export const polarFetchers = {
  async *activity(args) {
    const exercises = await args.http.json<PolarExercise[]>({
      url: `${POLAR_API}/exercises`,
      query: { samples: true, zones: true, route: true },
    });
    const range = { startDate: args.startDate, endDate: args.endDate };
    const inRange = (exercises ?? []).filter((item) => within(item.start_time, range));
    // A few exercises a page: each page holds their FIT files (up to the original-file limit
    // each) until it is stored, so the files of a month never sit in memory at once.
    for (let start = 0; start < inRange.length || start === 0; start += EXERCISES_PER_PAGE) {
      const exercise = inRange.slice(start, start + EXERCISES_PER_PAGE);
      const records = polarNormalizers.exercise.normalize({ exercise }, contextOf(args));
      yield { records, raw: exercise, originals: await exerciseFits(args, exercise) };
    }
  },

  async *daily(args) {
    for (const range of dayChunks(args.startDate, args.endDate, POLAR_CHUNK_DAYS)) {
      const served = servedRange(args, range);
      if (!served) continue;
      const activities = await args.http.json<PolarActivity[]>({
        url: `${POLAR_API}/users/activities`,
        query: { ...served, steps: true, activity_zones: true, inactivity_stamps: true },
        absentOn: [204],
      });
      const heart = await args.http.json<{ heart_rates?: PolarContinuousHeartRate[] }>({
        url: `${POLAR_API}/users/continuous-heart-rate`,
        query: served,
        absentOn: [204, 404],
      });
      const payload = { activity_summary: activities ?? [], continuous_heart_rate: heart?.heart_rates ?? [] };
      yield { records: polarNormalizers.activity_summary.normalize(payload, contextOf(args)), raw: payload };
    }
  },

  async *sleep(args) {
    const range = { startDate: args.startDate, endDate: args.endDate };
    const inRange = (item: { date: string }) => item.date >= args.startDate && item.date < args.endDate;
    const payload = {
      sleep: (await list<PolarNight>(args.http, '/users/sleep', 'nights')).filter(inRange),
      nightly_recharge: (
        await list<PolarNightlyRecharge>(args.http, '/users/nightly-recharge', 'recharges')
      ).filter((item) => within(item.date, range)),
    };
    yield { records: polarNormalizers.sleep.normalize(payload, contextOf(args)), raw: payload };
  },

  async *body(args) {
    const info = await physicalInfo(args.http);
    if (!info) return;
    yield {
      records: polarNormalizers.physical_information.normalize(
        { physical_information: info },
        contextOf(args),
      ),
      raw: info,
    };
  },

  async *athlete(args) {
    const user = await args.http.json<PolarUser>({
      url: `${POLAR_API}/users/${encodeURIComponent(args.user.providerUserId ?? '')}`,
    });
    if (!user) return;
    const info = await physicalInfo(args.http);
    const payload = { user, ...(info ? { physical_information: info } : {}) };
    yield { records: polarNormalizers.user.normalize(payload, contextOf(args)), raw: payload };
  },
} satisfies Record<string, TypeFetcher>;
