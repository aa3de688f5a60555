// Google Health `exercise` sessions (+ the `heart-rate` samples inside each) -> Activity, one per
// data point, summary_id = the data point id.
//
// Mapped with care: Google's exercise carries no series; the heart-rate samples inside the session
// interval are its series, and the maximum and minimum come from them (the summary has only an
// average). Heart rates of 0/255 are not readings. Units: distance and elevation mm -> m, speed
// mm/s -> m/s, pace s/m -> min/km, `activeDuration` Duration -> s. Sport: `exerciseType`
// (RUNNING, BIKING, SWIMMING, STRENGTH_TRAINING…) by the shared names, then by its parts, then
// OTHER. `dataSource.recordingMethod` MANUAL -> upload_type MANUAL.
// Cannot map: `activeZoneMinutes` (no field), `heartRateZoneDurations` (zone bounds are not
// given), `runVo2Max` (kept as oxygen_data.vo2max), splits, exercise events (pauses), notes.
import type { Activity } from '../../../model/activity.ts';
import { ActivityType } from '../../../model/activity-type.ts';
import { HeartRateContext, UploadType } from '../../../model/enums.ts';
import { localizationOf, type NormalizeContext, statsOf } from '../../../provider-kit/normalize/normalize.ts';
import { activityTypeOfName } from '../../../provider-kit/normalize/sport-names.ts';
import { kilocaloriesToKilojoules, paceMinutesPerKilometer } from '../../../provider-kit/normalize/units.ts';
import {
  durationSeconds,
  heartRateOrNull,
  instantMs,
  int64,
  numberOrNull,
  offsetMinutes,
  pointId,
  positiveOrNull,
  textOrNull,
  wire,
} from './time.ts';
import type { DataPoint } from './types.ts';

export type FitbitActivityPayload = { exercise: readonly DataPoint[]; 'heart-rate'?: readonly DataPoint[] };

const googleNames: Readonly<Record<string, ActivityType>> = {
  biking: ActivityType.BIKING,
  workout: ActivityType.OTHER,
  weightlifting: ActivityType.WEIGHTLIFTING,
  exercisetypeunspecified: ActivityType.OTHER,
};

/** The sport: Google's names, the shared ones, then by parts (`OUTDOOR_BIKING` -> biking). */
export function googleActivityType(name: string | null): ActivityType {
  return activityTypeOfName(name, googleNames);
}

type HrPoint = { atMs: number; bpm: number; offset: number };

function heartRates(points: readonly DataPoint[] | undefined, context: NormalizeContext): HrPoint[] {
  const out: HrPoint[] = [];
  for (const point of points ?? []) {
    const sample = point?.heartRate;
    const atMs = instantMs(sample?.sampleTime?.physicalTime);
    const bpm = heartRateOrNull(int64(sample?.beatsPerMinute));
    if (atMs === null || bpm === null) continue;
    out.push({
      atMs,
      bpm,
      offset: offsetMinutes(atMs, sample?.sampleTime?.utcOffset, sample?.sampleTime?.civilTime, context),
    });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

export function normalizeExercises(payload: FitbitActivityPayload, context: NormalizeContext): Activity[] {
  const hr = heartRates(payload['heart-rate'], context);
  const records: Activity[] = [];
  for (const point of payload.exercise) {
    const exercise = point?.exercise;
    const id = pointId(point?.name);
    const startMs = instantMs(exercise?.interval?.startTime);
    const endMs = instantMs(exercise?.interval?.endTime);
    if (!exercise || !id || startMs === null || endMs === null) continue;
    const interval = exercise.interval ?? {};
    const offset = offsetMinutes(startMs, interval.startUtcOffset, interval.civilStartTime, context);
    const summary = exercise.metricsSummary ?? {};
    const samples = hr
      .filter((sample) => sample.atMs >= startMs && sample.atMs <= endMs)
      .map((sample) => ({
        timestamp: wire(sample.atMs, offset),
        bpm: sample.bpm,
        timer_duration_seconds: (sample.atMs - startMs) / 1000,
        context: HeartRateContext.ACTIVE,
      }));
    const stats = statsOf(samples.map((sample) => sample.bpm));
    const calories = numberOrNull(summary.caloriesKcal);
    const distanceMm = positiveOrNull(summary.distanceMillimeters);
    const speedMmS = positiveOrNull(summary.averageSpeedMillimetersPerSecond);
    const paceSPerM = positiveOrNull(summary.averagePaceSecondsPerMeter);
    const speed = speedMmS !== null ? speedMmS / 1000 : paceSPerM !== null ? 1 / paceSPerM : null;
    const vo2 = positiveOrNull(summary.runVo2Max);
    const device = point.dataSource?.device;
    records.push({
      metadata: {
        summary_id: id,
        start_time: wire(startMs, offset),
        end_time: wire(endMs, offsetMinutes(endMs, interval.endUtcOffset, interval.civilEndTime, context)),
        type: googleActivityType(textOrNull(exercise.exerciseType)),
        upload_type:
          point.dataSource?.recordingMethod === 'MANUAL' ? UploadType.MANUAL : UploadType.AUTOMATIC,
        name: textOrNull(exercise.displayName),
        timestamp_localization: localizationOf(offset),
      },
      active_durations_data: { activity_seconds: durationSeconds(exercise.activeDuration) },
      // `caloriesKcal` is the total burned during the exercise (v4 MetricsSummary), not the active part.
      calories_data: { total_burned_calories: calories },
      energy_data: { energy_kilojoules: calories === null ? null : kilocaloriesToKilojoules(calories) },
      distance_data: {
        summary: {
          distance_meters: distanceMm === null ? null : distanceMm / 1000,
          steps: positiveOrNull(int64(summary.steps)),
          elevation: {
            gain_actual_meters:
              positiveOrNull(summary.elevationGainMillimeters) === null
                ? null
                : (summary.elevationGainMillimeters as number) / 1000,
          },
          swimming:
            positiveOrNull(summary.totalSwimLengths) === null
              ? null
              : { num_laps: summary.totalSwimLengths as number },
        },
      },
      heart_rate_data: {
        summary: {
          avg_hr_bpm: heartRateOrNull(int64(summary.averageHeartRateBeatsPerMinute)) ?? stats.avg,
          max_hr_bpm: stats.max,
          min_hr_bpm: stats.min,
          user_max_hr_bpm: context.maxHeartRate ?? null,
        },
        detailed: { hr_samples: samples },
      },
      movement_data: {
        avg_speed_meters_per_second: speed,
        avg_pace_minutes_per_kilometer:
          paceSPerM !== null ? (paceSPerM * 1000) / 60 : speed ? paceMinutesPerKilometer(speed) : null,
      },
      oxygen_data: vo2 === null ? null : { vo2max_ml_per_min_per_kg: vo2 },
      device_data: device
        ? { manufacturer: textOrNull(device.manufacturer), name: textOrNull(device.displayName) }
        : null,
    });
  }
  return records;
}
