// Polar AccessLink exercise (GET /v3/exercises[/{id}]?samples=true&zones=true&route=true)
// -> Activity.
//
// Cannot map: `fat_percentage`/`carbohydrate_percentage`/`protein_percentage` (energy sources
// have no place), `club_id`/`club_name`, training_load_pro `muscle-load`/`perceived-load` and
// their interpretations, `has_route` (the route itself is mapped). Polar gives no laps here (only
// in FIT/TCX exports) and no resting/active split of the calories, so `calories` (kcal spent in
// the session) is total_burned_calories. `training_load_pro.cardio-load` (else `training_load`)
// is Polar's TRIMP-based load and fills trimp_score. `running-index` is Polar's VO2max estimate
// from a run and fills vo2max_ml_per_min_per_kg. Zone percentages need the user's maximum heart
// rate from the context (physical info); without it they are null.
import {
  heartRate,
  positiveOrNull,
  sensorFigure,
  sensorRead,
} from '../../../provider-kit/normalize/measures.ts';
import type { Activity } from '../../../model/activity.ts';
import type { CodeOf } from '../../../model/enums.ts';
import { HeartRateZone, UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import {
  instantOf,
  localizationOf,
  type NormalizeContext,
} from '../../../provider-kit/normalize/normalize.ts';
import { encodePolyline } from '../../../provider-kit/normalize/polyline.ts';
import {
  convertOrNull,
  kilocaloriesToKilojoules,
  paceMinutesPerKilometer,
} from '../../../provider-kit/normalize/units.ts';
import { decodeRoute, decodeSamples, gainLoss, meanMax } from './exercise-samples.ts';
import { polarActivityType } from './sport.ts';
import { isoDurationSeconds } from './time.ts';
import type { PolarExercise, PolarZone } from './types.ts';

type ZoneCode = CodeOf<typeof HeartRateZone>;
const zoneCodes: readonly ZoneCode[] = [
  HeartRateZone.ZONE_1,
  HeartRateZone.ZONE_2,
  HeartRateZone.ZONE_3,
  HeartRateZone.ZONE_4,
  HeartRateZone.ZONE_5,
];

/**
 * Polar's zones in ascending order are its sport zones 1-5; the `index` field is only the
 * list position (0- or 1-based depending on the endpoint), so the order decides the zone.
 */
function heartRateZones(zones: readonly PolarZone[] | null | undefined, maxHeartRate: number | null) {
  if (!zones || zones.length === 0) return null;
  const sorted = [...zones].sort((left, right) => (left['lower-limit'] ?? 0) - (right['lower-limit'] ?? 0));
  return sorted.map((zone, position) => {
    const lower = zone['lower-limit'] ?? null;
    const upper = zone['upper-limit'] ?? null;
    return {
      zone: zoneCodes[position] ?? HeartRateZone.OTHER,
      name: `Zone ${position + 1}`,
      duration_seconds: isoDurationSeconds(zone['in-zone']),
      start_percentage: maxHeartRate && lower !== null ? (lower / maxHeartRate) * 100 : null,
      end_percentage: maxHeartRate && upper !== null ? (upper / maxHeartRate) * 100 : null,
    };
  });
}

export function normalizeExercise(exercise: PolarExercise, context: NormalizeContext): Activity {
  const offset = exercise.start_time_utc_offset ?? context.userOffsetMinutes ?? 0;
  const startMs = instantOf(exercise.start_time, offset);
  const durationSeconds = isoDurationSeconds(exercise.duration);
  const endMs = startMs + (durationSeconds ?? 0) * 1000;
  const series = decodeSamples(exercise.samples, startMs, offset);
  const route = decodeRoute(exercise.route, startMs, offset);

  const hr = meanMax(series.hr, (sample) => sample.bpm as number);
  const speed = meanMax(series.speed, (sample) => sample.speed_meters_per_second);
  // A series of zeros is a channel without its sensor: no average, no maximum (sensorFigure).
  const cadenceRead = sensorRead(series.cadence, 'cadence_rpm');
  const powerRead = sensorRead(series.power, 'watts');
  const cadence = meanMax(series.cadence, (sample) => sample.cadence_rpm);
  const power = meanMax(series.power, (sample) => sample.watts);
  const altitude = meanMax(series.elevation, (sample) => sample.elev_meters);
  const climb = gainLoss(series.elevation);
  // An exercise typed into Flow (no device) carries 0 for what was left empty: no distance.
  const distance = exercise.device ? (exercise.distance ?? null) : positiveOrNull(exercise.distance);
  // The session average is distance over elapsed time when Polar gives both; the speed series
  // (which skips sensor gaps) is the fallback.
  const avgSpeed = distance !== null && durationSeconds ? distance / durationSeconds : speed.mean;
  const maxHeartRate = context.maxHeartRate ?? null;
  const calories = exercise.calories ?? null;
  const routeCount = route.samples.length;
  const first = route.samples[0]?.coords_lat_lng_deg ?? null;
  const last = route.samples[routeCount - 1]?.coords_lat_lng_deg ?? null;
  const center = routeCount > 0 ? boundsCenter(route.latitudes, route.longitudes) : null;
  // Exercises recorded without a heart-rate sensor report 0 bpm: no readings, and no zones.
  const avgHr = heartRate(exercise.heart_rate?.average) ?? hr.mean;
  const maxHr = heartRate(exercise.heart_rate?.maximum) ?? hr.max;
  const hasHeartRate = avgHr !== null || maxHr !== null;

  return {
    metadata: {
      summary_id: exercise.id,
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(endMs, offset),
      type: polarActivityType(exercise.sport, exercise.detailed_sport_info),
      // Exercises are recorded by a Polar device; an entry without one was typed into Flow.
      upload_type: exercise.device ? UploadType.AUTOMATIC : UploadType.MANUAL,
      name: exercise.detailed_sport_info ?? exercise.sport ?? null,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: { activity_seconds: durationSeconds },
    calories_data: { total_burned_calories: calories },
    energy_data: { energy_kilojoules: convertOrNull(calories, kilocaloriesToKilojoules) },
    data_enrichment: {
      trimp_score: exercise.training_load_pro?.['cardio-load'] ?? exercise.training_load ?? null,
    },
    device_data: {
      name: exercise.device ?? null,
      manufacturer: 'Polar',
      serial_number: exercise.device_id ?? null,
      last_upload_date: exercise.upload_time
        ? formatDateTime(instantOf(exercise.upload_time, 0), offset)
        : null,
    },
    distance_data: {
      summary: {
        distance_meters: distance,
        elevation: series.elevation.length
          ? {
              avg_meters: altitude.mean,
              max_meters: altitude.max,
              min_meters: altitude.min,
              gain_actual_meters: climb.gain,
              loss_actual_meters: climb.loss,
            }
          : null,
      },
      detailed: { distance_samples: series.distance, elevation_samples: series.elevation },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: avgHr,
        max_hr_bpm: maxHr,
        min_hr_bpm: hr.min,
        user_max_hr_bpm: maxHeartRate,
        hr_zone_data: hasHeartRate ? heartRateZones(exercise.heart_rate_zones, maxHeartRate) : null,
      },
      detailed: { hr_samples: series.hr },
    },
    movement_data: {
      avg_speed_meters_per_second: avgSpeed,
      max_speed_meters_per_second: speed.max,
      avg_pace_minutes_per_kilometer: avgSpeed === null ? null : paceMinutesPerKilometer(avgSpeed),
      max_pace_minutes_per_kilometer: speed.max === null ? null : paceMinutesPerKilometer(speed.max),
      avg_cadence_rpm: sensorFigure(cadence.mean, cadenceRead),
      max_cadence_rpm: sensorFigure(cadence.max, cadenceRead),
      speed_samples: series.speed,
      cadence_samples: series.cadence,
    },
    power_data: {
      avg_watts: sensorFigure(power.mean, powerRead),
      max_watts: sensorFigure(power.max, powerRead),
      power_samples: series.power,
    },
    oxygen_data: { vo2max_ml_per_min_per_kg: exercise['running-index'] ?? null },
    position_data: {
      start_pos_lat_lng_deg: first,
      end_pos_lat_lng_deg: last,
      center_pos_lat_lng_deg: center,
      position_samples: route.samples,
    },
    polyline_map_data: {
      summary_polyline: routeCount > 0 ? encodePolyline(route.latitudes, route.longitudes) : null,
    },
  };
}

/** Middle of the route's bounding box. */
function boundsCenter(latitudes: readonly number[], longitudes: readonly number[]): [number, number] {
  let minLat = Number.POSITIVE_INFINITY;
  let maxLat = Number.NEGATIVE_INFINITY;
  let minLng = Number.POSITIVE_INFINITY;
  let maxLng = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < latitudes.length; index++) {
    const lat = latitudes[index] as number;
    const lng = longitudes[index] as number;
    if (lat < minLat) minLat = lat;
    if (lat > maxLat) maxLat = lat;
    if (lng < minLng) minLng = lng;
    if (lng > maxLng) maxLng = lng;
  }
  return [(minLat + maxLat) / 2, (minLng + maxLng) / 2];
}

export function normalizeExercises(
  exercises: readonly PolarExercise[],
  context: NormalizeContext,
): Activity[] {
  return exercises.map((exercise) => normalizeExercise(exercise, context));
}
