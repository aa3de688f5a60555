// Google Health API v4 reads for Fitbit users (providers.md §10, providers-3.md §3):
// `GET /v4/users/me/dataTypes/{dataType}/dataPoints?filter=…&pageSize=…&pageToken=…`, AIP-160
// filters on the data type's own time field (`exercise.interval.start_time`,
// `heart_rate.sample_time.physical_time`, `daily_resting_heart_rate.date`), at most 25 points a
// page for sessions (sleep, exercise) and 10,000 for the rest, `nextPageToken` to go on. A local
// day range [start, end) is asked as the UTC instants a day wider on each side (any offset), and
// the civil dates as they are for daily types. A 403 on one data type is a scope the user left
// unticked (Google's consent is granular): that type is skipped, the rest read.
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { collectCursor } from '../../provider-kit/pagination.ts';
import { addDays } from '../../model/time.ts';
import {
  fitbitNormalizers,
  fitbitNutrition,
  type DataPoint,
  type Identity,
  type Profile,
} from './normalize/index.ts';

export const GOOGLE_HEALTH_API = 'https://health.googleapis.com/v4';
export const FITBIT_CHUNK_DAYS = 14;

type TimeField = 'interval' | 'sample' | 'date';
/** Each data type read, with the field its time filter names. */
export const DATA_TYPES: Readonly<Record<string, TimeField>> = {
  exercise: 'interval',
  sleep: 'interval',
  steps: 'interval',
  distance: 'interval',
  floors: 'interval',
  'active-energy-burned': 'interval',
  'hydration-log': 'interval',
  'nutrition-log': 'interval',
  'heart-rate': 'sample',
  weight: 'sample',
  'body-fat': 'sample',
  'daily-resting-heart-rate': 'date',
  'daily-heart-rate-variability': 'date',
  'daily-respiratory-rate': 'date',
  'daily-oxygen-saturation': 'date',
  'daily-sleep-temperature-derivations': 'date',
  'daily-vo2-max': 'date',
};
const SESSION_TYPES = new Set(['exercise', 'sleep']);

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});
const snake = (dataType: string) => dataType.replace(/-/g, '_');
const utc = (isoDate: string) => `${isoDate}T00:00:00Z`;

/** The AIP-160 filter for a data type over [from, to) (instants or civil dates). */
export function rangeFilter(dataType: string, from: string, to: string): string {
  const kind = DATA_TYPES[dataType] ?? 'interval';
  const field =
    kind === 'interval'
      ? `${snake(dataType)}.interval.start_time`
      : kind === 'sample'
        ? `${snake(dataType)}.sample_time.physical_time`
        : `${snake(dataType)}.date`;
  return `${field} >= "${from}" AND ${field} < "${to}"`;
}

/** Every data point of one type in a range; null when the user did not grant its scope. */
export async function listPoints(
  http: ProviderHttp,
  dataType: string,
  range: { from: string; to: string },
): Promise<DataPoint[]> {
  const points = await collectCursor<unknown>(
    http,
    {
      url: `${GOOGLE_HEALTH_API}/users/me/dataTypes/${dataType}/dataPoints`,
      query: {
        filter: rangeFilter(dataType, range.from, range.to),
        pageSize: SESSION_TYPES.has(dataType) ? 25 : 10_000,
      },
      absentOn: [403, 404],
    },
    { param: 'pageToken', field: 'nextPageToken', items: 'dataPoints' },
  );
  return points.filter((point): point is DataPoint => point !== null && typeof point === 'object');
}

/** The range of a fetch for a data type: UTC instants a day wider, or the civil dates. */
function rangeOf(dataType: string, args: { startDate: string; endDate: string }) {
  return DATA_TYPES[dataType] === 'date'
    ? { from: args.startDate, to: args.endDate }
    : { from: utc(addDays(args.startDate, -1)), to: utc(addDays(args.endDate, 1)) };
}

async function payloadOf(http: ProviderHttp, dataTypes: readonly string[], args: TypeFetchArgs) {
  const payload: Record<string, DataPoint[]> = {};
  for (const dataType of dataTypes)
    payload[dataType] = await listPoints(http, dataType, rangeOf(dataType, args));
  return payload;
}

function normalized<P>(
  label: string,
  normalize: (payload: P, context: NormalizeContext) => readonly unknown[],
) {
  return (payload: P, context: NormalizeContext) => {
    try {
      return normalize(payload, context);
    } catch (error) {
      // A shape Google does not document: a clean provider error, never a TypeError upstream.
      throw new ProviderDataError('unavailable', `Google Health ${label} data could not be normalized`, {
        cause: error,
      });
    }
  };
}

function tableFetcher<P>(
  dataTypes: readonly string[],
  label: string,
  normalize: (payload: P, context: NormalizeContext) => readonly unknown[],
): TypeFetcher {
  const safe = normalized(label, normalize);
  return async function* (args) {
    const payload = await payloadOf(args.http, dataTypes, args);
    yield { records: safe(payload as P, contextOf(args)), raw: payload };
  };
}

const n = fitbitNormalizers;
const companionsOf = (kind: keyof typeof n) => [kind, ...n[kind].companions];

export const fitbitFetchers = {
  async *activity(args) {
    const exercise = await listPoints(args.http, 'exercise', rangeOf('exercise', args));
    // Google's exercise has no series: the heart rate inside each session is its series.
    const heart: DataPoint[] = [];
    for (const point of exercise) {
      const { startTime, endTime } = point.exercise?.interval ?? {};
      if (typeof startTime !== 'string' || typeof endTime !== 'string') continue;
      heart.push(...(await listPoints(args.http, 'heart-rate', { from: startTime, to: endTime })));
    }
    const payload = { exercise, 'heart-rate': heart };
    yield { records: normalized('exercise', n.exercise.normalize)(payload, contextOf(args)), raw: payload };
  },
  sleep: tableFetcher(companionsOf('sleep'), 'sleep', n.sleep.normalize),
  daily: tableFetcher(companionsOf('steps'), 'daily activity', n.steps.normalize),
  body: tableFetcher(companionsOf('weight'), 'body', n.weight.normalize),
  nutrition: tableFetcher(fitbitNutrition.kinds, 'nutrition', fitbitNutrition.normalize),
  async *athlete(args) {
    const identity = await args.http.json<Identity>({ url: `${GOOGLE_HEALTH_API}/users/me/identity` });
    const profile = await args.http.json<Profile>({
      url: `${GOOGLE_HEALTH_API}/users/me/profile`,
      absentOn: [403, 404],
    });
    const payload = { identity, profile };
    yield { records: n.profile.normalize(payload, contextOf(args)), raw: payload };
  },
} satisfies Record<string, TypeFetcher>;
