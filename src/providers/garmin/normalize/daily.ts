// Garmin dailies + epochs + stress details + pulse ox of the same calendar day -> Daily, one per
// `calendarDate` (Garmin re-sends a day's summary as it grows: the longest copy wins).
//
// Mapped with care: `averageHeartRateInBeatsPerMinute` is a 7-day average, not the day's, so the
// day's average comes from its heart-rate samples only; heart rates of 0/255 are "no reading" and
// are neither samples nor minima/maxima. Stress values below 0 (-1 not enough data, -2 too much
// motion) are not readings. Epoch `intensity` SEDENTARY/ACTIVE/HIGHLY_ACTIVE -> activity level
// INACTIVE/MEDIUM/HIGH. `stressQualifier` calm/balanced/stressful/very_stressful -> StressLevel
// REST/LOW/MEDIUM/HIGH.
// Cannot map: goals (`stepsGoal`, `intensityDurationGoalInSeconds`, …), body battery charged /
// drained totals (only the series has a field), `activityType` of the day, epoch
// `meanMotionIntensity` / `maxMotionIntensity`.
import {
  ActivityLevel,
  type CodeOf,
  HeartRateContext,
  StressLevel,
  UploadType,
} from '../../../model/enums.ts';
import type { Daily } from '../../../model/daily.ts';
import {
  dayBoundsOf,
  localizationOf,
  type NormalizeContext,
  statsOf,
} from '../../../provider-kit/normalize/normalize.ts';
import { sumOrNull } from '../../../provider-kit/normalize/units.ts';
import { localIsoDate } from '../../../model/time.ts';
import {
  heartRateOrNull,
  isHeartRate,
  isNumber,
  numberOrNull,
  offsetMinutesOf,
  offsetPoints,
  textOrNull,
  wireAt,
} from './time.ts';
import type { GarminDaily, GarminEpoch, GarminPulseOx, GarminStress } from './types.ts';

export type GarminDailyPayload = {
  dailies: readonly GarminDaily[];
  epochs?: readonly GarminEpoch[];
  stressDetails?: readonly GarminStress[];
  pulseox?: readonly GarminPulseOx[];
};

const intensityLevels: Readonly<Record<string, CodeOf<typeof ActivityLevel>>> = {
  SEDENTARY: ActivityLevel.INACTIVE,
  ACTIVE: ActivityLevel.MEDIUM,
  HIGHLY_ACTIVE: ActivityLevel.HIGH,
};

const stressRatings: Readonly<Record<string, CodeOf<typeof StressLevel>>> = {
  calm: StressLevel.REST,
  balanced: StressLevel.LOW,
  stressful: StressLevel.MEDIUM,
  very_stressful: StressLevel.HIGH,
};

const stressOrNull = (value: number | undefined) => (isNumber(value) && value >= 0 ? value : null);

/** The day a summary belongs to: its `calendarDate`, else the local date of its start. */
function dayOf(
  summary: { calendarDate?: string; startTimeInSeconds?: number },
  offset: number,
): string | null {
  if (typeof summary.calendarDate === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(summary.calendarDate))
    return summary.calendarDate;
  return isNumber(summary.startTimeInSeconds)
    ? localIsoDate(summary.startTimeInSeconds * 1000, offset)
    : null;
}

function groupByDay<
  T extends { calendarDate?: string; startTimeInSeconds?: number; startTimeOffsetInSeconds?: number | null },
>(items: readonly T[] | undefined, context: NormalizeContext): Map<string, T[]> {
  const days = new Map<string, T[]>();
  for (const item of items ?? []) {
    if (!item || typeof item !== 'object') continue;
    const day = dayOf(item, offsetMinutesOf(item, context, { dayStart: true }));
    if (!day) continue;
    days.set(day, [...(days.get(day) ?? []), item]);
  }
  return days;
}

/** The most complete copy of a day's summary (Garmin re-sends it as the day goes on). */
function latest<T extends { durationInSeconds?: number }>(items: readonly T[] | undefined): T | undefined {
  let best: T | undefined;
  for (const item of items ?? [])
    if (!best || (item.durationInSeconds ?? 0) >= (best.durationInSeconds ?? 0)) best = item;
  return best;
}

function normalizeDay(
  day: string,
  daily: GarminDaily,
  epochs: readonly GarminEpoch[],
  stress: GarminStress | undefined,
  pulse: readonly GarminPulseOx[],
  context: NormalizeContext,
): Daily {
  const offset = offsetMinutesOf(daily, context, { dayStart: true });
  const start = isNumber(daily.startTimeInSeconds) ? daily.startTimeInSeconds : null;
  const hrSamples =
    start === null
      ? []
      : offsetPoints(daily.timeOffsetHeartRateSamples, start, isHeartRate).map((point) => ({
          timestamp: wireAt(point.atSeconds, offset),
          bpm: point.value,
          context: HeartRateContext.NOT_SET,
        }));
  const hr = statsOf(hrSamples.map((sample) => sample.bpm));
  const sortedEpochs = [...epochs]
    .filter((epoch) => isNumber(epoch.startTimeInSeconds))
    .sort((a, b) => (a.startTimeInSeconds ?? 0) - (b.startTimeInSeconds ?? 0));
  const at = (epoch: GarminEpoch) => wireAt(epoch.startTimeInSeconds ?? 0, offset);
  const stressStart = isNumber(stress?.startTimeInSeconds) ? stress.startTimeInSeconds : start;
  const stressSamples =
    stress && stressStart !== null
      ? offsetPoints(stress.timeOffsetStressLevelValues, stressStart, (value) => value >= 0).map((point) => ({
          timestamp: wireAt(point.atSeconds, offset),
          level: point.value,
        }))
      : [];
  const batterySamples =
    stress && stressStart !== null
      ? offsetPoints(stress.timeOffsetBodyBatteryValues, stressStart, (value) => value >= 0).map((point) => ({
          timestamp: wireAt(point.atSeconds, offset),
          level: point.value,
        }))
      : [];
  const spo2 = pulse.flatMap((reading) =>
    isNumber(reading.startTimeInSeconds)
      ? offsetPoints(
          reading.timeOffsetSpo2Values,
          reading.startTimeInSeconds,
          (value) => value > 0 && value <= 100,
        ).map((point) => ({
          timestamp: wireAt(point.atSeconds, offset),
          percentage: point.value,
          type: 0 as const,
        }))
      : [],
  );
  const spo2Stats = statsOf(spo2.map((sample) => sample.percentage));
  const metSamples = sortedEpochs
    .filter((epoch) => isNumber(epoch.met))
    .map((epoch) => ({ timestamp: at(epoch), level: epoch.met ?? null }));
  const active = numberOrNull(daily.activeKilocalories);
  const bmr = numberOrNull(daily.bmrKilocalories);
  const stressStats = statsOf(stressSamples.map((sample) => sample.level));

  return {
    metadata: {
      ...dayBoundsOf(day, offset),
      upload_type: UploadType.AUTOMATIC,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: {
      activity_seconds: numberOrNull(daily.activeTimeInSeconds),
      moderate_intensity_seconds: numberOrNull(daily.moderateIntensityDurationInSeconds),
      vigorous_intensity_seconds: numberOrNull(daily.vigorousIntensityDurationInSeconds),
      activity_levels_samples: sortedEpochs
        .filter((epoch) => typeof epoch.intensity === 'string' && epoch.intensity in intensityLevels)
        .map((epoch) => {
          const level = intensityLevels[epoch.intensity ?? ''] ?? ActivityLevel.UNKNOWN;
          return { timestamp: at(epoch), level, activity_level: level };
        }),
    },
    calories_data: {
      total_burned_calories: sumOrNull(active, bmr),
      net_activity_calories: active,
      BMR_calories: bmr,
      calorie_samples: sortedEpochs
        .filter((epoch) => isNumber(epoch.activeKilocalories))
        .map((epoch) => ({
          timestamp: at(epoch),
          calories: epoch.activeKilocalories ?? null,
          timer_duration_seconds: numberOrNull(epoch.durationInSeconds),
        })),
    },
    distance_data: {
      steps: numberOrNull(daily.steps),
      distance_meters: numberOrNull(daily.distanceInMeters),
      floors_climbed: numberOrNull(daily.floorsClimbed),
      detailed: {
        step_samples: sortedEpochs
          .filter((epoch) => isNumber(epoch.steps))
          .map((epoch) => ({
            timestamp: at(epoch),
            steps: epoch.steps ?? null,
            timer_duration_seconds: numberOrNull(epoch.durationInSeconds),
          })),
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: hr.avg,
        min_hr_bpm: heartRateOrNull(daily.minHeartRateInBeatsPerMinute) ?? hr.min,
        max_hr_bpm: heartRateOrNull(daily.maxHeartRateInBeatsPerMinute) ?? hr.max,
        resting_hr_bpm: heartRateOrNull(daily.restingHeartRateInBeatsPerMinute),
      },
      detailed: { hr_samples: hrSamples },
    },
    MET_data:
      metSamples.length > 0
        ? { MET_samples: metSamples, avg_level: statsOf(metSamples.map((sample) => sample.level)).avg }
        : null,
    oxygen_data:
      spo2.length > 0 ? { avg_saturation_percentage: spo2Stats.avg, saturation_samples: spo2 } : null,
    stress_data: {
      avg_stress_level: stressOrNull(daily.averageStressLevel) ?? stressStats.avg,
      max_stress_level: stressOrNull(daily.maxStressLevel) ?? stressStats.max,
      stress_duration_seconds: numberOrNull(daily.stressDurationInSeconds),
      rest_stress_duration_seconds: numberOrNull(daily.restStressDurationInSeconds),
      activity_stress_duration_seconds: numberOrNull(daily.activityStressDurationInSeconds),
      low_stress_duration_seconds: numberOrNull(daily.lowStressDurationInSeconds),
      medium_stress_duration_seconds: numberOrNull(daily.mediumStressDurationInSeconds),
      high_stress_duration_seconds: numberOrNull(daily.highStressDurationInSeconds),
      stress_rating: stressRatings[(textOrNull(daily.stressQualifier) ?? '').toLowerCase()] ?? null,
      samples: stressSamples,
      body_battery_samples: batterySamples,
    },
  };
}

export function normalizeDailies(payload: GarminDailyPayload, context: NormalizeContext): Daily[] {
  const dailies = groupByDay(payload.dailies, context);
  const epochs = groupByDay(payload.epochs, context);
  const stress = groupByDay(payload.stressDetails, context);
  const pulse = groupByDay(payload.pulseox, context);
  const records: Daily[] = [];
  for (const [day, copies] of dailies) {
    const daily = latest(copies);
    if (!daily) continue;
    records.push(
      normalizeDay(day, daily, epochs.get(day) ?? [], latest(stress.get(day)), pulse.get(day) ?? [], context),
    );
  }
  return records.sort((a, b) => a.metadata.start_time.localeCompare(b.metadata.start_time));
}
