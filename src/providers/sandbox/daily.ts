// Daily records: the day's totals, built from its workouts plus background movement.

import type { Daily } from '../../model/daily.ts';
import {
  ActivityLevel,
  HeartRateContext,
  OxygenSaturationType,
  StressLevel,
  UploadType,
} from '../../model/enums.ts';
import { activityRecord } from './activity.ts';
import type { DayContext } from './context.ts';
import { bodyBattery, FIVE_MINUTES_MS, heartRateSeries, stressSeries } from './daily-signals.ts';
import { BIN_COUNT, BIN_MINUTES, binStartMs, type DayTimeline, dayTimeline } from './day-timeline.ts';
import { deviceData } from './device.ts';
import { dayIntakeCalories } from './nutrition.ts';
import { Random } from './random.ts';
import { clamp, max, mean, min, round } from './series.ts';
import { activityLevelForMet, metBands, strainFromTrimp, trimp } from './workout-metrics.ts';

const BIN_SECONDS = BIN_MINUTES * 60;
const TAGS = ['alcohol', 'late_meal', 'caffeine', 'travel', 'sauna', 'meditation'] as const;

export function generateDaily(context: DayContext): Daily[] {
  return [dailyRecord(context, dayTimeline(context))];
}

function dailyRecord(context: DayContext, timeline: DayTimeline): Daily {
  const { profile } = context;
  const { background } = timeline;
  const random = new Random(context.seed, context.date, 'daily');
  // Summaries of the day's activities, exactly as the activity endpoint reports them.
  const activities = timeline.workouts.map((series) =>
    activityRecord({ ...context, withSamples: false }, series),
  );
  const activitySum = (pick: (activity: (typeof activities)[number]) => number | null | undefined) =>
    activities.reduce((total, activity) => total + (pick(activity) ?? 0), 0);
  const steps = activitySum((activity) => activity.distance_data?.summary?.steps) + background.steps;
  const distance = round(
    activitySum((activity) => activity.distance_data?.summary?.distance_meters) + background.distance_meters,
    2,
  );
  const floors =
    activitySum((activity) => activity.distance_data?.summary?.floors_climbed) + background.floors_climbed;
  const netActivity = round(
    activitySum((activity) => activity.calories_data?.net_activity_calories) +
      background.net_activity_calories,
    2,
  );
  const bmr = round(profile.bmrKcalPerDay, 2);
  // Floors climbed in a workout land in the bin where it ends.
  const floorsPerBin = [...timeline.floors];
  activities.forEach((activity, index) => {
    const series = timeline.workouts[index];
    if (!series) return;
    const endBin = Math.min(
      BIN_COUNT - 1,
      Math.floor(
        (series.plan.startMs + series.plan.durationSeconds * 1000 - 1 - context.startMs) /
          (BIN_SECONDS * 1000),
      ),
    );
    floorsPerBin[endBin] =
      (floorsPerBin[endBin] ?? 0) + (activity.distance_data?.summary?.floors_climbed ?? 0);
  });
  const sample = <T>(build: () => T[]): T[] => (context.withSamples ? build() : []);
  const binTime = (bin: number) => context.time(binStartMs(context, bin));

  const levels = timeline.met.map((met, bin) =>
    timeline.asleep[bin] ? ActivityLevel.REST : activityLevelForMet(met),
  );
  const count = (level: number) => levels.filter((value) => value === level).length;
  const metLevels = timeline.met.map((met) => round(met, 1));
  const bands = metBands(metLevels);
  const heart = heartRateSeries(context, timeline, random);
  const stress = stressSeries(timeline, random);
  const battery = bodyBattery(timeline, stress.levels);
  const activeSeconds =
    (count(ActivityLevel.LOW) + count(ActivityLevel.MEDIUM) + count(ActivityLevel.HIGH)) * BIN_SECONDS;
  const oxygenBins = timeline.asleep.flatMap((asleep, bin) => (asleep && bin % 4 === 0 ? [bin] : []));
  const oxygen = oxygenBins.map(() => round(clamp(random.normal(96.6, 0.8), 92, 100), 1));
  const trimpTotal = timeline.workouts.reduce(
    (total, series) => total + trimp(series, profile.restingHr, profile.maxHr),
    0,
  );
  const activityScore = Math.round(clamp((steps / 10_000) * 60 + (activeSeconds / 3600) * 10, 0, 100));
  const avgStress = round(mean(stress.levels), 2);
  let cumulativeDistance = 0;
  let cumulativeFloors = 0;
  return {
    metadata: {
      start_time: context.time(context.startMs),
      end_time: context.time(context.endMs),
      upload_type: UploadType.AUTOMATIC,
      timestamp_localization: context.timestampLocalization,
    },
    active_durations_data: {
      activity_levels_samples: sample(() =>
        levels.map((level, bin) => ({ timestamp: binTime(bin), level, activity_level: level })),
      ),
      activity_seconds: activeSeconds,
      inactivity_seconds: count(ActivityLevel.INACTIVE) * BIN_SECONDS,
      low_intensity_seconds: count(ActivityLevel.LOW) * BIN_SECONDS,
      moderate_intensity_seconds: count(ActivityLevel.MEDIUM) * BIN_SECONDS,
      vigorous_intensity_seconds: count(ActivityLevel.HIGH) * BIN_SECONDS,
      num_continuous_inactive_periods: inactiveRuns(levels),
      rest_seconds: count(ActivityLevel.REST) * BIN_SECONDS,
      standing_hours_count: new Set(
        timeline.steps.flatMap((value, bin) => (value >= 100 ? [Math.floor(bin / 4)] : [])),
      ).size,
      standing_seconds: timeline.steps.filter((value) => value >= 100).length * BIN_SECONDS,
    },
    calories_data: {
      BMR_calories: bmr,
      calorie_samples: sample(() =>
        timeline.activeCalories.map((active, bin) => ({
          timestamp: binTime(bin),
          calories: round(bmr / BIN_COUNT + active, 2),
        })),
      ),
      net_activity_calories: netActivity,
      net_intake_calories: dayIntakeCalories(context),
      total_burned_calories: round(bmr + netActivity, 2),
    },
    distance_data: {
      distance_meters: distance,
      steps,
      floors_climbed: floors,
      elevation: null,
      swimming: null,
      detailed: {
        // Cumulative series are stamped at the end of their bin; the last one is the day total.
        distance_samples: sample(() =>
          timeline.distance.map((meters, bin) => {
            cumulativeDistance += meters;
            const value = bin === BIN_COUNT - 1 ? distance : round(cumulativeDistance, 2);
            return { timestamp: binTime(bin + 1), distance_meters: value };
          }),
        ),
        elevation_samples: [],
        floors_climbed_samples: sample(() =>
          floorsPerBin.map((value, bin) => {
            cumulativeFloors += value;
            return { timestamp: binTime(bin + 1), floors_climbed: cumulativeFloors };
          }),
        ),
        step_samples: sample(() =>
          timeline.steps.map((value, bin) => ({ timestamp: binTime(bin), steps: value })),
        ),
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: round(mean(heart.bpm), 2),
        avg_hrv_rmssd: round(mean(heart.hrv), 2),
        avg_hrv_sdnn: null,
        hr_zone_data: [],
        max_hr_bpm: max(heart.bpm),
        min_hr_bpm: min(heart.bpm),
        resting_hr_bpm: min(heart.bpm),
        user_max_hr_bpm: profile.maxHr,
      },
      detailed: {
        hr_samples: sample(() =>
          heart.bpm.map((bpm, index) => ({
            timestamp: context.time(context.startMs + index * FIVE_MINUTES_MS),
            bpm,
            context: heart.active[index] ? HeartRateContext.ACTIVE : HeartRateContext.NOT_ACTIVE,
          })),
        ),
        hrv_samples_rmssd: sample(() =>
          heart.hrv.map((value, hour) => ({
            timestamp: context.time(context.startMs + hour * 3_600_000),
            hrv_rmssd: value,
          })),
        ),
        hrv_samples_sdnn: [],
      },
    },
    MET_data: {
      MET_samples: sample(() => metLevels.map((level, bin) => ({ timestamp: binTime(bin), level }))),
      avg_level: round(mean(metLevels), 2),
      num_high_intensity_minutes: bands.high * BIN_MINUTES,
      num_inactive_minutes: bands.inactive * BIN_MINUTES,
      num_low_intensity_minutes: bands.low * BIN_MINUTES,
      num_moderate_intensity_minutes: bands.moderate * BIN_MINUTES,
    },
    oxygen_data: {
      avg_saturation_percentage: oxygen.length > 0 ? round(mean(oxygen), 2) : null,
      saturation_samples: sample(() =>
        oxygenBins.map((bin, index) => ({
          timestamp: binTime(bin),
          percentage: oxygen[index] ?? null,
          type: OxygenSaturationType.BLOOD_SPO2,
        })),
      ),
      vo2_samples: sample(() => [
        { timestamp: binTime(BIN_COUNT - 1), vo2max_ml_per_min_per_kg: profile.vo2max },
      ]),
      vo2max_ml_per_min_per_kg: profile.vo2max,
    },
    scores: {
      activity: activityScore,
      recovery: timeline.previousNight.readiness,
      sleep: timeline.previousNight.score,
    },
    strain_data: { strain_level: strainFromTrimp(trimpTotal + steps / 1000) },
    stress_data: {
      avg_stress_level: avgStress,
      max_stress_level: max(stress.levels),
      activity_stress_duration_seconds: stress.activityBins * BIN_SECONDS,
      low_stress_duration_seconds:
        stress.levels.filter((level) => level > 25 && level <= 50).length * BIN_SECONDS,
      medium_stress_duration_seconds:
        stress.levels.filter((level) => level > 50 && level <= 75).length * BIN_SECONDS,
      high_stress_duration_seconds: stress.levels.filter((level) => level > 75).length * BIN_SECONDS,
      rest_stress_duration_seconds: stress.levels.filter((level) => level <= 25).length * BIN_SECONDS,
      stress_duration_seconds: stress.levels.filter((level) => level > 25).length * BIN_SECONDS,
      stress_rating: stressRating(avgStress),
      samples: sample(() =>
        stress.bins.map((bin, index) => ({ timestamp: binTime(bin), level: stress.levels[index] ?? null })),
      ),
      body_battery_samples: sample(() => battery.map((level, bin) => ({ timestamp: binTime(bin), level }))),
    },
    tag_data: {
      tags: random.chance(0.15)
        ? [
            {
              timestamp: context.time(context.startMs + 20 * 3_600_000),
              tag_name: random.pick(TAGS),
              notes: '',
            },
          ]
        : [],
    },
    data_enrichment: {
      cardiovascular_score: Math.round(clamp(100 - (profile.restingHr - 45) * 2, 0, 100)),
      cardiovascular_contributors: { resting_heart_rate: profile.restingHr },
      immune_index: Math.round(clamp(timeline.previousNight.readiness + random.normal(0, 5), 0, 100)),
      immune_contributors: {},
      // readiness_score and its contributors are left to Tributary's computed scores
      // (features/scores, docs/scores.md); the provider's own readiness is scores.recovery.
      respiratory_score: Math.round(clamp(random.normal(82, 6), 0, 100)),
      respiratory_contributors: {},
      total_stress_score: Math.round(avgStress),
      stress_contributors: { average_stress: avgStress },
      start_time: context.time(context.startMs),
    },
    device_data: deviceData(context, 'watch', context.endMs - 60_000),
  };
}

function inactiveRuns(levels: readonly number[]): number {
  let runs = 0;
  let length = 0;
  for (const level of [...levels, -1]) {
    if (level === ActivityLevel.INACTIVE) length++;
    else {
      if (length >= 2) runs++;
      length = 0;
    }
  }
  return runs;
}

function stressRating(average: number) {
  if (average <= 25) return StressLevel.REST;
  if (average <= 50) return StressLevel.LOW;
  if (average <= 75) return StressLevel.MEDIUM;
  return StressLevel.HIGH;
}
