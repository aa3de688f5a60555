// WHOOP workout -> Activity.
//
// A workout in WHOOP's v1 shape (a long `id`, `sport_id` only, zones as `zone_duration`) is read
// the same way; its id is written in decimal. Cannot map: `percent_recorded` (share of the workout with heart-rate data; no slot), `v1_id`,
// `created_at`/`updated_at`. Zone bounds: WHOOP reports time per zone 0-5 but not the zones'
// heart-rate bounds, so start/end percentages stay null. kJ -> kcal uses 4.184. The elevation
// loss is gain - change: `altitude_change_meter` is end minus start altitude and
// `altitude_gain_meter` counts only climbing, so what was descended is their difference.
import type { Activity } from '../../../model/activity.ts';
import { HeartRateZone } from '../../../model/enums.ts';
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import type { NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { kilojoulesToKilocalories, millisecondsToSeconds } from '../../../provider-kit/normalize/units.ts';
import { idText, instant, offsetOf, uploadTypeOf, wire } from './common.ts';
import { whoopActivityType, whoopSportName } from './sports.ts';
import type { WhoopBodyMeasurement, WhoopWorkout, WhoopZoneDurations } from './types.ts';

export type WhoopWorkoutPayload = {
  workout: readonly WhoopWorkout[];
  /** For the user's max heart rate (`user_max_hr_bpm`). */
  body_measurement?: WhoopBodyMeasurement | null;
};

/** Zone keys with the spec's own description of each zone. */
const zones: readonly [
  keyof WhoopZoneDurations,
  (typeof HeartRateZone)[keyof typeof HeartRateZone],
  string,
][] = [
  ['zone_zero_milli', HeartRateZone.ZONE_0, 'Zone 0 (very light activity)'],
  ['zone_one_milli', HeartRateZone.ZONE_1, 'Zone 1 (light activity)'],
  ['zone_two_milli', HeartRateZone.ZONE_2, 'Zone 2 (moderate activity)'],
  ['zone_three_milli', HeartRateZone.ZONE_3, 'Zone 3 (hard activity)'],
  ['zone_four_milli', HeartRateZone.ZONE_4, 'Zone 4 (very hard activity)'],
  ['zone_five_milli', HeartRateZone.ZONE_5, 'Zone 5 (maximum effort)'],
];

export function normalizeWorkout(
  workout: WhoopWorkout,
  context: NormalizeContext,
  maxHeartRate: number | null = null,
): Activity {
  const offset = offsetOf(workout.timezone_offset, context);
  const score = workout.score ?? null;
  const gain = score?.altitude_gain_meter ?? null;
  const change = score?.altitude_change_meter ?? null;
  // A workout recorded without heart rate reports 0 bpm and all its time in zone 0: no zones.
  const avgHr = heartRate(score?.average_heart_rate);
  const maxHr = heartRate(score?.max_heart_rate);
  // v1 wrote the zones as `zone_duration`.
  const zoneDurations = score?.zone_durations ?? score?.zone_duration ?? null;
  const durations = avgHr === null && maxHr === null ? null : zoneDurations;
  return {
    metadata: {
      summary_id: idText('workout', workout.id),
      start_time: wire(workout.start, offset),
      end_time: wire(workout.end, offset),
      type: whoopActivityType(workout.sport_name, workout.sport_id),
      upload_type: uploadTypeOf(workout.score_state),
      name: whoopSportName(workout.sport_name, workout.sport_id),
      timestamp_localization: offset === 0 ? 0 : 1,
    },
    active_durations_data: { activity_seconds: (instant(workout.end) - instant(workout.start)) / 1000 },
    strain_data: { strain_level: score?.strain ?? null },
    calories_data: { total_burned_calories: score ? kilojoulesToKilocalories(score.kilojoule) : null },
    energy_data: { energy_kilojoules: score?.kilojoule ?? null },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: avgHr,
        max_hr_bpm: maxHr,
        user_max_hr_bpm: heartRate(maxHeartRate) ?? heartRate(context.maxHeartRate),
        hr_zone_data: durations
          ? zones.map(([key, zone, name]) => ({
              zone,
              name,
              start_percentage: null,
              end_percentage: null,
              duration_seconds: millisecondsToSeconds(durations[key]),
            }))
          : null,
      },
    },
    distance_data: {
      summary: {
        distance_meters: score?.distance_meter ?? null,
        elevation:
          gain === null && change === null
            ? null
            : {
                gain_actual_meters: gain,
                loss_actual_meters: gain !== null && change !== null ? gain - change : null,
              },
      },
    },
  };
}

export function normalizeWorkouts(payload: WhoopWorkoutPayload, context: NormalizeContext): Activity[] {
  const maxHeartRate = payload.body_measurement?.max_heart_rate ?? null;
  return payload.workout.map((workout) => normalizeWorkout(workout, context, maxHeartRate));
}
