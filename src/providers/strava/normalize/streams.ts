// Strava activity streams -> the Activity's sample arrays, timestamped from start_date + the
// `time` stream (seconds since start), which also becomes timer_duration_seconds.
//
// Cannot map: `temp` (the Activity model has no temperature), `moving` and `grade_smooth` (no
// slot). Without a `time` stream no sample can be placed in time, so none is produced. Cadence is
// copied as Strava reports it (rpm; for runs Strava counts one foot).
import type { PositionSample } from '../../../model/samples.ts';
import { formatDateTime } from '../../../model/time.ts';
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import type { StravaLatLng, StravaStreamList, StravaStreamSet, StravaStreamType } from './types.ts';

/** Accepts the keyed StreamSet (`key_by_type=true`) or the plain array of streams. */
export function streamSetOf(streams: StravaStreamSet | StravaStreamList | null | undefined): StravaStreamSet {
  if (!streams) return {};
  if (!Array.isArray(streams)) return streams as StravaStreamSet;
  const set: Record<string, unknown> = {};
  for (const stream of streams as StravaStreamList) set[stream.type] = stream;
  return set as StravaStreamSet;
}

type Timed = { timestamp: string; timer_duration_seconds: number };

export type StreamSamples = {
  hr_samples: (Timed & { bpm: number })[];
  speed_samples: (Timed & { speed_meters_per_second: number })[];
  cadence_samples: (Timed & { cadence_rpm: number })[];
  power_samples: (Timed & { watts: number })[];
  position_samples: PositionSample[];
  distance_samples: (Timed & { distance_meters: number })[];
  elevation_samples: (Timed & { elev_meters: number })[];
  /** Total number of samples produced, for throughput accounting. */
  count: number;
};

function numbers(set: StravaStreamSet, key: Exclude<StravaStreamType, 'latlng' | 'moving'>) {
  return (set[key]?.data ?? []) as readonly (number | null)[];
}

/**
 * One loop per stream over precomputed timestamps: the timestamp strings are built once and
 * shared by every series, and each sample is a fresh literal (no spreading), which keeps the
 * normalizer well above 100k samples/s.
 */
export function streamSamples(set: StravaStreamSet, startMs: number, offsetMinutes: number): StreamSamples {
  const time = numbers(set, 'time');
  const length = time.length;
  // A sample without its time cannot be placed: its timestamp stays null and it is skipped
  // (never stamped at the start time).
  const timestamps: (string | null)[] = new Array(length);
  for (let index = 0; index < length; index++) {
    const seconds = time[index];
    timestamps[index] =
      typeof seconds === 'number' && Number.isFinite(seconds)
        ? formatDateTime(startMs + seconds * 1000, offsetMinutes)
        : null;
  }

  function series<S>(
    data: readonly (number | null)[],
    make: (timestamp: string, seconds: number, value: number) => S,
    measured: (value: number) => boolean = Number.isFinite,
  ): S[] {
    const out: S[] = [];
    const end = Math.min(length, data.length);
    for (let index = 0; index < end; index++) {
      const value = data[index];
      const timestamp = timestamps[index];
      if (value === null || value === undefined || !timestamp || !measured(value)) continue;
      out.push(make(timestamp, time[index] as number, value));
    }
    return out;
  }

  const hr_samples = series(
    numbers(set, 'heartrate'),
    (timestamp, seconds, bpm) => ({
      timestamp,
      bpm,
      timer_duration_seconds: seconds,
    }),
    (bpm) => heartRate(bpm) !== null,
  );
  const speed_samples = series(numbers(set, 'velocity_smooth'), (timestamp, seconds, speed) => ({
    timestamp,
    speed_meters_per_second: speed,
    timer_duration_seconds: seconds,
  }));
  const cadence_samples = series(numbers(set, 'cadence'), (timestamp, seconds, cadence) => ({
    timestamp,
    cadence_rpm: cadence,
    timer_duration_seconds: seconds,
  }));
  const power_samples = series(numbers(set, 'watts'), (timestamp, seconds, watts) => ({
    timestamp,
    watts,
    timer_duration_seconds: seconds,
  }));
  const distance_samples = series(numbers(set, 'distance'), (timestamp, seconds, distance) => ({
    timestamp,
    distance_meters: distance,
    timer_duration_seconds: seconds,
  }));
  const elevation_samples = series(numbers(set, 'altitude'), (timestamp, seconds, altitude) => ({
    timestamp,
    elev_meters: altitude,
    timer_duration_seconds: seconds,
  }));

  const latlng = (set.latlng?.data ?? []) as readonly (StravaLatLng | null)[];
  const position_samples: PositionSample[] = [];
  const end = Math.min(length, latlng.length);
  for (let index = 0; index < end; index++) {
    const point = latlng[index];
    const timestamp = timestamps[index];
    if (point?.length !== 2 || !timestamp) continue;
    position_samples.push({
      timestamp,
      coords_lat_lng_deg: [point[0] as number, point[1] as number],
      timer_duration_seconds: time[index] as number,
    });
  }

  return {
    hr_samples,
    speed_samples,
    cadence_samples,
    power_samples,
    position_samples,
    distance_samples,
    elevation_samples,
    count:
      hr_samples.length +
      speed_samples.length +
      cadence_samples.length +
      power_samples.length +
      position_samples.length +
      distance_samples.length +
      elevation_samples.length,
  };
}

/** Maximum of a numeric stream (heart-rate placeholders skipped); null when absent or empty. */
export function streamMax(
  set: StravaStreamSet,
  key: 'cadence' | 'heartrate' | 'watts' | 'velocity_smooth',
): number | null {
  const data = numbers(set, key);
  let max: number | null = null;
  for (const raw of data) {
    const value = key === 'heartrate' ? heartRate(raw) : raw;
    if (value !== null && value !== undefined && Number.isFinite(value) && (max === null || value > max))
      max = value;
  }
  return max;
}
