// Intervals.icu activity (GET /api/v1/athlete/{id}/activities, schema `Activity`) -> Activity.
//
// The activity list carries summaries only; streams (`/activity/{id}/streams`) are not read, so
// no samples are filled. `start_date_local` is wall time and `start_date` the same instant in
// UTC: their difference is the offset the activity was recorded in; without `start_date`, the
// athlete's `timezone` at that wall time, else the user's offset. Placeholder zeros: a 0 heart
// rate, 0 W or 0 m on an activity without that sensor or distance (WeightTraining, Workout) is
// "not recorded", not a reading. Cannot map: icu_ctl/icu_atl (fitness model), eFTP/W′ figures,
// zone-time of power and pace, feel/RPE, weather, gear, interval_summary, achievements.
import type { Activity } from '../../../model/activity.ts';
import { ActivityType, type ActivityType as ActivityTypeCode } from '../../../model/activity-type.ts';
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import { heartRate, positiveOrNull } from '../../../provider-kit/normalize/measures.ts';
import { activityTypeOfName } from '../../../provider-kit/normalize/sport-names.ts';
import { localTimeOffsetMinutes } from '../../../provider-kit/normalize/time-zones.ts';
import {
  convertOrNull,
  kilocaloriesToKilojoules,
  paceMinutesPerKilometer,
} from '../../../provider-kit/normalize/units.ts';
import type { IntervalsActivity } from './types.ts';

const T = ActivityType;

/** Intervals.icu activity types (its Strava-compatible names) with no common-name match. */
export const intervalsSportTypes: Readonly<Record<string, ActivityTypeCode>> = {
  ride: T.BIKING,
  virtualride: T.STATIONARY_BIKING,
  mountainbikeride: T.MOUNTAIN_BIKING,
  gravelride: T.GRAVEL_CYCLING,
  ebikeride: T.E_BIKING,
  run: T.RUNNING,
  virtualrun: T.TREADMILL_RUNNING,
  trailrun: T.TRAIL_RUNNING,
  swim: T.SWIMMING,
  openwaterswim: T.SWIMMING_OPEN_WATER,
  weighttraining: T.STRENGTH_TRAINING,
  walk: T.WALKING,
  hike: T.HIKING,
  nordicski: T.CROSS_COUNTRY_SKIING,
  alpineski: T.DOWNHILL_SKIING,
  rowing: T.ROWING,
  virtualrow: T.ROWING_MACHINE,
  workout: T.OTHER,
};

/** Minutes east of UTC the activity was recorded in. */
export function activityOffsetMinutes(activity: IntervalsActivity, context: NormalizeContext): number {
  const local = Date.parse(`${activity.start_date_local}Z`);
  const utc = activity.start_date ? Date.parse(activity.start_date) : Number.NaN;
  if (!Number.isNaN(local) && !Number.isNaN(utc)) return Math.round((local - utc) / 60_000);
  return (
    localTimeOffsetMinutes(activity.timezone, activity.start_date_local) ?? context.userOffsetMinutes ?? 0
  );
}

const num = (value: number | null | undefined): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/**
 * An activity Intervals.icu lists but may not pass on (one synced from Strava, whose terms keep
 * its data from other apps): the OpenAPI document's stub carries an id, a `start_date_local`
 * and a source, no length and no figures. Stored, it would be a zero-length activity placed by
 * a guessed offset, so it is not stored.
 */
export function isActivityStub(activity: IntervalsActivity): boolean {
  return num(activity?.elapsed_time) === null && num(activity?.moving_time) === null;
}

export function normalizeActivity(activity: IntervalsActivity, context: NormalizeContext): Activity {
  if (typeof activity?.id !== 'string' || typeof activity.start_date_local !== 'string')
    throw new RangeError('an activity without id or start_date_local');
  const offset = activityOffsetMinutes(activity, context);
  const startMs = Date.parse(`${activity.start_date_local}Z`) - offset * 60_000;
  if (Number.isNaN(startMs)) throw new RangeError(`activity ${activity.id}: invalid start_date_local`);
  const elapsed = num(activity.elapsed_time) ?? num(activity.moving_time) ?? 0;
  const moving = num(activity.moving_time);
  const calories = positiveOrNull(activity.calories);
  const distance = positiveOrNull(activity.distance);
  const averageSpeed = positiveOrNull(activity.average_speed);
  const maxSpeed = positiveOrNull(activity.max_speed);
  const hasElevation =
    activity.total_elevation_gain != null || activity.min_altitude != null || activity.max_altitude != null;
  const load = num(activity.icu_training_load);
  const intensity = num(activity.icu_intensity);
  const zoneTimes = Array.isArray(activity.icu_hr_zone_times) ? activity.icu_hr_zone_times : null;
  const zones =
    zoneTimes && zoneTimes.some((seconds) => seconds > 0)
      ? zoneTimes.map((seconds, index) => ({
          // Zones 1–5 are the model's; Intervals.icu's Z6 and Z7 are OTHER, keeping their names.
          zone: (index < 5 ? index + 1 : 6) as 1 | 2 | 3 | 4 | 5 | 6,
          name: `Z${index + 1}`,
          duration_seconds: seconds,
          start_percentage: null,
          end_percentage: null,
        }))
      : null;
  const pool = positiveOrNull(activity.pool_length);
  const lengths = positiveOrNull(activity.lengths);

  return {
    metadata: {
      summary_id: activity.id,
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(startMs + elapsed * 1000, offset),
      type: activityTypeOfName(activity.type, intervalsSportTypes),
      upload_type: activity.source === 'MANUAL' ? UploadType.MANUAL : UploadType.AUTOMATIC,
      name: activity.name ?? null,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: {
      activity_seconds: moving,
      rest_seconds: moving === null || elapsed < moving ? null : elapsed - moving,
    },
    calories_data: { total_burned_calories: calories },
    energy_data: { energy_kilojoules: convertOrNull(calories, kilocaloriesToKilojoules) },
    // icu_joules is the mechanical work the power meter measured.
    work_data: {
      work_kilojoules: positiveOrNull(activity.icu_joules) === null ? null : activity.icu_joules! / 1000,
    },
    device_data: activity.device_name ? { name: activity.device_name } : null,
    distance_data: {
      summary: {
        distance_meters: distance,
        elevation: hasElevation
          ? {
              gain_actual_meters: num(activity.total_elevation_gain),
              loss_actual_meters: num(activity.total_elevation_loss),
              avg_meters: num(activity.average_altitude),
              max_meters: num(activity.max_altitude),
              min_meters: num(activity.min_altitude),
            }
          : null,
        swimming: pool || lengths ? { pool_length_meters: pool, num_laps: lengths } : null,
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(activity.average_heartrate),
        max_hr_bpm: heartRate(activity.max_heartrate),
        user_max_hr_bpm: heartRate(activity.athlete_max_hr) ?? context.maxHeartRate ?? null,
        hr_zone_data: zones,
      },
    },
    movement_data: {
      avg_speed_meters_per_second: averageSpeed,
      max_speed_meters_per_second: maxSpeed,
      avg_pace_minutes_per_kilometer: averageSpeed === null ? null : paceMinutesPerKilometer(averageSpeed),
      max_pace_minutes_per_kilometer: maxSpeed === null ? null : paceMinutesPerKilometer(maxSpeed),
      avg_cadence_rpm: positiveOrNull(activity.average_cadence),
    },
    power_data: { avg_watts: positiveOrNull(activity.icu_average_watts) },
    TSS_data:
      load === null
        ? null
        : {
            TSS_samples: [
              {
                actual: load,
                method: 'intervals.icu training load',
                intensity_factor_actual: intensity === null ? null : intensity / 100,
                normalized_power_watts: positiveOrNull(activity.icu_weighted_avg_watts),
              },
            ],
          },
    data_enrichment: activity.trimp == null ? null : { trimp_score: activity.trimp },
  };
}
