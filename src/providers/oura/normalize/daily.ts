// Oura daily_activity (+ daily_stress, heartrate, vo2_max, daily_readiness, daily_sleep,
// daily_spo2, tag, enhanced_tag of the same day) -> Daily.
//
// Cannot map: `*_met_minutes` totals, `equivalent_walking_distance`, `meters_to_target`, `target_calories`, `target_meters`,
// `non_wear_time`, activity `contributors` (the model's Daily has no activity contributors),
// readiness `temperature_deviation` (Daily has no temperature). Oura's day runs 04:00 -> 04:00
// local; the record is keyed on the calendar day (local midnight to midnight, model rule) and its
// samples keep their true times. `equivalent_walking_distance` is not filled: Oura defines it as
// the "equivalent walking distance of energy expenditure" (an energy figure written in metres),
// not a distance travelled, so distance_meters stays null (MAPPING.md). `inactivity_alerts`
// (one per long sedentary stretch) fills num_continuous_inactive_periods. Stress: Oura's
// `recovery_high` (time in the lowest-stress quartile) is rest-stress time; `day_summary`
// restored/normal/stressful -> StressLevel 1/2/4.

import type { Daily } from '../../../model/daily.ts';
import type { CodeOf } from '../../../model/enums.ts';
import { ActivityLevel, StressLevel, UploadType } from '../../../model/enums.ts';
import { formatDateTime, localMidnightMs, MS_PER_DAY } from '../../../model/time.ts';
import {
  contributorMap,
  dayBoundsOf,
  instantOf,
  type NormalizeContext,
  trailingOffsetMinutes,
} from '../../../provider-kit/normalize/normalize.ts';
import { secondsToMinutes, sumOrNull } from '../../../provider-kit/normalize/units.ts';
import { heartRateBetween, indexHeartRate } from './heartrate.ts';
import { expandClassification, expandSeries } from './series.ts';
import { tagEntriesByDay } from './tags.ts';
import type {
  OuraDailyActivity,
  OuraDailyReadiness,
  OuraDailySleep,
  OuraDailySpo2,
  OuraDailyStress,
  OuraEnhancedTag,
  OuraHeartRateRow,
  OuraTag,
  OuraVo2Max,
} from './types.ts';

export type OuraDailyPayload = {
  daily_activity: readonly OuraDailyActivity[];
  daily_stress?: readonly OuraDailyStress[];
  heartrate?: readonly OuraHeartRateRow[];
  vo2_max?: readonly OuraVo2Max[];
  daily_readiness?: readonly OuraDailyReadiness[];
  daily_sleep?: readonly OuraDailySleep[];
  daily_spo2?: readonly OuraDailySpo2[];
  tag?: readonly OuraTag[];
  enhanced_tag?: readonly OuraEnhancedTag[];
};

type ActivityLevelCode = CodeOf<typeof ActivityLevel>;

/** `class_5_min`: '0' non-wear, '1' rest, '2' inactive, '3' low, '4' medium, '5' high — the same codes. */
function activityLevelOf(character: string): ActivityLevelCode | null {
  switch (character) {
    case '0':
      return ActivityLevel.UNKNOWN;
    case '1':
      return ActivityLevel.REST;
    case '2':
      return ActivityLevel.INACTIVE;
    case '3':
      return ActivityLevel.LOW;
    case '4':
      return ActivityLevel.MEDIUM;
    case '5':
      return ActivityLevel.HIGH;
    default:
      return null;
  }
}

const stressRatingOf = {
  restored: StressLevel.REST,
  normal: StressLevel.LOW,
  stressful: StressLevel.HIGH,
} as const;

function byDay<T extends { day: string }>(documents: readonly T[] | undefined): Map<string, T> {
  const map = new Map<string, T>();
  for (const document of documents ?? []) map.set(document.day, document);
  return map;
}

export function normalizeDaily(payload: OuraDailyPayload, context: NormalizeContext): Daily[] {
  const fallbackOffset = context.userOffsetMinutes ?? 0;
  const offsetByDay = new Map<string, number>();
  for (const activity of payload.daily_activity) {
    offsetByDay.set(activity.day, trailingOffsetMinutes(activity.timestamp) ?? fallbackOffset);
  }
  const offsetOfDay = (day: string) => offsetByDay.get(day) ?? fallbackOffset;
  const stress = byDay(payload.daily_stress);
  const vo2 = byDay(payload.vo2_max);
  const readiness = byDay(payload.daily_readiness);
  const sleep = byDay(payload.daily_sleep);
  const spo2 = byDay(payload.daily_spo2);
  const tags = tagEntriesByDay(payload.tag, payload.enhanced_tag, offsetOfDay);
  const heartRate = indexHeartRate(payload.heartrate);

  return payload.daily_activity.map((activity): Daily => {
    const offset = offsetOfDay(activity.day);
    const dayStartMs = localMidnightMs(activity.day, offset);
    const periodStartMs = instantOf(activity.timestamp, offset);
    const hr = heartRateBetween(heartRate, dayStartMs, dayStartMs + MS_PER_DAY, offset);
    const dayStress = stress.get(activity.day);
    const dayVo2 = vo2.get(activity.day);
    const dayReadiness = readiness.get(activity.day);
    const daySpo2 = spo2.get(activity.day)?.spo2_percentage?.average ?? null;
    const summary = dayStress?.day_summary;
    return {
      metadata: {
        ...dayBoundsOf(activity.day, offset),
        upload_type: UploadType.AUTOMATIC,
        timestamp_localization: offset === 0 ? 0 : 1,
      },
      active_durations_data: {
        activity_seconds: sumOrNull(
          activity.low_activity_time,
          activity.medium_activity_time,
          activity.high_activity_time,
        ),
        low_intensity_seconds: activity.low_activity_time,
        moderate_intensity_seconds: activity.medium_activity_time,
        vigorous_intensity_seconds: activity.high_activity_time,
        inactivity_seconds: activity.sedentary_time,
        rest_seconds: activity.resting_time,
        num_continuous_inactive_periods: activity.inactivity_alerts,
        activity_levels_samples: expandClassification(
          activity.class_5_min,
          periodStartMs,
          300,
          offset,
          activityLevelOf,
          (timestamp, level) => ({ timestamp, level }),
          false,
        ),
      },
      calories_data: {
        total_burned_calories: activity.total_calories,
        net_activity_calories: activity.active_calories,
      },
      // equivalent_walking_distance is energy, not distance travelled (see the file comment).
      distance_data: { steps: activity.steps, distance_meters: null },
      MET_data: {
        avg_level: activity.average_met_minutes,
        num_high_intensity_minutes: secondsToMinutes(activity.high_activity_time),
        num_moderate_intensity_minutes: secondsToMinutes(activity.medium_activity_time),
        num_low_intensity_minutes: secondsToMinutes(activity.low_activity_time),
        num_inactive_minutes: secondsToMinutes(activity.sedentary_time),
        MET_samples: expandSeries(activity.met, offset, (timestamp, level) => ({ timestamp, level })),
      },
      heart_rate_data: {
        summary: { avg_hr_bpm: hr.avg, min_hr_bpm: hr.min, max_hr_bpm: hr.max },
        detailed: { hr_samples: hr.samples },
      },
      oxygen_data: {
        avg_saturation_percentage: daySpo2,
        vo2max_ml_per_min_per_kg: dayVo2?.vo2_max ?? null,
        vo2_samples: dayVo2
          ? [
              {
                timestamp: formatDateTime(instantOf(dayVo2.timestamp, offset), offset),
                vo2max_ml_per_min_per_kg: dayVo2.vo2_max,
              },
            ]
          : [],
      },
      scores: {
        activity: activity.score ?? null,
        sleep: sleep.get(activity.day)?.score ?? null,
        // Oura's readiness is its recovery score.
        recovery: dayReadiness?.score ?? null,
      },
      stress_data: dayStress
        ? {
            high_stress_duration_seconds: dayStress.stress_high ?? null,
            rest_stress_duration_seconds: dayStress.recovery_high ?? null,
            stress_rating: summary ? stressRatingOf[summary] : null,
          }
        : null,
      tag_data: { tags: tags.get(activity.day) ?? [] },
      data_enrichment: dayReadiness
        ? {
            readiness_score: dayReadiness.score ?? null,
            readiness_contributors: contributorMap(dayReadiness.contributors),
          }
        : null,
    };
  });
}
