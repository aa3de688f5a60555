// Google Health body data -> Body, one per local day: `weight` (grams -> kg) and `body-fat` (%)
// samples as measurements; `daily-vo2-max` (ml/kg/min), `daily-oxygen-saturation` (average,
// lower and upper bound %) and `daily-sleep-temperature-derivations` (the night's skin
// temperature, °C) by their civil date. Zeros are not measurements.
// Cannot map: the baseline temperature (the Sleep record carries the night's deviation), SpO2
// bounds (only the average has a field), BMI (Google's height type is not read).
import type { Body } from '../../../model/body.ts';
import { localIsoDate, localMidnightMs } from '../../../model/time.ts';
import {
  dayBoundsOf,
  localizationOf,
  type NormalizeContext,
  statsOf,
} from '../../../provider-kit/normalize/normalize.ts';
import { instantMs, isoOf, offsetMinutes, positiveOrNull, wire } from './time.ts';
import type { DataPoint, SampleTime } from './types.ts';

export type FitbitBodyPayload = {
  weight: readonly DataPoint[];
  'body-fat'?: readonly DataPoint[];
  'daily-vo2-max'?: readonly DataPoint[];
  'daily-oxygen-saturation'?: readonly DataPoint[];
  'daily-sleep-temperature-derivations'?: readonly DataPoint[];
};

type Day = {
  offset: number;
  measurements: { measurement_time: string; weight_kg?: number; bodyfat_percentage?: number }[];
  vo2: number | null;
  spo2: number | null;
  skinC: number | null;
};

export function normalizeBody(payload: FitbitBodyPayload, context: NormalizeContext): Body[] {
  const days = new Map<string, Day>();
  const dayOf = (date: string, offset: number) => {
    let day = days.get(date);
    if (!day) {
      day = { offset, measurements: [], vo2: null, spo2: null, skinC: null };
      days.set(date, day);
    }
    return day;
  };
  const sampled = (
    points: readonly DataPoint[] | undefined,
    pick: (p: DataPoint) => { time?: SampleTime; value: number | null } | undefined,
    field: 'weight_kg' | 'bodyfat_percentage',
  ) => {
    for (const point of points ?? []) {
      const found = point ? pick(point) : undefined;
      const atMs = instantMs(found?.time?.physicalTime);
      if (!found || atMs === null || found.value === null) continue;
      const offset = offsetMinutes(atMs, found.time?.utcOffset, found.time?.civilTime, context);
      dayOf(localIsoDate(atMs, offset), offset).measurements.push({
        measurement_time: wire(atMs, offset),
        [field]: found.value,
      });
    }
  };
  sampled(
    payload.weight,
    (p) =>
      p.weight && {
        time: p.weight.sampleTime,
        value: positiveOrNull(p.weight.weightGrams) === null ? null : (p.weight.weightGrams as number) / 1000,
      },
    'weight_kg',
  );
  sampled(
    payload['body-fat'],
    (p) => p.bodyFat && { time: p.bodyFat.sampleTime, value: positiveOrNull(p.bodyFat.percentage) },
    'bodyfat_percentage',
  );
  const daily = (
    points: readonly DataPoint[] | undefined,
    pick: (p: DataPoint) => { date?: Parameters<typeof isoOf>[0]; value: number | null } | undefined,
    apply: (day: Day, value: number) => void,
  ) => {
    for (const point of points ?? []) {
      const found = point ? pick(point) : undefined;
      const date = isoOf(found?.date);
      if (!found || !date || found.value === null) continue;
      apply(dayOf(date, days.get(date)?.offset ?? context.userOffsetMinutes ?? 0), found.value);
    }
  };
  daily(
    payload['daily-vo2-max'],
    (p) => p.dailyVo2Max && { date: p.dailyVo2Max.date, value: positiveOrNull(p.dailyVo2Max.vo2Max) },
    (day, value) => {
      day.vo2 = value;
    },
  );
  daily(
    payload['daily-oxygen-saturation'],
    (p) =>
      p.dailyOxygenSaturation && {
        date: p.dailyOxygenSaturation.date,
        value: positiveOrNull(p.dailyOxygenSaturation.averagePercentage),
      },
    (day, value) => {
      day.spo2 = value;
    },
  );
  daily(
    payload['daily-sleep-temperature-derivations'],
    (p) =>
      p.dailySleepTemperatureDerivations && {
        date: p.dailySleepTemperatureDerivations.date,
        value: positiveOrNull(p.dailySleepTemperatureDerivations.nightlyTemperatureCelsius),
      },
    (day, value) => {
      day.skinC = value;
    },
  );
  const records: Body[] = [];
  for (const [date, day] of [...days].sort(([a], [b]) => a.localeCompare(b))) {
    const midnight = wire(localMidnightMs(date, day.offset), day.offset);
    const avg = (pick: (m: Day['measurements'][number]) => number | undefined) =>
      statsOf(day.measurements.map((m) => pick(m) ?? null)).avg;
    records.push({
      metadata: { ...dayBoundsOf(date, day.offset), timestamp_localization: localizationOf(day.offset) },
      measurements_data:
        day.measurements.length > 0
          ? {
              measurements: day.measurements,
              day_avg_weight_kg: avg((m) => m.weight_kg),
              day_avg_bodyfat_percentage: avg((m) => m.bodyfat_percentage),
            }
          : null,
      oxygen_data:
        day.vo2 !== null || day.spo2 !== null
          ? {
              vo2max_ml_per_min_per_kg: day.vo2,
              ...(day.vo2 !== null
                ? { vo2_samples: [{ timestamp: midnight, vo2max_ml_per_min_per_kg: day.vo2 }] }
                : {}),
              avg_saturation_percentage: day.spo2,
            }
          : null,
      temperature_data:
        day.skinC === null
          ? null
          : { skin_temperature_samples: [{ timestamp: midnight, temperature_celsius: day.skinC }] },
    });
  }
  return records;
}
