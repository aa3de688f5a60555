// Huawei day statistics (POST sampleSet:dailyPolymerize; one group per local day of the zone
// asked for) -> Daily. Statistics types and fields [C] (see MAPPING.md): steps.total `steps`,
// distance.total `distance` (m), calories.burnt.total `calories_total` (kcal, active only),
// heart_rate.statistics and resting_heart_rate.statistics `avg`/`max`/`min`, spo2.statistics
// `saturation_avg`/`_max`/`_min`. A day whose every figure is absent or 0 (the app synced
// nothing) yields no record: a 0 there is a placeholder, not a measurement.
import type { Daily } from '../../../model/daily.ts';
import { UploadType } from '../../../model/enums.ts';
import { heartRate, positiveOrNull } from '../../../provider-kit/normalize/measures.ts';
import { dayBoundsOf, localizationOf } from '../../../provider-kit/normalize/normalize.ts';
import type { HuaweiGroup, HuaweiSamplePoint } from './types.ts';
import { fieldOf } from './values.ts';

export type DailyPayload = { date: string; offsetMinutes: number; group: HuaweiGroup };

export const DAILY_TYPES = [
  'com.huawei.continuous.steps.delta',
  'com.huawei.continuous.distance.delta',
  'com.huawei.continuous.calories.burnt',
  'com.huawei.instantaneous.heart_rate',
  'com.huawei.instantaneous.resting_heart_rate',
  'com.huawei.instantaneous.spo2',
] as const;

const percentage = (value: number | null) => {
  const positive = positiveOrNull(value);
  return positive !== null && positive <= 100 ? positive : null;
};

export function normalizeDaily(payload: DailyPayload): Daily[] {
  const points: HuaweiSamplePoint[] = (payload.group?.sampleSet ?? []).flatMap(
    (set) => set?.samplePoints ?? [],
  );
  const of = (type: string, field: string) =>
    fieldOf(points.find((point) => point?.dataTypeName === type)?.value, field);
  const steps = positiveOrNull(of('com.huawei.continuous.steps.total', 'steps'));
  const distance = positiveOrNull(of('com.huawei.continuous.distance.total', 'distance'));
  const calories = positiveOrNull(of('com.huawei.continuous.calories.burnt.total', 'calories_total'));
  const hr = 'com.huawei.continuous.heart_rate.statistics';
  const avgHr = heartRate(of(hr, 'avg'));
  const maxHr = heartRate(of(hr, 'max'));
  const minHr = heartRate(of(hr, 'min'));
  const resting = heartRate(of('com.huawei.continuous.resting_heart_rate.statistics', 'avg'));
  const spo2 = percentage(of('com.huawei.continuous.spo2.statistics', 'saturation_avg'));
  if ([steps, distance, calories, avgHr, maxHr, minHr, resting, spo2].every((value) => value === null))
    return [];
  return [
    {
      metadata: {
        ...dayBoundsOf(payload.date, payload.offsetMinutes),
        upload_type: UploadType.AUTOMATIC,
        timestamp_localization: localizationOf(payload.offsetMinutes),
      },
      distance_data: { steps, distance_meters: distance },
      calories_data: { net_activity_calories: calories },
      heart_rate_data: {
        summary: { avg_hr_bpm: avgHr, max_hr_bpm: maxHr, min_hr_bpm: minHr, resting_hr_bpm: resting },
      },
      oxygen_data: { avg_saturation_percentage: spo2 },
    },
  ];
}
