// Strava activity (summary or detail) + streams + laps + zones -> Activity.
//
// Cannot map: `description`, `workout_type` (race/long run/workout), `commute`, `private`,
// `gear`, `suffer_score`, `segment_efforts`, `splits_metric`/`splits_standard` (per-distance
// splits, not laps), `average_temp` and the temp/moving/grade streams, `weighted_average_watts`
// (normalized-power-like, but the TSS sample it would sit in needs a TSS Strava does not give),
// `kudos`/`photos`/`achievement` counts. Strava's `kilojoules` is the mechanical work measured by
// the power meter (work_data); `calories` (detail only) is energy expended (calories_data, and
// energy_data in kJ). Start times use `utc_offset` (DST-aware), not the `timezone` name.
import type { Activity } from '../../../model/activity.ts';
import { UploadType } from '../../../model/enums.ts';
import type { LapSample } from '../../../model/samples.ts';
import { formatDateTime } from '../../../model/time.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';
import {
  convertOrNull,
  kilocaloriesToKilojoules,
  paceMinutesPerKilometer,
} from '../../../provider-kit/normalize/units.ts';
import {
  heartRate,
  orFromSamples,
  positiveOrNull,
  sensorFigure,
  sensorRead,
} from '../../../provider-kit/normalize/measures.ts';
import { zoneOffsetMinutes } from '../../../provider-kit/normalize/time-zones.ts';
import { activityTypeOf } from './sport-types.ts';
import { streamMax, streamSamples, streamSetOf } from './streams.ts';
import type {
  StravaActivity,
  StravaActivityZone,
  StravaLap,
  StravaLatLng,
  StravaStreamList,
  StravaStreamSet,
  StravaZones,
} from './types.ts';
import { zonesFromActivityZones, zonesFromStreams } from './zones.ts';

export type StravaActivityPayload = {
  activity: StravaActivity;
  streams?: StravaStreamSet | StravaStreamList | null;
  /** GET /activities/{id}/laps; DetailedActivity.laps is used when absent. */
  laps?: readonly StravaLap[] | null;
  /** GET /activities/{id}/zones. */
  activity_zones?: readonly StravaActivityZone[] | null;
  /** GET /athlete/zones, to place the heart-rate stream in the athlete's zones. */
  athlete_zones?: StravaZones | null;
};

/** `[lat, lng]` when Strava sent a point; it sends `[]` or null for activities without GPS. */
function latLng(point: StravaLatLng | null | undefined): [number, number] | null {
  return point && point.length === 2 ? [point[0] as number, point[1] as number] : null;
}

/** The IANA zone of Strava's `timezone` text: `(GMT-08:00) America/Los_Angeles`. */
function ianaZoneOf(timezone: string | null | undefined): string | null {
  if (!timezone) return null;
  const zone = timezone.replace(/^\([^)]*\)\s*/, '').trim();
  return zone === '' ? null : zone;
}

/**
 * The offset Strava recorded for the activity, in whole minutes (utc_offset is in seconds); when
 * it is missing, the `timezone` field's zone at the start, never a silent UTC.
 */
function offsetMinutesOf(activity: StravaActivity, context: NormalizeContext): number {
  return typeof activity.utc_offset === 'number'
    ? Math.round(activity.utc_offset / 60)
    : (zoneOffsetMinutes(ianaZoneOf(activity.timezone), Date.parse(activity.start_date)) ??
        context.userOffsetMinutes ??
        0);
}

function lapSample(lap: StravaLap, offset: number): LapSample {
  const startMs = Date.parse(lap.start_date);
  return {
    start_time: formatDateTime(startMs, offset),
    end_time: formatDateTime(startMs + lap.elapsed_time * 1000, offset),
    distance_meters: lap.distance ?? null,
    avg_speed_meters_per_second: lap.average_speed ?? null,
    avg_hr_bpm: heartRate(lap.average_heartrate),
    avg_watts: lap.average_watts ?? null,
    active_duration_seconds: lap.moving_time ?? null,
  };
}

export function normalizeActivity(payload: StravaActivityPayload, context: NormalizeContext): Activity {
  const activity = payload.activity;
  const offset = offsetMinutesOf(activity, context);
  const startMs = Date.parse(activity.start_date);
  if (Number.isNaN(startMs)) throw new RangeError(`Strava activity ${activity.id}: invalid start_date`);
  const set = streamSetOf(payload.streams);
  const samples = streamSamples(set, startMs, offset);
  const laps = payload.laps ?? activity.laps ?? null;
  const zones =
    zonesFromActivityZones(payload.activity_zones, context) ??
    zonesFromStreams(payload.athlete_zones, set, context);
  const moving = activity.moving_time ?? null;
  // A 0 average cadence, power or work is a sensor that was not there unless the streams show it
  // read (sensorFigure); Strava leaves these fields out when it has nothing, but not always.
  const cadenceRead = sensorRead(samples.cadence_samples, 'cadence_rpm');
  const powerRead = sensorRead(samples.power_samples, 'watts');
  const averageSpeed = activity.average_speed ?? null;
  // Maxima the summary omits come from the streams, the same way for every metric.
  const maxSpeed = orFromSamples(activity.max_speed, streamMax(set, 'velocity_smooth'));
  const calories = activity.calories ?? null;
  const polyline = activity.map?.summary_polyline ?? activity.map?.polyline ?? null;
  const startLatLng = latLng(activity.start_latlng);
  const endLatLng = latLng(activity.end_latlng);
  const hasElevation =
    activity.total_elevation_gain != null || activity.elev_high != null || activity.elev_low != null;

  return {
    metadata: {
      summary_id: String(activity.id),
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(startMs + activity.elapsed_time * 1000, offset),
      type: activityTypeOf(activity.sport_type ?? activity.type, activity.trainer),
      upload_type: activity.manual === true ? UploadType.MANUAL : UploadType.AUTOMATIC,
      name: activity.name,
      city: activity.location_city ?? null,
      state: activity.location_state ?? null,
      country: activity.location_country ?? null,
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: {
      activity_seconds: moving,
      // Paused time: the part of elapsed time the athlete was not moving.
      rest_seconds: moving === null ? null : activity.elapsed_time - moving,
    },
    calories_data: { total_burned_calories: calories },
    energy_data: { energy_kilojoules: convertOrNull(calories, kilocaloriesToKilojoules) },
    work_data: { work_kilojoules: sensorFigure(activity.kilojoules, powerRead) },
    device_data: activity.device_name ? { name: activity.device_name } : null,
    distance_data: {
      summary: {
        // A manual entry's 0 m is a field the athlete left empty, not a distance.
        distance_meters:
          activity.manual === true ? positiveOrNull(activity.distance) : (activity.distance ?? null),
        elevation: hasElevation
          ? {
              gain_actual_meters: activity.total_elevation_gain ?? null,
              max_meters: activity.elev_high ?? null,
              min_meters: activity.elev_low ?? null,
            }
          : null,
      },
      detailed: {
        distance_samples: samples.distance_samples,
        elevation_samples: samples.elevation_samples,
      },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRate(activity.average_heartrate),
        max_hr_bpm: heartRate(activity.max_heartrate) ?? streamMax(set, 'heartrate'),
        user_max_hr_bpm: context.maxHeartRate ?? null,
        hr_zone_data: zones,
      },
      detailed: { hr_samples: samples.hr_samples },
    },
    lap_data: laps ? { laps: laps.map((lap) => lapSample(lap, offset)) } : null,
    movement_data: {
      avg_speed_meters_per_second: averageSpeed,
      max_speed_meters_per_second: maxSpeed,
      avg_pace_minutes_per_kilometer: averageSpeed === null ? null : paceMinutesPerKilometer(averageSpeed),
      max_pace_minutes_per_kilometer: maxSpeed === null ? null : paceMinutesPerKilometer(maxSpeed),
      avg_cadence_rpm: sensorFigure(activity.average_cadence, cadenceRead),
      max_cadence_rpm: streamMax(set, 'cadence'),
      speed_samples: samples.speed_samples,
      cadence_samples: samples.cadence_samples,
    },
    polyline_map_data: polyline ? { summary_polyline: polyline } : null,
    position_data: {
      start_pos_lat_lng_deg: startLatLng,
      end_pos_lat_lng_deg: endLatLng,
      position_samples: samples.position_samples,
    },
    power_data: {
      avg_watts: sensorFigure(activity.average_watts, powerRead),
      max_watts: sensorFigure(orFromSamples(activity.max_watts, streamMax(set, 'watts')), powerRead),
      power_samples: samples.power_samples,
    },
  };
}
