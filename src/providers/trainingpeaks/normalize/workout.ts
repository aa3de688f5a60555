// TrainingPeaks workout (wiki "Workouts Object") -> Activity, for completed workouts.
//
// A workout is completed when it has an actual duration (`TotalTime` > 0, decimal hours); the
// rest are planned (planned-workouts.ts). `StartTime` (else `WorkoutDay`) is local wall time
// without an offset: it is placed in the athlete's `TimeZone` at that time, else the user's
// offset. Basic athletes get null for calories, heart rate, power, TSS, IF, elevation, cadence
// and speed ("Premium vs Basic Athlete"); those fields are then left out. Placeholder zeros are
// not readings. Not filled: samples (`/details` is a separate, premium-only call), laps, zones
// (`/timeinzones`), position. Cannot hold: temperatures, `Feeling`, `Rpe`, comments, tags.
import type { Activity } from '../../../model/activity.ts';
import { ActivityType, type ActivityType as ActivityTypeCode } from '../../../model/activity-type.ts';
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import { heartRate, positiveOrNull } from '../../../provider-kit/normalize/measures.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { localTimeOffsetMinutes } from '../../../provider-kit/normalize/time-zones.ts';
import {
  convertOrNull,
  kilocaloriesToKilojoules,
  paceMinutesPerKilometer,
} from '../../../provider-kit/normalize/units.ts';
import type { TpWorkout } from './types.ts';

const T = ActivityType;

/** WorkoutType (lower-cased) -> unified type. */
export const tpWorkoutTypes: Readonly<Record<string, ActivityTypeCode>> = {
  swim: T.SWIMMING,
  bike: T.BIKING,
  run: T.RUNNING,
  walk: T.WALKING,
  mtb: T.MOUNTAIN_BIKING,
  'xc-ski': T.CROSS_COUNTRY_SKIING,
  rowing: T.ROWING,
  brick: T.MULTISPORT,
  strength: T.STRENGTH_TRAINING,
  'x-train': T.OTHER,
  race: T.OTHER,
  custom: T.OTHER,
  other: T.OTHER,
};

/** A completed workout (an actual duration); `day off` is never one. */
export function isCompleted(workout: TpWorkout): boolean {
  return (
    (workout.WorkoutType ?? '').toLowerCase() !== 'day off' && (positiveOrNull(workout.TotalTime) ?? 0) > 0
  );
}

/** The offset of a local wall time in the athlete's zone, else the user's. */
export function wallOffset(local: string, timezone: string | null, context: NormalizeContext): number {
  return localTimeOffsetMinutes(timezone, local) ?? context.userOffsetMinutes ?? 0;
}

export type TpWorkoutPayload = { workout: TpWorkout; timezone: string | null };

export function normalizeWorkout(payload: TpWorkoutPayload, context: NormalizeContext): Activity {
  const w = payload.workout;
  if (typeof w?.Id !== 'number' || typeof w.WorkoutDay !== 'string')
    throw new RangeError('a workout without Id or WorkoutDay');
  const local = (w.StartTime ?? w.WorkoutDay).replace(' ', 'T');
  const offset = wallOffset(local, payload.timezone, context);
  const startMs = Date.parse(`${local}Z`) - offset * 60_000;
  if (Number.isNaN(startMs)) throw new RangeError(`workout ${w.Id}: invalid StartTime`);
  const seconds = Math.round((w.TotalTime ?? 0) * 3600);
  const calories = positiveOrNull(w.Calories);
  const energy = positiveOrNull(w.Energy);
  const speed = positiveOrNull(w.VelocityAverage);
  const maxSpeed = positiveOrNull(w.VelocityMaximum);
  const tss = positiveOrNull(w.TssActual);
  const hasElevation = [w.ElevationGain, w.ElevationLoss, w.ElevationMinimum, w.ElevationMaximum].some(
    (v) => v != null,
  );
  return {
    metadata: {
      summary_id: String(w.Id),
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(startMs + seconds * 1000, offset),
      type: tpWorkoutTypes[(w.WorkoutType ?? '').toLowerCase()] ?? T.OTHER,
      upload_type: UploadType.UNKNOWN,
      name: w.Title ?? null,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: { activity_seconds: seconds },
    calories_data: { total_burned_calories: calories },
    // Energy expended is the calories; `Energy` is the power meter's work output (the wiki's
    // example: Calories 742, Energy 742.105 kJ), so it is work, never energy expended.
    energy_data: { energy_kilojoules: convertOrNull(calories, kilocaloriesToKilojoules) },
    work_data: { work_kilojoules: energy },
    distance_data: {
      summary: {
        distance_meters: positiveOrNull(w.Distance),
        elevation: hasElevation
          ? {
              gain_actual_meters: w.ElevationGain ?? null,
              loss_actual_meters: w.ElevationLoss ?? null,
              min_meters: w.ElevationMinimum ?? null,
              avg_meters: w.ElevationAverage ?? null,
              max_meters: w.ElevationMaximum ?? null,
            }
          : null,
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(w.HeartRateAverage),
        max_hr_bpm: heartRate(w.HeartRateMaximum),
        min_hr_bpm: heartRate(w.HeartRateMinimum),
      },
    },
    movement_data: {
      avg_speed_meters_per_second: speed,
      max_speed_meters_per_second: maxSpeed,
      avg_pace_minutes_per_kilometer: speed === null ? null : paceMinutesPerKilometer(speed),
      max_pace_minutes_per_kilometer: maxSpeed === null ? null : paceMinutesPerKilometer(maxSpeed),
      avg_cadence_rpm: positiveOrNull(w.CadenceAverage),
      max_cadence_rpm: positiveOrNull(w.CadenceMaximum),
    },
    power_data: { avg_watts: positiveOrNull(w.PowerAverage), max_watts: positiveOrNull(w.PowerMaximum) },
    TSS_data:
      tss === null
        ? null
        : {
            TSS_samples: [
              {
                actual: tss,
                planned: positiveOrNull(w.TssPlanned),
                method: w.TssCalculationMethod ?? null,
                intensity_factor_actual: positiveOrNull(w.IF),
                intensity_factor_planned: positiveOrNull(w.IFPlanned),
                normalized_power_watts: positiveOrNull(w.NormalizedPower),
              },
            ],
          },
  };
}
