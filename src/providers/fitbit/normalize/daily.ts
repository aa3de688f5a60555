// Google Health daily activity -> Daily, one per local day that has any of: `steps`, `distance`,
// `floors`, `active-energy-burned` (interval records, summed per local day of their start),
// `heart-rate` (samples: the intraday series and the day's average/min/max from it) and
// `daily-resting-heart-rate`. The day's offset is that of its first record.
// Heart rates of 0/255 are not readings. Distance mm -> m.
// Cannot map: BMR / total calories (Google's total-calories type is not read), active minutes by
// level and active zone minutes (no field for the zone minutes), sedentary periods.
import { HeartRateContext, UploadType } from '../../../model/enums.ts';
import type { Daily } from '../../../model/daily.ts';
import { localIsoDate } from '../../../model/time.ts';
import {
  dayBoundsOf,
  localizationOf,
  type NormalizeContext,
  statsOf,
} from '../../../provider-kit/normalize/normalize.ts';
import { heartRateOrNull, instantMs, int64, isoOf, numberOrNull, offsetMinutes, wire } from './time.ts';
import type { DataPoint, TimeInterval } from './types.ts';

export type FitbitDailyPayload = {
  steps: readonly DataPoint[];
  distance?: readonly DataPoint[];
  floors?: readonly DataPoint[];
  'active-energy-burned'?: readonly DataPoint[];
  'heart-rate'?: readonly DataPoint[];
  'daily-resting-heart-rate'?: readonly DataPoint[];
};

type Day = {
  offset: number;
  steps: number | null;
  distanceM: number | null;
  floors: number | null;
  activeKcal: number | null;
  stepSamples: { timestamp: string; steps: number; timer_duration_seconds: number | null }[];
  hr: { timestamp: string; bpm: number; context: 0 }[];
  resting: number | null;
};

const add = (total: number | null, value: number | null) => (value === null ? total : (total ?? 0) + value);

export function normalizeDailies(payload: FitbitDailyPayload, context: NormalizeContext): Daily[] {
  const days = new Map<string, Day>();
  const dayAt = (atMs: number, offset: number) => {
    const key = localIsoDate(atMs, offset);
    let day = days.get(key);
    if (!day) {
      day = {
        offset,
        steps: null,
        distanceM: null,
        floors: null,
        activeKcal: null,
        stepSamples: [],
        hr: [],
        resting: null,
      };
      days.set(key, day);
    }
    return day;
  };
  const intervals = (
    points: readonly DataPoint[] | undefined,
    pick: (point: DataPoint) => { interval?: TimeInterval; value: number | null } | undefined,
    apply: (day: Day, value: number, startMs: number, endMs: number | null, offset: number) => void,
  ) => {
    for (const point of points ?? []) {
      const found = point ? pick(point) : undefined;
      const startMs = instantMs(found?.interval?.startTime);
      if (!found || startMs === null || found.value === null || found.value < 0) continue;
      const offset = offsetMinutes(
        startMs,
        found.interval?.startUtcOffset,
        found.interval?.civilStartTime,
        context,
      );
      apply(dayAt(startMs, offset), found.value, startMs, instantMs(found.interval?.endTime), offset);
    }
  };
  intervals(
    payload.steps,
    (p) => p.steps && { interval: p.steps.interval, value: int64(p.steps.count) },
    (day, value, startMs, endMs, offset) => {
      day.steps = add(day.steps, value);
      day.stepSamples.push({
        timestamp: wire(startMs, offset),
        steps: value,
        timer_duration_seconds: endMs === null ? null : (endMs - startMs) / 1000,
      });
    },
  );
  intervals(
    payload.distance,
    (p) => p.distance && { interval: p.distance.interval, value: numberOrNull(p.distance.millimeters) },
    (day, value) => {
      day.distanceM = add(day.distanceM, value / 1000);
    },
  );
  intervals(
    payload.floors,
    (p) => p.floors && { interval: p.floors.interval, value: int64(p.floors.count) },
    (day, value) => {
      day.floors = add(day.floors, value);
    },
  );
  intervals(
    payload['active-energy-burned'],
    (p) =>
      p.activeEnergyBurned && {
        interval: p.activeEnergyBurned.interval,
        value: numberOrNull(p.activeEnergyBurned.kcal),
      },
    (day, value) => {
      day.activeKcal = add(day.activeKcal, value);
    },
  );
  for (const point of payload['heart-rate'] ?? []) {
    const sample = point?.heartRate;
    const atMs = instantMs(sample?.sampleTime?.physicalTime);
    const bpm = heartRateOrNull(int64(sample?.beatsPerMinute));
    if (atMs === null || bpm === null) continue;
    const offset = offsetMinutes(atMs, sample?.sampleTime?.utcOffset, sample?.sampleTime?.civilTime, context);
    dayAt(atMs, offset).hr.push({ timestamp: wire(atMs, offset), bpm, context: HeartRateContext.NOT_SET });
  }
  for (const point of payload['daily-resting-heart-rate'] ?? []) {
    const date = isoOf(point?.dailyRestingHeartRate?.date);
    const bpm = heartRateOrNull(int64(point?.dailyRestingHeartRate?.beatsPerMinute));
    if (!date || bpm === null) continue;
    const existing = days.get(date);
    if (existing) existing.resting = bpm;
    else
      days.set(date, {
        offset: context.userOffsetMinutes ?? 0,
        steps: null,
        distanceM: null,
        floors: null,
        activeKcal: null,
        stepSamples: [],
        hr: [],
        resting: bpm,
      });
  }
  const records: Daily[] = [];
  for (const [date, day] of [...days].sort(([a], [b]) => a.localeCompare(b))) {
    const hr = statsOf(day.hr.map((sample) => sample.bpm));
    records.push({
      metadata: {
        ...dayBoundsOf(date, day.offset),
        upload_type: UploadType.AUTOMATIC,
        timestamp_localization: localizationOf(day.offset),
      },
      distance_data: {
        steps: day.steps,
        distance_meters: day.distanceM,
        floors_climbed: day.floors,
        detailed: { step_samples: day.stepSamples.sort((a, b) => a.timestamp.localeCompare(b.timestamp)) },
      },
      calories_data: { net_activity_calories: day.activeKcal },
      heart_rate_data: {
        summary: { avg_hr_bpm: hr.avg, min_hr_bpm: hr.min, max_hr_bpm: hr.max, resting_hr_bpm: day.resting },
        detailed: { hr_samples: day.hr.sort((a, b) => a.timestamp.localeCompare(b.timestamp)) },
      },
    });
  }
  return records;
}
