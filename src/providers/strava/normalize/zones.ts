// Strava heart-rate zones -> HeartRateZoneData[] (Activity heart_rate_data.summary.hr_zone_data).
//
// Two sources, best first: the activity's own zones (GET /activities/{id}/zones, type
// `heartrate`: seconds per bpm range, a subscriber feature), else the athlete's zones
// (GET /athlete/zones: bpm ranges) applied to the heart-rate stream. Strava's five zones are
// HeartRateZone 1-5 (it has no zone 0). Percentages of max HR are filled only when the context
// knows the user's max HR. Power zones have no slot in the model.
import { HeartRateZone } from '../../../model/enums.ts';
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import type { NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import type { StravaActivityZone, StravaStreamSet, StravaZoneRange, StravaZones } from './types.ts';

type ZoneCode = (typeof HeartRateZone)[keyof typeof HeartRateZone];

export type ZoneData = {
  zone: ZoneCode;
  start_percentage: number | null;
  end_percentage: number | null;
  name: string;
  duration_seconds: number;
};

function zoneCode(index: number, count: number): ZoneCode {
  const code = count <= 5 ? index + 1 : count === 6 ? index : HeartRateZone.OTHER;
  return (code >= 0 && code <= 6 ? code : HeartRateZone.OTHER) as ZoneCode;
}

function describe(range: StravaZoneRange, index: number, context: NormalizeContext, count: number) {
  const open = range.max < 0;
  const maxHr = context.maxHeartRate ?? null;
  return {
    zone: zoneCode(index, count),
    start_percentage: maxHr ? (range.min / maxHr) * 100 : null,
    end_percentage: maxHr && !open ? (range.max / maxHr) * 100 : null,
    name: open ? `Z${index + 1} (${range.min}+ bpm)` : `Z${index + 1} (${range.min}-${range.max} bpm)`,
  };
}

export function zonesFromActivityZones(
  zones: readonly StravaActivityZone[] | null | undefined,
  context: NormalizeContext,
): ZoneData[] | null {
  const heart = zones?.find((zone) => zone.type === 'heartrate');
  if (!heart) return null;
  const buckets = heart.distribution_buckets;
  return buckets.map((bucket, index) => ({
    ...describe(bucket, index, context, buckets.length),
    duration_seconds: bucket.time,
  }));
}

/**
 * Time in each athlete zone from the heart-rate and time streams: each sample's bpm holds until
 * the next sample. A bpm equal to a bound belongs to the higher zone, as Strava's ranges share
 * their bounds ({min: 0, max: 123}, {min: 123, ...}).
 */
export function zonesFromStreams(
  athleteZones: StravaZones | null | undefined,
  set: StravaStreamSet,
  context: NormalizeContext,
): ZoneData[] | null {
  const ranges = athleteZones?.heart_rate?.zones;
  const heart = set.heartrate?.data;
  const time = set.time?.data;
  if (!ranges || ranges.length === 0 || !heart || !time || heart.length === 0) return null;
  const seconds = new Array<number>(ranges.length).fill(0);
  const end = Math.min(heart.length, time.length);
  for (let index = 0; index + 1 < end; index++) {
    // Placeholders (0, 255) and samples without times build no zone time.
    const bpm = heartRate(heart[index]);
    const from = time[index];
    const to = time[index + 1];
    if (bpm === null || typeof from !== 'number' || typeof to !== 'number') continue;
    let zone = ranges.length - 1;
    while (zone > 0 && bpm < (ranges[zone] as StravaZoneRange).min) zone--;
    seconds[zone] = (seconds[zone] as number) + (to - from);
  }
  return ranges.map((range, index) => ({
    ...describe(range, index, context, ranges.length),
    duration_seconds: seconds[index] as number,
  }));
}
