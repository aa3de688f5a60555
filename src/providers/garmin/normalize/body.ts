// Garmin body compositions + user metrics -> Body, one per local day that has either.
// Body composition: `weightInGrams` -> kg, `bodyFatInPercent`, `bodyMassIndex`, `muscleMassInGrams`,
// `boneMassInGrams` (g, as the model), `bodyWaterInPercent`; one measurement per summary at
// `measurementTimeInSeconds` in `measurementTimeOffsetInSeconds`. User metrics (a day's fitness
// figures): `vo2Max` -> oxygen_data.vo2max_ml_per_min_per_kg (and a VO2 max sample at the day's
// start), `fitnessAge` -> estimated_fitness_age. Zeros are "not measured", not measurements.
// Cannot map: `vo2MaxCycling` (the model has one VO2 max), `enhanced`.
import type { Body } from '../../../model/body.ts';
import { localMidnightMs } from '../../../model/time.ts';
import {
  dayBoundsOf,
  localizationOf,
  type NormalizeContext,
  statsOf,
} from '../../../provider-kit/normalize/normalize.ts';
import { localIsoDate, formatDateTime } from '../../../model/time.ts';
import { isNumber, offsetMinutesOf, positiveOrNull, wireAt } from './time.ts';
import type { GarminBodyComposition, GarminUserMetrics } from './types.ts';

export type GarminBodyPayload = {
  bodyComps: readonly GarminBodyComposition[];
  userMetrics?: readonly GarminUserMetrics[];
};

type Measurement = NonNullable<NonNullable<Body['measurements_data']>['measurements']>[number];
type Day = { offset: number; measurements: Measurement[]; metrics: GarminUserMetrics | null };

const grams = (value: number | undefined) => positiveOrNull(value);

export function normalizeBody(payload: GarminBodyPayload, context: NormalizeContext): Body[] {
  const days = new Map<string, Day>();
  const dayFor = (date: string, offset: number) => {
    const day = days.get(date) ?? { offset, measurements: [], metrics: null };
    days.set(date, day);
    return day;
  };
  for (const comp of payload.bodyComps) {
    if (!comp || !isNumber(comp.measurementTimeInSeconds)) continue;
    const offset = isNumber(comp.measurementTimeOffsetInSeconds)
      ? Math.round(comp.measurementTimeOffsetInSeconds / 60)
      : offsetMinutesOf(comp, context);
    const weight = positiveOrNull(comp.weightInGrams);
    dayFor(localIsoDate(comp.measurementTimeInSeconds * 1000, offset), offset).measurements.push({
      measurement_time: wireAt(comp.measurementTimeInSeconds, offset),
      weight_kg: weight === null ? null : weight / 1000,
      bodyfat_percentage: positiveOrNull(comp.bodyFatInPercent),
      BMI: positiveOrNull(comp.bodyMassIndex),
      muscle_mass_g: grams(comp.muscleMassInGrams),
      bone_mass_g: grams(comp.boneMassInGrams),
      water_percentage: positiveOrNull(comp.bodyWaterInPercent),
    });
  }
  for (const metrics of payload.userMetrics ?? []) {
    if (!metrics || typeof metrics.calendarDate !== 'string') continue;
    const offset = context.userOffsetMinutes ?? 0;
    dayFor(metrics.calendarDate, offset).metrics = metrics;
  }
  const records: Body[] = [];
  for (const [date, day] of [...days].sort(([a], [b]) => a.localeCompare(b))) {
    const { offset, metrics } = day;
    const fitnessAge = positiveOrNull(metrics?.fitnessAge);
    const measurements = [...day.measurements];
    if (fitnessAge !== null)
      measurements.push({
        measurement_time: formatDateTime(localMidnightMs(date, offset), offset),
        estimated_fitness_age: Math.round(fitnessAge),
      });
    const avg = (pick: (m: Measurement) => number | null | undefined) =>
      statsOf(measurements.map((m) => pick(m) ?? null)).avg;
    const vo2 = positiveOrNull(metrics?.vo2Max);
    records.push({
      metadata: { ...dayBoundsOf(date, offset), timestamp_localization: localizationOf(offset) },
      measurements_data: {
        measurements,
        day_avg_weight_kg: avg((m) => m.weight_kg),
        day_avg_bodyfat_percentage: avg((m) => m.bodyfat_percentage),
        day_avg_bmi: avg((m) => m.BMI),
        day_avg_muscle_mass_g: avg((m) => m.muscle_mass_g),
        day_avg_bone_mass_g: avg((m) => m.bone_mass_g),
        day_avg_water_percentage: avg((m) => m.water_percentage),
        day_avg_estimated_fitness_age: avg((m) => m.estimated_fitness_age),
      },
      oxygen_data:
        vo2 !== null
          ? {
              vo2max_ml_per_min_per_kg: vo2,
              vo2_samples: [
                {
                  timestamp: formatDateTime(localMidnightMs(date, offset), offset),
                  vo2max_ml_per_min_per_kg: vo2,
                },
              ],
            }
          : null,
    });
  }
  return records;
}
