// Huawei body measurements (POST sampleSet:polymerize, detail points, no grouping) -> Body, one
// record per local day that has any. Fields (HMSCore-Guides "weight", "blood-pressure",
// "blood-glucose" data type pages [C]): body_weight `body_weight` (kg), `bmi`, `body_fat_rate`
// (%); blood_pressure `systolic_pressure` / `diastolic_pressure` (mmHg); blood_glucose `level`
// (mmol/L, written here as mg/dL: × 18.016). Zeros are placeholders (a scale without body-fat
// electrodes) and left out.
import type { Body } from '../../../model/body.ts';
import { formatDateTime } from '../../../model/time.ts';
import { positiveOrNull } from '../../../provider-kit/normalize/measures.ts';
import { dayBoundsOf, localizationOf } from '../../../provider-kit/normalize/normalize.ts';
import type { HuaweiSamplePoint } from './types.ts';
import { fieldOf, nanosToMs, pointsOf } from './values.ts';

export type BodyPayload = { date: string; offsetMinutes: number; points: HuaweiSamplePoint[] };

export const BODY_TYPES = [
  'com.huawei.instantaneous.body_weight',
  'com.huawei.instantaneous.blood_pressure',
  'com.huawei.instantaneous.blood_glucose',
] as const;

const MG_PER_DL_PER_MMOL_L = 18.016;

const average = (values: readonly (number | null)[]) => {
  const present = values.filter((value): value is number => value !== null);
  return present.length === 0 ? null : present.reduce((sum, value) => sum + value, 0) / present.length;
};

export function normalizeBody(payload: BodyPayload): Body[] {
  const { points, offsetMinutes } = payload;
  const weights = pointsOf(points, 'com.huawei.instantaneous.body_weight');
  const pressures = pointsOf(points, 'com.huawei.instantaneous.blood_pressure');
  const glucose = pointsOf(points, 'com.huawei.instantaneous.blood_glucose');
  const weight = average(weights.map((point) => positiveOrNull(fieldOf(point.value, 'body_weight'))));
  const bmi = average(weights.map((point) => positiveOrNull(fieldOf(point.value, 'bmi'))));
  const fat = average(weights.map((point) => positiveOrNull(fieldOf(point.value, 'body_fat_rate'))));
  const pressureSamples = pressures
    .map((point) => ({
      at: nanosToMs(point.startTime),
      systolic: positiveOrNull(fieldOf(point.value, 'systolic_pressure')),
      diastolic: positiveOrNull(fieldOf(point.value, 'diastolic_pressure')),
    }))
    .filter((sample) => sample.at !== null && (sample.systolic !== null || sample.diastolic !== null));
  const glucoseSamples = glucose
    .map((point) => ({
      at: nanosToMs(point.startTime),
      level: positiveOrNull(fieldOf(point.value, 'level')),
    }))
    .filter((sample): sample is { at: number; level: number } => sample.at !== null && sample.level !== null)
    .map((sample) => ({
      timestamp: formatDateTime(sample.at, offsetMinutes),
      blood_glucose_mg_per_dL: Math.round(sample.level * MG_PER_DL_PER_MMOL_L * 10) / 10,
      glucose_level_flag: null,
      trend_arrow: null,
    }));
  if (
    weight === null &&
    bmi === null &&
    fat === null &&
    pressureSamples.length === 0 &&
    glucoseSamples.length === 0
  )
    return [];
  return [
    {
      metadata: {
        ...dayBoundsOf(payload.date, offsetMinutes),
        timestamp_localization: localizationOf(offsetMinutes),
      },
      measurements_data:
        weight === null && bmi === null && fat === null
          ? null
          : { day_avg_weight_kg: weight, day_avg_bmi: bmi, day_avg_bodyfat_percentage: fat },
      blood_pressure_data:
        pressureSamples.length === 0
          ? null
          : {
              blood_pressure_samples: pressureSamples.map((sample) => ({
                timestamp: formatDateTime(sample.at!, offsetMinutes),
                systolic_bp: sample.systolic,
                diastolic_bp: sample.diastolic,
              })),
              day_avg_systolic_bp: average(pressureSamples.map((sample) => sample.systolic)),
              day_avg_diastolic_bp: average(pressureSamples.map((sample) => sample.diastolic)),
            },
      glucose_data:
        glucoseSamples.length === 0
          ? null
          : {
              blood_glucose_samples: glucoseSamples,
              day_avg_blood_glucose_mg_per_dL: average(
                glucoseSamples.map((sample) => sample.blood_glucose_mg_per_dL),
              ),
            },
    },
  ];
}
