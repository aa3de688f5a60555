// Withings getworkouts -> Activity, summary_id = the workout `id`.
//
// Cannot map: `intensity`/`manual_intensity` (a 0-100 effort the user typed; no field),
// core body temperature, `algo_pause_duration` beyond the pause it adds, `modified`. Withings
// gives no series for a workout here (intraday activity covers the day, not the workout).
// `calories` are active kcal (net_activity_calories), `elevation` is floors climbed. Measured
// distance/calories win over the user's manual ones. activity_seconds is the span minus the
// user's and the device's pauses. attrib 2 (entered by the user) and 4 (at user creation) are
// manual uploads; other workouts were recorded or detected by a device.
import { heartRate, positiveOrNull } from '../../../provider-kit/normalize/measures.ts';
import type { Activity } from '../../../model/activity.ts';
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import type { NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import {
  convertOrNull,
  kilocaloriesToKilojoules,
  paceMinutesPerKilometer,
} from '../../../provider-kit/normalize/units.ts';
import { activityTypeOfCategory, workoutModels } from './categories.ts';
import { withingsZones } from './daily.ts';
import { offsetIn } from './timezone.ts';
import { type Pages, pagesOf, type WithingsWorkout, type WithingsWorkoutsBody } from './types.ts';

export type WithingsWorkoutPayload = { workouts: Pages<WithingsWorkoutsBody> };

function toActivity(workout: WithingsWorkout, fallback: number): Activity {
  const startMs = workout.startdate * 1000;
  const endMs = workout.enddate * 1000;
  const offset = offsetIn(workout.timezone, startMs, fallback);
  const data = workout.data ?? {};
  const spanSeconds = Math.max(0, (endMs - startMs) / 1000);
  const paused = (data.pause_duration ?? 0) + (data.algo_pause_duration ?? 0);
  const activeSeconds = Math.max(0, spanSeconds - paused);
  // A manual value of 0 is a field the user left at zero (a swim's `manual_distance: 0`), not a
  // measurement; a measured 0 stands.
  const distance = data.distance ?? positiveOrNull(data.manual_distance);
  const calories = data.calories ?? positiveOrNull(data.manual_calories);
  // Workouts recorded without heart rate report 0 bpm: no readings, and no zones from them.
  const avgHr = heartRate(data.hr_average);
  const minHr = heartRate(data.hr_min);
  const maxHr = heartRate(data.hr_max);
  const hasHeartRate = avgHr !== null || maxHr !== null;
  // 0 % is a workout recorded without the SpO2 sensor, never a saturation.
  const spo2 = positiveOrNull(data.spo2_average);
  const speed = distance !== null && activeSeconds > 0 ? distance / activeSeconds : null;
  const swim = data.pool_laps != null || data.strokes != null || data.pool_length != null;
  return {
    metadata: {
      summary_id: String(workout.id),
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(endMs, offset),
      type: activityTypeOfCategory(workout.category),
      upload_type: workout.attrib === 2 || workout.attrib === 4 ? UploadType.MANUAL : UploadType.AUTOMATIC,
      timestamp_localization: offset === 0 ? 0 : 1,
    },
    active_durations_data: { activity_seconds: activeSeconds, rest_seconds: paused || null },
    calories_data: { net_activity_calories: calories },
    energy_data: { energy_kilojoules: convertOrNull(calories, kilocaloriesToKilojoules) },
    distance_data: {
      summary: {
        distance_meters: distance,
        steps: data.steps ?? null,
        floors_climbed: data.elevation ?? null,
        swimming: swim
          ? {
              num_laps: data.pool_laps ?? null,
              num_strokes: data.strokes ?? null,
              pool_length_meters: data.pool_length ?? null,
            }
          : null,
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: avgHr,
        min_hr_bpm: minHr,
        max_hr_bpm: maxHr,
        hr_zone_data: hasHeartRate ? withingsZones(data) : null,
      },
    },
    movement_data:
      speed === null
        ? null
        : {
            avg_speed_meters_per_second: speed,
            avg_pace_minutes_per_kilometer: paceMinutesPerKilometer(speed),
          },
    oxygen_data: spo2 === null ? null : { avg_saturation_percentage: spo2 },
    device_data:
      typeof workout.model === 'number'
        ? {
            name: workoutModels[workout.model] ?? null,
            manufacturer: 'Withings',
            hardware_version: String(workout.model),
          }
        : null,
  };
}

export function normalizeWorkouts(payload: WithingsWorkoutPayload, context: NormalizeContext): Activity[] {
  const fallback = context.userOffsetMinutes ?? 0;
  const workouts: WithingsWorkout[] = [];
  for (const body of pagesOf(payload.workouts)) workouts.push(...body.series);
  return workouts
    .sort((left, right) => left.startdate - right.startdate)
    .map((workout) => toActivity(workout, fallback));
}
