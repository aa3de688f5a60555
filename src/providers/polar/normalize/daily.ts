// Polar daily activity (GET /v3/users/activities?steps=true&activity_zones=true&
// inactivity_stamps=true) + continuous heart rate of the same dates -> Daily, one per date.
//
// Cannot map: `inactivity_stamps` (the times of inactivity alerts; their count fills
// num_continuous_inactive_periods, one alert per long sedentary stretch). Polar's daily
// documents carry no zone ("begin and end of day are determined by the time set on the
// device"), so days and samples are written in the user's offset from the context (UTC when
// unknown). `daily_activity` is the percentage of the daily activity goal and fills
// scores.activity. BMR is the part of `calories` that is not `active_calories`. Step samples
// come with repeats filtered out (a gap longer than `interval_ms` repeats the previous count,
// per the spec), so gaps are filled back in. Activity-zone samples are change points:
// SLEEP/SEDENTARY/LIGHT/MODERATE/VIGOROUS -> ActivityLevel REST/INACTIVE/LOW/MEDIUM/HIGH, and
// the time until the next change adds up into the rest/low/moderate/vigorous seconds.
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import type { Daily } from '../../../model/daily.ts';
import { ActivityLevel, type CodeOf, UploadType } from '../../../model/enums.ts';
import type { HeartRateDataSample } from '../../../model/samples.ts';
import { formatDateTime, localMidnightMs, MS_PER_DAY } from '../../../model/time.ts';
import {
  dayBoundsOf,
  instantOf,
  localizationOf,
  type NormalizeContext,
  statsOf,
} from '../../../provider-kit/normalize/normalize.ts';
import { clockMs, isoDurationSeconds } from './time.ts';
import type {
  PolarActivity,
  PolarActivityZoneSample,
  PolarContinuousHeartRate,
  PolarStepSample,
} from './types.ts';

export type PolarDailyPayload = {
  activity_summary: readonly PolarActivity[];
  continuous_heart_rate?: readonly PolarContinuousHeartRate[];
};

type LevelCode = CodeOf<typeof ActivityLevel>;
const levels: Readonly<Record<NonNullable<PolarActivityZoneSample['zone']>, LevelCode>> = {
  SLEEP: ActivityLevel.REST,
  SEDENTARY: ActivityLevel.INACTIVE,
  LIGHT: ActivityLevel.LOW,
  MODERATE: ActivityLevel.MEDIUM,
  VIGOROUS: ActivityLevel.HIGH,
};

function stepSamples(
  samples: readonly PolarStepSample[] | undefined,
  intervalMs: number | undefined,
  offset: number,
): { timestamp: string; steps: number }[] {
  const out: { timestamp: string; steps: number }[] = [];
  if (!samples) return out;
  const step = intervalMs && intervalMs > 0 ? intervalMs : null;
  for (let index = 0; index < samples.length; index++) {
    const sample = samples[index] as PolarStepSample;
    if (typeof sample.steps !== 'number') continue;
    const atMs = instantOf(sample.timestamp, offset);
    out.push({ timestamp: formatDateTime(atMs, offset), steps: sample.steps });
    const next = samples[index + 1];
    if (!next || step === null) continue;
    // Never fill more than a day: a longer gap is a broken document, not a run of repeats.
    const untilMs = Math.min(instantOf(next.timestamp, offset), atMs + MS_PER_DAY);
    for (let at = atMs + step; at < untilMs; at += step) {
      out.push({ timestamp: formatDateTime(at, offset), steps: sample.steps });
    }
  }
  return out;
}

function zoneSamples(
  samples: readonly PolarActivityZoneSample[] | undefined,
  dayEndMs: number,
  offset: number,
) {
  const levelSamples: { timestamp: string; level: LevelCode; activity_level: LevelCode }[] = [];
  const seconds: Record<LevelCode, number> = { 0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 };
  if (!samples || samples.length === 0) return null;
  for (let index = 0; index < samples.length; index++) {
    const sample = samples[index] as PolarActivityZoneSample;
    const level = sample.zone ? levels[sample.zone] : ActivityLevel.UNKNOWN;
    const atMs = instantOf(sample.timestamp, offset);
    const next = samples[index + 1];
    const untilMs = next ? instantOf(next.timestamp, offset) : dayEndMs;
    seconds[level] += Math.max(0, untilMs - atMs) / 1000;
    levelSamples.push({ timestamp: formatDateTime(atMs, offset), level, activity_level: level });
  }
  return { levelSamples, seconds };
}

function heartRateSamples(document: PolarContinuousHeartRate, offset: number): HeartRateDataSample[] {
  const midnight = localMidnightMs(document.date, offset);
  const out: HeartRateDataSample[] = [];
  for (const sample of document.heart_rate_samples ?? []) {
    const sinceMidnight = clockMs(sample.sample_time);
    if (sinceMidnight === null || heartRate(sample.heart_rate) === null) continue;
    out.push({ timestamp: formatDateTime(midnight + sinceMidnight, offset), bpm: sample.heart_rate });
  }
  return out;
}

export function normalizeDaily(payload: PolarDailyPayload, context: NormalizeContext): Daily[] {
  const offset = context.userOffsetMinutes ?? 0;
  const activities = new Map<string, PolarActivity>();
  for (const activity of payload.activity_summary) activities.set(activity.start_time.slice(0, 10), activity);
  const heartRates = new Map<string, PolarContinuousHeartRate>();
  for (const document of payload.continuous_heart_rate ?? []) heartRates.set(document.date, document);
  const dates = [...new Set([...activities.keys(), ...heartRates.keys()])].sort();

  return dates.map((date): Daily => {
    const activity = activities.get(date);
    const heartRate = heartRates.get(date);
    const dayEndMs = localMidnightMs(date, offset) + MS_PER_DAY;
    const hrSamples = heartRate ? heartRateSamples(heartRate, offset) : [];
    const hr = statsOf(hrSamples.map((sample) => sample.bpm ?? null));
    const daySamples = activity?.samples;
    const zones = zoneSamples(
      daySamples?.activity_zones?.samples,
      activity?.end_time ? Math.min(dayEndMs, instantOf(activity.end_time, offset)) : dayEndMs,
      offset,
    );
    const calories = activity?.calories ?? null;
    const activeCalories = activity?.active_calories ?? null;
    return {
      metadata: {
        ...dayBoundsOf(date, offset),
        upload_type: UploadType.AUTOMATIC,
        timestamp_localization: localizationOf(offset),
      },
      active_durations_data: activity
        ? {
            activity_seconds: isoDurationSeconds(activity.active_duration),
            inactivity_seconds: isoDurationSeconds(activity.inactive_duration),
            num_continuous_inactive_periods: activity.inactivity_alert_count ?? null,
            rest_seconds: zones ? zones.seconds[ActivityLevel.REST] : null,
            low_intensity_seconds: zones ? zones.seconds[ActivityLevel.LOW] : null,
            moderate_intensity_seconds: zones ? zones.seconds[ActivityLevel.MEDIUM] : null,
            vigorous_intensity_seconds: zones ? zones.seconds[ActivityLevel.HIGH] : null,
            activity_levels_samples: zones?.levelSamples ?? [],
          }
        : null,
      calories_data: activity
        ? {
            total_burned_calories: calories,
            net_activity_calories: activeCalories,
            BMR_calories: calories !== null && activeCalories !== null ? calories - activeCalories : null,
          }
        : null,
      distance_data: activity
        ? {
            steps: activity.steps ?? null,
            distance_meters: activity.distance_from_steps ?? null,
            detailed: {
              step_samples: stepSamples(daySamples?.steps?.samples, daySamples?.steps?.interval_ms, offset),
            },
          }
        : null,
      scores: activity ? { activity: activity.daily_activity ?? null } : null,
      heart_rate_data: heartRate
        ? {
            summary: { avg_hr_bpm: hr.avg, min_hr_bpm: hr.min, max_hr_bpm: hr.max },
            detailed: { hr_samples: hrSamples },
          }
        : null,
    };
  });
}
