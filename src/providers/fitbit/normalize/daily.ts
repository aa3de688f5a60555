// Google Health daily activity -> Daily, one per local day that has any of:
// - `rollups`: `dataPoints:dailyRollUp` windows (one civil day each) of `steps` (countSum),
//   `distance` (millimetersSum), `floors` (countSum), `active-energy-burned` and `total-calories`
//   (kcalSum). A rollup is Google's total over the reconciled stream of every source, without the
//   points a watch wrote while not worn: the day's totals are these, never a sum of raw points
//   (a phone and a watch both count the same walk). A day missing from a rollup is not a zero.
// - `steps`, `heart-rate`: reconciled points (`dataPoints:reconcile`), the intraday step and heart
//   rate series; the day's average/min/max heart rate comes from its series.
// - `daily-resting-heart-rate` by its civil date.
// The day's offset is that of its first intraday point (rollups carry civil times only), else the
// user's, else UTC. Heart rates of 0/255 are not readings. Distance mm -> m.
// Cannot map: BMR (Google gives no basal total in a rollup; total − active is not it), active
// minutes by level and active zone minutes (no field for the zone minutes), sedentary periods.
import { HeartRateContext, UploadType } from '../../../model/enums.ts';
import type { Daily } from '../../../model/daily.ts';
import { addDays, localIsoDate } from '../../../model/time.ts';
import {
  dayBoundsOf,
  localizationOf,
  type NormalizeContext,
  statsOf,
} from '../../../provider-kit/normalize/normalize.ts';
import { heartRateOrNull, instantMs, int64, isoOf, numberOrNull, offsetMinutes, wire } from './time.ts';
import type { DataPoint, RollupPoint } from './types.ts';

export type FitbitDailyPayload = {
  /** Day windows of `dataPoints:dailyRollUp`, by the data type rolled up. */
  rollups?: Readonly<Record<string, readonly RollupPoint[]>>;
  steps?: readonly DataPoint[];
  'heart-rate'?: readonly DataPoint[];
  'daily-resting-heart-rate'?: readonly DataPoint[];
};

type Totals = {
  steps: number | null;
  distanceM: number | null;
  floors: number | null;
  activeKcal: number | null;
  totalKcal: number | null;
};
type Day = Totals & {
  offset: number | null;
  stepSamples: { timestamp: string; steps: number; timer_duration_seconds: number | null }[];
  hr: { timestamp: string; bpm: number; context: 0 }[];
  resting: number | null;
};

/** Where each rollup's total is read, and which total it is. */
const ROLLUP_FIELDS: readonly { key: keyof Totals; read: (point: RollupPoint) => number | null }[] = [
  { key: 'steps', read: (point) => int64(point.steps?.countSum) },
  {
    key: 'distanceM',
    read: (point) => {
      const mm = int64(point.distance?.millimetersSum);
      return mm === null ? null : mm / 1000;
    },
  },
  { key: 'floors', read: (point) => int64(point.floors?.countSum) },
  { key: 'activeKcal', read: (point) => numberOrNull(point.activeEnergyBurned?.kcalSum) },
  { key: 'totalKcal', read: (point) => numberOrNull(point.totalCalories?.kcalSum) },
];

export function normalizeDailies(payload: FitbitDailyPayload, context: NormalizeContext): Daily[] {
  const days = new Map<string, Day>();
  const dayOf = (date: string) => {
    let day = days.get(date);
    if (!day) {
      day = {
        offset: null,
        steps: null,
        distanceM: null,
        floors: null,
        activeKcal: null,
        totalKcal: null,
        stepSamples: [],
        hr: [],
        resting: null,
      };
      days.set(date, day);
    }
    return day;
  };
  /** The day of an instant at its own offset; the first offset seen is the day's. */
  const dayAt = (atMs: number, offset: number) => {
    const day = dayOf(localIsoDate(atMs, offset));
    day.offset ??= offset;
    return day;
  };

  for (const points of Object.values(payload.rollups ?? {})) {
    for (const point of points ?? []) {
      const start = isoOf(point?.civilStartTime?.date);
      const end = isoOf(point?.civilEndTime?.date);
      // A window of one civil day; a wider one is not a day's total.
      if (!start || (end !== null && end !== addDays(start, 1))) continue;
      for (const field of ROLLUP_FIELDS) {
        const value = field.read(point);
        if (value !== null && value >= 0) dayOf(start)[field.key] = value;
      }
    }
  }
  for (const point of payload.steps ?? []) {
    const interval = point?.steps?.interval;
    const startMs = instantMs(interval?.startTime);
    const count = int64(point?.steps?.count);
    if (startMs === null || count === null || count < 0) continue;
    const offset = offsetMinutes(startMs, interval?.startUtcOffset, interval?.civilStartTime, context);
    const endMs = instantMs(interval?.endTime);
    dayAt(startMs, offset).stepSamples.push({
      timestamp: wire(startMs, offset),
      steps: count,
      timer_duration_seconds: endMs === null ? null : (endMs - startMs) / 1000,
    });
  }
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
    if (date && bpm !== null) dayOf(date).resting = bpm;
  }

  const records: Daily[] = [];
  for (const [date, day] of [...days].sort(([a], [b]) => a.localeCompare(b))) {
    const offset = day.offset ?? context.userOffsetMinutes ?? 0;
    const hr = statsOf(day.hr.map((sample) => sample.bpm));
    records.push({
      metadata: {
        ...dayBoundsOf(date, offset),
        upload_type: UploadType.AUTOMATIC,
        timestamp_localization: localizationOf(offset),
      },
      distance_data: {
        steps: day.steps,
        distance_meters: day.distanceM,
        floors_climbed: day.floors,
        detailed: { step_samples: day.stepSamples.sort((a, b) => a.timestamp.localeCompare(b.timestamp)) },
      },
      calories_data: { net_activity_calories: day.activeKcal, total_burned_calories: day.totalKcal },
      heart_rate_data: {
        summary: { avg_hr_bpm: hr.avg, min_hr_bpm: hr.min, max_hr_bpm: hr.max, resting_hr_bpm: day.resting },
        detailed: { hr_samples: day.hr.sort((a, b) => a.timestamp.localeCompare(b.timestamp)) },
      },
    });
  }
  return records;
}
