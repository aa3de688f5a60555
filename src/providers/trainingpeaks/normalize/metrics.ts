// TrainingPeaks metrics (wiki "v2 Metrics Get Athlete Metrics") -> Daily, Body, Sleep, one
// record of each per local day that has a value for it. Each entry has a local `DateTime`
// (minute precision, no offset): its day is the date written, its instant that wall time in the
// athlete's `TimeZone`, else the user's offset.
//
// Filled: `Steps` (the day's largest count, as entries are running totals or a single daily
// total: the wiki does not say which) -> daily steps; `WeightInKilograms` -> a body measurement
// at its time and the day's average; `Pulse` -> a body heart-rate sample at its time;
// `SleepHours` -> the day's sleep (hours x 3600 s, the day's largest entry). Not filled: `HRV`
// (the wiki names no method or unit), `Stress` and `SleepQuality` (words such as "Low", "Good"
// with no documented scale); sleep times and stages (none are given).
import type { Body } from '../../../model/body.ts';
import type { Daily } from '../../../model/daily.ts';
import { SleepUploadType, UploadType } from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import { formatDateTime, isIsoDate } from '../../../model/time.ts';
import { heartRate, positiveOrNull } from '../../../provider-kit/normalize/measures.ts';
import {
  dayBoundsOf,
  localizationOf,
  type NormalizeContext,
  statsOf,
} from '../../../provider-kit/normalize/normalize.ts';
import type { TpMetric } from './types.ts';
import { wallOffset } from './workout.ts';

/** One local day's metric entries. */
export type TpMetricDay = { date: string; metrics: readonly TpMetric[]; timezone: string | null };

/** Entries grouped by the local date they were recorded on. */
export function metricDays(metrics: readonly TpMetric[], timezone: string | null): TpMetricDay[] {
  const byDate = new Map<string, TpMetric[]>();
  for (const metric of metrics) {
    const date = typeof metric?.DateTime === 'string' ? metric.DateTime.slice(0, 10) : '';
    if (!isIsoDate(date)) continue;
    byDate.set(date, [...(byDate.get(date) ?? []), metric]);
  }
  return [...byDate.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([date, list]) => ({ date, metrics: list, timezone }));
}

const largest = (values: (number | null)[]) => {
  const present = values.filter((value): value is number => value !== null);
  return present.length ? Math.max(...present) : null;
};

function bounds(day: TpMetricDay, context: NormalizeContext) {
  const offset = wallOffset(`${day.date}T00:00:00`, day.timezone, context);
  return { offset, ...dayBoundsOf(day.date, offset) };
}

function instant(metric: TpMetric, day: TpMetricDay, context: NormalizeContext): string {
  const local = metric.DateTime.replace(' ', 'T').slice(0, 19);
  const offset = wallOffset(local, day.timezone, context);
  return formatDateTime(
    Date.parse(`${local.length === 16 ? `${local}:00` : local}Z`) - offset * 60_000,
    offset,
  );
}

export function normalizeMetricDaily(day: TpMetricDay, context: NormalizeContext): Daily[] {
  const steps = largest(day.metrics.map((metric) => positiveOrNull(metric.Steps)));
  if (steps === null) return [];
  const { offset, start_time, end_time } = bounds(day, context);
  return [
    {
      metadata: {
        start_time,
        end_time,
        upload_type: UploadType.UNKNOWN,
        timestamp_localization: localizationOf(offset),
      },
      distance_data: { steps },
    },
  ];
}

export function normalizeMetricBody(day: TpMetricDay, context: NormalizeContext): Body[] {
  const weights = day.metrics
    .filter((metric) => positiveOrNull(metric.WeightInKilograms) !== null)
    .map((metric) => ({
      measurement_time: instant(metric, day, context),
      weight_kg: metric.WeightInKilograms!,
    }));
  const pulses = day.metrics
    .filter((metric) => heartRate(metric.Pulse) !== null)
    .map((metric) => ({ timestamp: instant(metric, day, context), bpm: metric.Pulse!, context: 0 as const }));
  if (weights.length === 0 && pulses.length === 0) return [];
  const { offset, start_time, end_time } = bounds(day, context);
  return [
    {
      metadata: { start_time, end_time, timestamp_localization: localizationOf(offset) },
      measurements_data: weights.length
        ? { measurements: weights, day_avg_weight_kg: statsOf(weights.map((entry) => entry.weight_kg)).avg }
        : null,
      heart_data: pulses.length ? { heart_rate_data: { detailed: { hr_samples: pulses } } } : null,
    },
  ];
}

export function normalizeMetricSleep(day: TpMetricDay, context: NormalizeContext): Sleep[] {
  const hours = largest(day.metrics.map((metric) => positiveOrNull(metric.SleepHours)));
  if (hours === null) return [];
  const { offset, start_time, end_time } = bounds(day, context);
  return [
    {
      metadata: {
        start_time,
        end_time,
        summary_id: `metrics-sleep-${day.date}`,
        upload_type: SleepUploadType.UNKNOWN,
        is_nap: false,
        timestamp_localization: localizationOf(offset),
      },
      sleep_durations_data: { asleep: { duration_asleep_state_seconds: Math.round(hours * 3600) } },
    },
  ];
}
