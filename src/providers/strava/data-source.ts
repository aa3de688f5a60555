// Strava API v3 reads (docs/providers.md#strava): activities listed by `after` / `before`
// (epoch seconds) in numbered pages, then per activity its detail (calories, laps), streams
// (heart rate, speed, cadence, power, position, altitude, …) and heart-rate zones; the
// athlete's zones once per fetch when the profile scope was granted. Strava has activities and
// the athlete only.
import { type DayRange, dayChunks, numberedPages } from '../../provider-kit/pagination.ts';
import type { ProviderHttp, TypeFetchArgs, TypeFetcher } from '../../provider-kit/api.ts';
import { addDays, localMidnightMs } from '../../model/time.ts';
import type { NormalizeContext } from '../../provider-kit/normalize/normalize.ts';
import {
  type StravaActivity,
  type StravaActivityPayload,
  type StravaActivityZone,
  type StravaAthlete,
  type StravaLap,
  type StravaStreamSet,
  type StravaZones,
  stravaNormalizers,
} from './normalize/index.ts';

export const STRAVA_API = 'https://www.strava.com/api/v3';
export const STRAVA_CHUNK_DAYS = 30;
const PER_PAGE = 100;
const STREAM_KEYS =
  'time,distance,latlng,altitude,velocity_smooth,heartrate,cadence,watts,temp,moving,grade_smooth';

const epochSeconds = (isoDate: string) => Math.floor(localMidnightMs(isoDate) / 1000);
const contextOf = (args: TypeFetchArgs): NormalizeContext => ({
  userOffsetMinutes: null,
  now: args.now.getTime(),
});

/** An activity with everything its normalizer reads; null when it vanished meanwhile. */
export async function activityPayload(
  http: ProviderHttp,
  id: string | number,
  athleteZones: StravaZones | null,
): Promise<StravaActivityPayload | null> {
  const path = `${STRAVA_API}/activities/${encodeURIComponent(String(id))}`;
  const activity = await http.json<StravaActivity>({ url: path, absentOn: [404] });
  if (!activity) return null;
  const streams = await http.json<StravaStreamSet>({
    url: `${path}/streams`,
    query: { keys: STREAM_KEYS, key_by_type: true },
    absentOn: [404],
  });
  // The detail carries its laps; the laps route is the fallback for answers without them.
  const laps = activity.laps ?? (await http.json<StravaLap[]>({ url: `${path}/laps`, absentOn: [404] }));
  // Zones are a subscriber feature: 402/403 for everyone else.
  const zones = await http.json<StravaActivityZone[]>({ url: `${path}/zones`, absentOn: [402, 403, 404] });
  return { activity, streams, laps, activity_zones: zones, athlete_zones: athleteZones };
}

async function athleteZonesOf(args: TypeFetchArgs): Promise<StravaZones | null> {
  const granted = (args.user.scopes ?? '').split(/[\s,]+/);
  if (!granted.includes('profile:read_all')) return null;
  return args.http.json<StravaZones>({ url: `${STRAVA_API}/athlete/zones`, absentOn: [402, 403, 404] });
}

function summaries(http: ProviderHttp, range: DayRange) {
  // A day of margin each side: `after`/`before` are instants, the range is local days.
  return numberedPages<StravaActivity>(
    http,
    {
      url: `${STRAVA_API}/athlete/activities`,
      query: {
        after: epochSeconds(addDays(range.startDate, -1)),
        before: epochSeconds(addDays(range.endDate, 1)),
      },
    },
    { pageParam: 'page', perPageParam: 'per_page', perPage: PER_PAGE },
  );
}

export const stravaFetchers = {
  async *activity(args) {
    // Read once, and only when there is an activity to place in them.
    let zones: StravaZones | null | undefined;
    for (const range of dayChunks(args.startDate, args.endDate, STRAVA_CHUNK_DAYS)) {
      for await (const page of summaries(args.http, range)) {
        if (zones === undefined) zones = await athleteZonesOf(args);
        const records = [];
        for (const summary of page) {
          const payload = await activityPayload(args.http, summary.id, zones);
          if (payload) records.push(...stravaNormalizers.activity.normalize(payload, contextOf(args)));
        }
        yield { records, raw: page };
      }
    }
  },

  async *athlete(args) {
    const athlete = await args.http.json<StravaAthlete>({ url: `${STRAVA_API}/athlete` });
    if (athlete)
      yield { records: stravaNormalizers.athlete.normalize({ athlete }, contextOf(args)), raw: athlete };
  },
} satisfies Record<string, TypeFetcher>;
