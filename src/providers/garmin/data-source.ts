// Garmin Health / Activity API reads (providers-3.md §2, docs/providers.md#garmin). Garmin serves
// summaries by *upload* time, never by the day they describe: a pull names an upload window of at
// most 24 h (`uploadStartTimeInSeconds`, `uploadEndTimeInSeconds`), which is also what a ping's
// callback URL names. A fetch of local days [startDate, endDate) therefore pulls the uploads of
// those days and of the day after (a night is uploaded the next morning), window by window, and
// normalizes what came back together (a day's summary and its epochs may arrive in different
// uploads). History beyond that is Garmin's backfill: a request for a summary-time range (at most
// 90 days, within Garmin's history) that Garmin answers by re-sending the summaries as pings;
// those arrive as notifications (connector.ts) and are pulled like any upload. Backfill is asked
// only for days older than BACKFILL_AFTER_DAYS, so the refetch a ping causes never asks again.
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import { addDays, isoDateToDayNumber, MS_PER_DAY } from '../../model/time.ts';
import { garminNormalizers } from './normalize/index.ts';

export const GARMIN_API = 'https://apis.garmin.com/wellness-api/rest';
export const GARMIN_USER_ID_URL = 'https://apis.garmin.com/partner-gateway/rest/user/id';
/** Days one backfill job covers; Garmin takes at most 90 days per backfill request. */
export const GARMIN_CHUNK_DAYS = 30;
const BACKFILL_MAX_DAYS = 90;
/** Garmin keeps (and backfills) this much history. */
export const GARMIN_HISTORY_DAYS = 5 * 365;
/** Days recent enough that their uploads are pulled, not backfilled again. */
export const BACKFILL_AFTER_DAYS = 2;
const WINDOW_SECONDS = 86_400;

/** Garmin's summary types: the key in notification bodies -> its pull / backfill path. */
export const SUMMARY_PATHS = {
  dailies: 'dailies',
  epochs: 'epochs',
  stressDetails: 'stressDetails',
  pulseox: 'pulseox',
  sleeps: 'sleeps',
  hrv: 'hrv',
  allDayRespiration: 'respiration',
  bodyComps: 'bodyComps',
  userMetrics: 'userMetrics',
  activities: 'activities',
  activityDetails: 'activityDetails',
  manuallyUpdatedActivities: 'manuallyUpdatedActivities',
  mct: 'mct',
} as const;
export type SummaryKind = keyof typeof SUMMARY_PATHS;

const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});
const seconds = (isoDate: string) => (isoDateToDayNumber(isoDate) * MS_PER_DAY) / 1000;

/** Upload windows (≤ 24 h, not past now) covering the uploads of [startDate, endDate + 1 day). */
export function uploadWindows(
  startDate: string,
  endDate: string,
  now: Date,
): { start: number; end: number }[] {
  // Through the current second: an upload stamped this very second is in the window.
  const nowSeconds = Math.floor(now.getTime() / 1000) + 1;
  const last = Math.min(seconds(addDays(endDate, 1)), nowSeconds);
  const windows: { start: number; end: number }[] = [];
  for (let start = seconds(startDate); start < last; start += WINDOW_SECONDS)
    windows.push({ start, end: Math.min(start + WINDOW_SECONDS, last) });
  return windows;
}

/** Asks Garmin to re-send the older part of the range (202; 409 when already asked). */
async function requestBackfill(http: ProviderHttp, kinds: readonly SummaryKind[], args: TypeFetchArgs) {
  const today = args.now.toISOString().slice(0, 10);
  const oldest = addDays(today, -GARMIN_HISTORY_DAYS);
  const from = args.startDate < oldest ? oldest : args.startDate;
  const recent = addDays(today, -BACKFILL_AFTER_DAYS);
  const to = args.endDate > recent ? recent : args.endDate;
  for (let start = from; start < to; start = addDays(start, BACKFILL_MAX_DAYS)) {
    const end = addDays(start, BACKFILL_MAX_DAYS) < to ? addDays(start, BACKFILL_MAX_DAYS) : to;
    for (const kind of kinds)
      await http.json({
        url: `${GARMIN_API}/backfill/${SUMMARY_PATHS[kind]}`,
        query: { summaryStartTimeInSeconds: seconds(start), summaryEndTimeInSeconds: seconds(end) },
        absentOn: [409],
      });
  }
}

/** Every summary of `kinds` uploaded in the fetch's windows, keyed by kind. */
async function pullUploads(
  http: ProviderHttp,
  kinds: readonly SummaryKind[],
  args: TypeFetchArgs,
): Promise<Record<SummaryKind, unknown[]>> {
  const payload = Object.fromEntries(kinds.map((kind) => [kind, [] as unknown[]])) as Record<
    SummaryKind,
    unknown[]
  >;
  for (const window of uploadWindows(args.startDate, args.endDate, args.now)) {
    for (const kind of kinds) {
      const list = await http.json({
        url: `${GARMIN_API}/${SUMMARY_PATHS[kind]}`,
        query: { uploadStartTimeInSeconds: window.start, uploadEndTimeInSeconds: window.end },
        absentOn: [404],
      });
      if (list === null) continue;
      if (!Array.isArray(list))
        throw new ProviderDataError('unavailable', `Garmin ${kind} answered something other than a list`);
      payload[kind].push(...list.filter((item) => item !== null && typeof item === 'object'));
    }
  }
  return payload;
}

function summaryFetcher<P>(
  kinds: readonly SummaryKind[],
  normalize: (payload: P, context: NormalizeContext) => readonly unknown[],
): TypeFetcher {
  return async function* (args) {
    await requestBackfill(args.http, kinds, args);
    const payload = await pullUploads(args.http, kinds, args);
    let records: readonly unknown[];
    try {
      records = normalize(payload as P, contextOf(args));
    } catch (error) {
      // A shape no documented Garmin summary has: a clean provider error, never a TypeError upstream.
      throw new ProviderDataError(
        'unavailable',
        `Garmin ${kinds.join('/')} summaries could not be normalized`,
        {
          cause: error,
        },
      );
    }
    yield { records, raw: payload };
  };
}

const n = garminNormalizers;

export const garminFetchers = {
  daily: summaryFetcher(['dailies', 'epochs', 'stressDetails', 'pulseox'], n.dailies.normalize),
  sleep: summaryFetcher(['sleeps', 'hrv', 'allDayRespiration'], n.sleeps.normalize),
  body: summaryFetcher(['bodyComps', 'userMetrics'], n.bodyComps.normalize),
  activity: summaryFetcher(
    ['activities', 'activityDetails', 'manuallyUpdatedActivities'],
    n.activities.normalize,
  ),
  menstruation: summaryFetcher(['mct'], n.mct.normalize),
  async *athlete(args) {
    const body = await args.http.json<{ userId?: unknown }>({ url: GARMIN_USER_ID_URL });
    const userId = typeof body?.userId === 'string' ? body.userId : args.user.providerUserId;
    if (!userId) return;
    yield { records: n.user.normalize({ userId }, contextOf(args)), raw: body };
  },
} satisfies Record<string, TypeFetcher>;
