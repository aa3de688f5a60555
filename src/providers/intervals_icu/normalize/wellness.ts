// Intervals.icu wellness (GET /api/v1/athlete/{id}/wellness, schema `Wellness`) -> Daily, Body
// and Sleep. One wellness record is one local day (`id` is the date) with no time of day and no
// offset: the day is placed in the athlete's `timezone` (GET /api/v1/athlete/{id}) at that date,
// else the user's offset. Because the API gives no times, only day figures are filled, never
// samples, and a sleep record spans the day it is filed under (no bed or wake times exist).
//
// A record holds whatever the athlete or a synced service entered; fields never entered are
// absent or null. Placeholder zeros (0 steps, 0 kg, 0 bpm on a day nothing was entered) are left
// out. Units: weight kg, resting HR bpm, hrv (rMSSD) and hrvSDNN ms, spO2 %, systolic/diastolic
// mmHg, sleepSecs seconds. Not filled: bloodGlucose, lactate, hydrationVolume and the 1–4
// subjective scales (soreness, fatigue, stress, mood, motivation, injury, hydration), whose units
// or scales the published schema does not state; ctl/atl/rampRate (the fitness model); comments.
import type { Body } from '../../../model/body.ts';
import type { Daily } from '../../../model/daily.ts';
import { SleepUploadType, UploadType } from '../../../model/enums.ts';
import type { Sleep } from '../../../model/sleep.ts';
import { isIsoDate } from '../../../model/time.ts';
import { heartRate, positiveOrNull } from '../../../provider-kit/normalize/measures.ts';
import {
  dayBoundsOf,
  localizationOf,
  type NormalizeContext,
} from '../../../provider-kit/normalize/normalize.ts';
import { localTimeOffsetMinutes } from '../../../provider-kit/normalize/time-zones.ts';
import type { IntervalsWellness } from './types.ts';

export type WellnessPayload = { wellness: IntervalsWellness; timezone: string | null };

function dayOf(payload: WellnessPayload, context: NormalizeContext) {
  const date = payload.wellness?.id;
  if (typeof date !== 'string' || !isIsoDate(date)) throw new RangeError(`wellness id ${String(date)}`);
  const offset =
    localTimeOffsetMinutes(payload.timezone, `${date}T00:00:00`) ?? context.userOffsetMinutes ?? 0;
  return { date, offset, bounds: dayBoundsOf(date, offset) };
}

const percentage = (value: number | null | undefined) => {
  const positive = positiveOrNull(value);
  return positive !== null && positive <= 100 ? positive : null;
};

const anyFilled = (values: readonly unknown[]) => values.some((value) => value !== null);

export function normalizeWellnessDaily(payload: WellnessPayload, context: NormalizeContext): Daily[] {
  const { offset, bounds } = dayOf(payload, context);
  const w = payload.wellness;
  const steps = positiveOrNull(w.steps);
  const resting = heartRate(w.restingHR);
  const rmssd = positiveOrNull(w.hrv);
  const sdnn = positiveOrNull(w.hrvSDNN);
  const intake = positiveOrNull(w.kcalConsumed);
  const spo2 = percentage(w.spO2);
  const vo2max = positiveOrNull(w.vo2max);
  const readiness = positiveOrNull(w.readiness);
  if (!anyFilled([steps, resting, rmssd, sdnn, intake, spo2, vo2max, readiness])) return [];
  return [
    {
      metadata: {
        ...bounds,
        upload_type: UploadType.UNKNOWN,
        timestamp_localization: localizationOf(offset),
      },
      distance_data: { steps },
      calories_data: { net_intake_calories: intake },
      heart_rate_data: {
        summary: { resting_hr_bpm: resting, avg_hrv_rmssd: rmssd, avg_hrv_sdnn: sdnn },
      },
      oxygen_data: { avg_saturation_percentage: spo2, vo2max_ml_per_min_per_kg: vo2max },
      data_enrichment: readiness === null ? null : { readiness_score: readiness },
    },
  ];
}

export function normalizeWellnessBody(payload: WellnessPayload, context: NormalizeContext): Body[] {
  const { offset, bounds } = dayOf(payload, context);
  const w = payload.wellness;
  const weight = positiveOrNull(w.weight);
  const bodyFat = percentage(w.bodyFat);
  const systolic = positiveOrNull(w.systolic);
  const diastolic = positiveOrNull(w.diastolic);
  const resting = heartRate(w.restingHR);
  const rmssd = positiveOrNull(w.hrv);
  const spo2 = percentage(w.spO2);
  const vo2max = positiveOrNull(w.vo2max);
  if (!anyFilled([weight, bodyFat, systolic, diastolic, spo2, vo2max])) return [];
  return [
    {
      metadata: { ...bounds, timestamp_localization: localizationOf(offset) },
      measurements_data:
        weight === null && bodyFat === null
          ? null
          : { day_avg_weight_kg: weight, day_avg_bodyfat_percentage: bodyFat },
      blood_pressure_data:
        systolic === null && diastolic === null
          ? null
          : { day_avg_systolic_bp: systolic, day_avg_diastolic_bp: diastolic },
      heart_data: { heart_rate_data: { summary: { resting_hr_bpm: resting, avg_hrv_rmssd: rmssd } } },
      oxygen_data: { avg_saturation_percentage: spo2, vo2max_ml_per_min_per_kg: vo2max },
    },
  ];
}

export function normalizeWellnessSleep(payload: WellnessPayload, context: NormalizeContext): Sleep[] {
  const { date, offset, bounds } = dayOf(payload, context);
  const w = payload.wellness;
  const asleep = positiveOrNull(w.sleepSecs);
  const score = positiveOrNull(w.sleepScore);
  const sleepingHr = heartRate(w.avgSleepingHR);
  if (!anyFilled([asleep, score, sleepingHr])) return [];
  return [
    {
      metadata: {
        ...bounds,
        summary_id: `wellness-${date}`,
        upload_type: SleepUploadType.UNKNOWN,
        is_nap: false,
        timestamp_localization: localizationOf(offset),
      },
      sleep_durations_data: { asleep: { duration_asleep_state_seconds: asleep } },
      heart_rate_data: { summary: { avg_hr_bpm: sleepingHr } },
      scores: { sleep: score },
    },
  ];
}
