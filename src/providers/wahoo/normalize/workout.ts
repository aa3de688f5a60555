// Wahoo workout (+ its workout_summary, + the summary's FIT file) -> Activity.
//
// The summary gives the totals (its numbers are strings); the FIT file gives every sample, the
// laps, and what the summary lacks (maxima, descent, altitude range, the device). Summary
// values win over the file's where both exist. Offsets: the summary's `time_zone` zone when
// present, else the FIT activity message's local clock, else the user's, never a silent UTC.
//
// Cannot map: `plan_id`, `workout_token` (the recording device's name and serial, kept as the
// device name when the file has none), `edited`, `fitness_app_id`, power zones.
import type { Activity } from '../../../model/activity.ts';
import { ActivityType } from '../../../model/activity-type.ts';
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import { expectObject, NormalizationError } from '../../../provider-kit/normalize/errors.ts';
import { type FitActivity, decodeFitActivity, fitSamples } from '../../../provider-kit/normalize/fit.ts';
import { fitLaps, fitSummary } from '../../../provider-kit/normalize/fit-summary.ts';
import { heartRate, numeric, sensorFigure, sensorRead } from '../../../provider-kit/normalize/measures.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { zoneOffsetMinutes } from '../../../provider-kit/normalize/time-zones.ts';
import {
  convertOrNull,
  kilocaloriesToKilojoules,
  paceMinutesPerKilometer,
} from '../../../provider-kit/normalize/units.ts';
import type { WahooWorkout } from './types.ts';
import { wahooActivityType } from './workout-types.ts';

export type WahooWorkoutPayload = {
  workout: WahooWorkout;
  /** The summary's FIT file, when it has one and it could be downloaded. */
  fit?: Uint8Array | null;
};

/** The summary's file URL: `file.url` (webhook, detail) or the first of `files` (list). */
export function fileUrlOf(workout: WahooWorkout): string | null {
  const summary = workout.workout_summary;
  const url = summary?.file?.url ?? summary?.files?.[0]?.url ?? null;
  return typeof url === 'string' && url !== '' ? url : null;
}

function offsetOf(
  zone: string | null | undefined,
  startMs: number,
  fit: FitActivity | null,
  context: NormalizeContext,
) {
  return zoneOffsetMinutes(zone, startMs) ?? fit?.localOffsetMinutes ?? context.userOffsetMinutes ?? 0;
}

export function normalizeWorkout(payload: WahooWorkoutPayload, context: NormalizeContext): Activity {
  const workout = expectObject('WAHOO workout', payload.workout) as WahooWorkout;
  const item = `WAHOO workout ${String(workout.id)}`;
  const startMs = typeof workout.starts === 'string' ? Date.parse(workout.starts) : Number.NaN;
  if (Number.isNaN(startMs))
    throw new NormalizationError(item, `unreadable starts "${String(workout.starts)}"`);
  const summary = workout.workout_summary ?? null;
  const fit = payload.fit ? decodeFitActivity(payload.fit, item) : null;
  const offset = offsetOf(summary?.time_zone, startMs, fit, context);
  const samples = fit ? fitSamples(fit, startMs, offset) : null;
  const fromFit = fit && samples ? fitSummary(fit, samples) : null;

  const totalSeconds =
    numeric(summary?.duration_total_accum) ??
    fromFit?.elapsedSeconds ??
    (numeric(workout.minutes) === null ? null : (numeric(workout.minutes) as number) * 60);
  const activeSeconds = numeric(summary?.duration_active_accum) ?? fromFit?.timerSeconds ?? null;
  const pausedSeconds =
    numeric(summary?.duration_paused_accum) ??
    (totalSeconds !== null && activeSeconds !== null ? Math.max(0, totalSeconds - activeSeconds) : null);
  const calories = numeric(summary?.calories_accum) ?? fromFit?.calories ?? null;
  // Without a power meter or cadence sensor the summary still says "0.0": no measurement
  // unless the file's records show the sensor read (sensorFigure).
  const cadenceRead = sensorRead(samples?.cadence_samples, 'cadence_rpm');
  const powerRead = sensorRead(samples?.power_samples, 'watts');
  const workJoules = sensorFigure(numeric(summary?.work_accum), powerRead) ?? fromFit?.workJoules ?? null;
  const avgSpeed = numeric(summary?.speed_avg) ?? fromFit?.avgSpeed ?? null;
  const maxSpeed = fromFit?.maxSpeed ?? null;
  const tss = sensorFigure(numeric(summary?.power_bike_tss_last), powerRead) ?? fromFit?.tss ?? null;
  const normalizedPower =
    sensorFigure(numeric(summary?.power_bike_np_last), powerRead) ?? fromFit?.normalizedWatts ?? null;
  const ascent = numeric(summary?.ascent_accum) ?? fromFit?.ascent ?? null;
  const positions = samples?.position_samples ?? [];
  const endMs = startMs + (totalSeconds ?? 0) * 1000;

  return {
    metadata: {
      summary_id: String(workout.id),
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(endMs, offset),
      type: fromFit?.multisport ? ActivityType.MULTISPORT : wahooActivityType(workout.workout_type_id),
      upload_type: summary?.manual === true ? UploadType.MANUAL : UploadType.AUTOMATIC,
      name: workout.name ?? null,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: { activity_seconds: activeSeconds, rest_seconds: pausedSeconds },
    calories_data: { total_burned_calories: calories },
    energy_data: { energy_kilojoules: convertOrNull(calories, kilocaloriesToKilojoules) },
    work_data: { work_kilojoules: workJoules === null ? null : workJoules / 1000 },
    device_data: {
      name: fit?.device.product ?? workout.workout_token ?? null,
      manufacturer: fit?.device.manufacturer ?? 'Wahoo Fitness',
      serial_number: fit?.device.serialNumber ?? null,
    },
    distance_data: {
      summary: {
        distance_meters: numeric(summary?.distance_accum) ?? fromFit?.distanceMeters ?? null,
        elevation:
          ascent === null && fromFit?.maxAltitude == null
            ? null
            : {
                gain_actual_meters: ascent,
                loss_actual_meters: fromFit?.descent ?? null,
                max_meters: fromFit?.maxAltitude ?? null,
                min_meters: fromFit?.minAltitude ?? null,
              },
      },
      detailed: {
        distance_samples: samples?.distance_samples ?? [],
        elevation_samples: samples?.elevation_samples ?? [],
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(numeric(summary?.heart_rate_avg)) ?? fromFit?.avgHr ?? null,
        max_hr_bpm: fromFit?.maxHr ?? null,
        min_hr_bpm: fromFit?.minHr ?? null,
        user_max_hr_bpm: context.maxHeartRate ?? null,
      },
      detailed: { hr_samples: samples?.hr_samples ?? [] },
    },
    lap_data: fit && fit.laps.length > 0 ? { laps: fitLaps(fit, offset) } : null,
    movement_data: {
      avg_speed_meters_per_second: avgSpeed,
      max_speed_meters_per_second: maxSpeed,
      avg_pace_minutes_per_kilometer: avgSpeed === null ? null : paceMinutesPerKilometer(avgSpeed),
      max_pace_minutes_per_kilometer: maxSpeed === null ? null : paceMinutesPerKilometer(maxSpeed),
      avg_cadence_rpm:
        sensorFigure(numeric(summary?.cadence_avg), cadenceRead) ?? fromFit?.avgCadence ?? null,
      max_cadence_rpm: fromFit?.maxCadence ?? null,
      speed_samples: samples?.speed_samples ?? [],
      cadence_samples: samples?.cadence_samples ?? [],
    },
    position_data: {
      start_pos_lat_lng_deg: positions[0]?.coords_lat_lng_deg ?? null,
      end_pos_lat_lng_deg: positions[positions.length - 1]?.coords_lat_lng_deg ?? null,
      position_samples: positions,
    },
    power_data: {
      avg_watts: sensorFigure(numeric(summary?.power_avg), powerRead) ?? fromFit?.avgWatts ?? null,
      max_watts: fromFit?.maxWatts ?? null,
      power_samples: samples?.power_samples ?? [],
    },
    TSS_data:
      tss === null && normalizedPower === null
        ? null
        : {
            TSS_samples: [
              {
                planned: null,
                actual: tss,
                method: 'POWER',
                intensity_factor_planned: null,
                intensity_factor_actual: null,
                normalized_power_watts: normalizedPower,
              },
            ],
          },
  };
}
