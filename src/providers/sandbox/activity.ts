// Activity records: one per simulated workout of the day.
import type { Activity } from '../../model/activity.ts';
import { HeartRateContext, UploadType } from '../../model/enums.ts';
import { encodePolyline } from '../../provider-kit/normalize/polyline.ts';
import type { DayContext } from './context.ts';
import { deviceData } from './device.ts';
import { stableUuid } from './random.ts';
import { max, mean, min, round, sum } from './series.ts';
import {
  activityLevelForMet,
  elevationSummary,
  laps,
  metBands,
  strainFromTrimp,
  trainingStress,
  trimp,
  zoneDurations,
} from './workout-metrics.ts';
import {
  POOL_LENGTH_METERS,
  planWorkouts,
  simulateWorkout,
  WORKOUT_SAMPLE_SECONDS,
  type WorkoutSeries,
} from './workouts.ts';

/** The day's workouts as series, in start order. Daily totals are built from the same list. */
export function workoutsOfDay(context: DayContext): WorkoutSeries[] {
  return planWorkouts(context).map((plan) => simulateWorkout(context, plan));
}

export function generateActivities(context: DayContext): Activity[] {
  return workoutsOfDay(context).map((series) => activityRecord(context, series));
}

/**
 * Sample timestamps of a workout. Computed once and shared by every series of the workout:
 * the same string instances back all sample arrays, which keeps long ranges small in memory.
 */
function sampleTimes(context: DayContext, series: WorkoutSeries): string[] {
  if (!context.withSamples) return [];
  return Array.from({ length: series.intervals + 1 }, (_, i) =>
    context.time(series.plan.startMs + i * WORKOUT_SAMPLE_SECONDS * 1000),
  );
}

/**
 * Samples of one series as wire objects; built only when samples are requested.
 * `amounts`: the series holds per-interval amounts (index i = the interval ending at sample i),
 * and each is stamped at the start of its interval, like the daily record's bins.
 */
function samplesOf<T>(
  times: readonly string[],
  values: ArrayLike<number> | null,
  build: (timestamp: string, value: number, timer: number) => T,
  kind: 'readings' | 'amounts' = 'readings',
): T[] {
  if (times.length === 0 || !values) return [];
  const result: T[] = [];
  const shift = kind === 'amounts' ? 1 : 0;
  for (let i = shift; i < times.length; i++) {
    result.push(build(times[i - shift] ?? '', values[i] ?? 0, (i - shift) * WORKOUT_SAMPLE_SECONDS));
  }
  return result;
}

function partOfDay(context: DayContext, startMs: number): string {
  const hour = (startMs - context.startMs) / 3_600_000;
  if (hour < 12) return 'Morning';
  if (hour < 17) return 'Afternoon';
  return 'Evening';
}

export function activityRecord(context: DayContext, series: WorkoutSeries): Activity {
  const { profile } = context;
  const { plan, heartRate, speed, distance, power, elevation, latitude, longitude } = series;
  const { kind } = plan;
  const endMs = plan.startMs + plan.durationSeconds * 1000;
  const totalCalories = round(sum(series.calories), 2);
  const bmrCalories = round((profile.bmrKcalPerDay * plan.durationSeconds) / 86_400, 2);
  const bands = metBands(series.minuteMet);
  const trimpScore = trimp(series, profile.restingHr, profile.maxHr);
  const avgSpeed = speed ? round(mean(speed), 2) : null;
  const maxSpeed = speed ? max(speed) : null;
  const times = sampleTimes(context, series);
  const minuteTime = (minute: number) =>
    times[(minute * 60) / WORKOUT_SAMPLE_SECONDS] ?? context.time(plan.startMs + minute * 60_000);
  const totalDistance = distance ? (distance[series.intervals] ?? 0) : 0;
  const elevationData = elevation ? elevationSummary(elevation) : null;
  const steps = sum(series.steps);
  const floors =
    elevationData && kind.stepsPerRevolution > 0 ? Math.floor(elevationData.gain_actual_meters / 3) : 0;
  const hrvTimes = (k: number) =>
    times[(k * 300) / WORKOUT_SAMPLE_SECONDS] ?? context.time(plan.startMs + k * 300_000);
  return {
    metadata: {
      summary_id: stableUuid(context.seed, 'activity', context.date, String(plan.index)),
      start_time: context.time(plan.startMs),
      end_time: context.time(endMs),
      type: kind.activityType,
      upload_type: UploadType.AUTOMATIC,
      name: `${partOfDay(context, plan.startMs)} ${kind.label}`,
      city: kind.outdoor ? profile.home.city : null,
      state: kind.outdoor ? profile.home.state : null,
      country: kind.outdoor ? profile.home.country : null,
      timestamp_localization: context.timestampLocalization,
    },
    active_durations_data: {
      activity_levels_samples: context.withSamples
        ? Array.from(series.minuteMet, (met, minute) => {
            const level = activityLevelForMet(met);
            return {
              timestamp: minuteTime(minute),
              level,
              activity_level: level,
              timer_duration_seconds: minute * 60,
            };
          })
        : [],
      activity_seconds: plan.durationSeconds,
      inactivity_seconds: bands.inactive * 60,
      low_intensity_seconds: bands.low * 60,
      moderate_intensity_seconds: bands.moderate * 60,
      vigorous_intensity_seconds: bands.high * 60,
      num_continuous_inactive_periods: 0,
      rest_seconds: 0,
      standing_hours_count: null,
      standing_seconds: null,
    },
    calories_data: {
      BMR_calories: bmrCalories,
      calorie_samples: samplesOf(
        times,
        series.calories,
        (timestamp, calories, timer) => ({
          timestamp,
          calories,
          timer_duration_seconds: timer,
        }),
        'amounts',
      ),
      net_activity_calories: round(totalCalories - bmrCalories, 2),
      net_intake_calories: null,
      total_burned_calories: totalCalories,
    },
    cheat_detection: 0,
    data_enrichment: {
      stress_score: Math.round(
        ((mean(heartRate) - profile.restingHr) / (profile.maxHr - profile.restingHr)) * 100,
      ),
      strain_score: strainFromTrimp(trimpScore),
      trimp_score: trimpScore,
    },
    device_data: deviceData(context, 'watch', endMs + 5 * 60_000),
    distance_data: {
      summary: {
        distance_meters: totalDistance,
        steps,
        floors_climbed: floors,
        elevation: elevationData,
        swimming:
          kind.key === 'swim'
            ? {
                num_laps: Math.floor(totalDistance / POOL_LENGTH_METERS),
                num_strokes: sum(series.strokes ?? []),
                pool_length_meters: POOL_LENGTH_METERS,
              }
            : null,
      },
      detailed: {
        distance_samples: samplesOf(times, distance, (timestamp, meters, timer) => ({
          timestamp,
          distance_meters: meters,
          timer_duration_seconds: timer,
        })),
        elevation_samples: samplesOf(times, elevation, (timestamp, meters, timer) => ({
          timestamp,
          elev_meters: meters,
          timer_duration_seconds: timer,
        })),
        floors_climbed_samples: [],
        step_samples:
          kind.stepsPerRevolution > 0
            ? samplesOf(
                times,
                series.steps,
                (timestamp, count, timer) => ({
                  timestamp,
                  steps: count,
                  timer_duration_seconds: timer,
                }),
                'amounts',
              )
            : [],
      },
    },
    energy_data: { energy_kilojoules: round(totalCalories * 4.184, 2), energy_planned_kilojoules: null },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: round(mean(heartRate), 2),
        avg_hrv_rmssd: round(mean(series.hrv), 2),
        avg_hrv_sdnn: null,
        hr_zone_data: zoneDurations(series, profile.maxHr),
        max_hr_bpm: max(heartRate),
        min_hr_bpm: min(heartRate),
        resting_hr_bpm: profile.restingHr,
        user_max_hr_bpm: profile.maxHr,
      },
      detailed: {
        hr_samples: samplesOf(times, heartRate, (timestamp, bpm, timer) => ({
          timestamp,
          bpm,
          timer_duration_seconds: timer,
          context: HeartRateContext.ACTIVE,
        })),
        hrv_samples_rmssd: context.withSamples
          ? Array.from(series.hrv, (value, k) => ({ timestamp: hrvTimes(k), hrv_rmssd: value }))
          : [],
        hrv_samples_sdnn: [],
      },
    },
    lap_data: { laps: context.withSamples ? laps(context, series) : [] },
    MET_data: {
      MET_samples: context.withSamples
        ? Array.from(series.minuteMet, (level, minute) => ({ timestamp: minuteTime(minute), level }))
        : [],
      avg_level: round(mean(series.minuteMet), 2),
      num_high_intensity_minutes: bands.high,
      num_inactive_minutes: bands.inactive,
      num_low_intensity_minutes: bands.low,
      num_moderate_intensity_minutes: bands.moderate,
    },
    movement_data: kind.moving ? movementData(times, series, avgSpeed, maxSpeed) : null,
    oxygen_data: {
      avg_saturation_percentage: null,
      saturation_samples: [],
      vo2_samples: context.withSamples
        ? [{ timestamp: context.time(endMs), vo2max_ml_per_min_per_kg: profile.vo2max }]
        : [],
      vo2max_ml_per_min_per_kg: profile.vo2max,
    },
    polyline_map_data: {
      summary_polyline: latitude && longitude ? encodePolyline(latitude, longitude) : null,
    },
    position_data:
      latitude && longitude
        ? {
            start_pos_lat_lng_deg: [latitude[0] ?? null, longitude[0] ?? null],
            center_pos_lat_lng_deg: [round(mean(latitude), 6), round(mean(longitude), 6)],
            end_pos_lat_lng_deg: [latitude[series.intervals] ?? null, longitude[series.intervals] ?? null],
            position_samples: samplesOf(times, latitude, (timestamp, lat, timer) => ({
              timestamp,
              coords_lat_lng_deg: [lat, longitude[timer / WORKOUT_SAMPLE_SECONDS] ?? null],
              timer_duration_seconds: timer,
            })),
          }
        : null,
    power_data: power
      ? {
          avg_watts: round(mean(power), 2),
          max_watts: max(power),
          power_samples: samplesOf(times, power, (timestamp, watts, timer) => ({
            timestamp,
            watts,
            timer_duration_seconds: timer,
          })),
        }
      : null,
    strain_data: { strain_level: strainFromTrimp(trimpScore) },
    TSS_data: {
      TSS_samples: context.withSamples
        ? [trainingStress(series, profile.ftpWatts, profile.restingHr, profile.maxHr)]
        : [],
    },
    work_data: {
      work_kilojoules: power ? round((sum(power, 1) * WORKOUT_SAMPLE_SECONDS) / 1000, 2) : null,
    },
  };
}

function movementData(
  times: readonly string[],
  series: WorkoutSeries,
  avgSpeed: number | null,
  maxSpeed: number | null,
) {
  const { speed, cadence, torque } = series;
  const pace = (metersPerSecond: number | null) =>
    metersPerSecond && metersPerSecond > 0 ? round(1000 / 60 / metersPerSecond, 2) : null;
  return {
    avg_cadence_rpm: cadence ? round(mean(cadence), 2) : null,
    max_cadence_rpm: cadence ? max(cadence) : null,
    avg_pace_minutes_per_kilometer: pace(avgSpeed),
    max_pace_minutes_per_kilometer: pace(maxSpeed),
    avg_speed_meters_per_second: avgSpeed,
    max_speed_meters_per_second: maxSpeed,
    adjusted_max_speed_meters_per_second: maxSpeed,
    normalized_speed_meters_per_second: null,
    avg_velocity_meters_per_second: avgSpeed,
    max_velocity_meters_per_second: maxSpeed,
    avg_torque_newton_meters: torque ? round(mean(torque), 2) : null,
    max_torque_newton_meters: torque ? max(torque) : null,
    cadence_samples: samplesOf(times, cadence, (timestamp, rpm, timer) => ({
      timestamp,
      cadence_rpm: rpm,
      timer_duration_seconds: timer,
    })),
    speed_samples: samplesOf(times, speed, (timestamp, value, timer) => ({
      timestamp,
      speed_meters_per_second: value,
      timer_duration_seconds: timer,
    })),
    torque_samples: samplesOf(times, torque, (timestamp, value, timer) => ({
      timestamp,
      torque_newton_meters: value,
      timer_duration_seconds: timer,
    })),
  };
}
