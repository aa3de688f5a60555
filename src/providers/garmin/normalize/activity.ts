// Garmin activities, activity details (summary + samples) and manually updated activities ->
// Activity, one per `summaryId` of the activity (a detail's `summaryId` ends in `-detail`, which
// is dropped so both name one workout; the detailed copy wins, then a manual update).
//
// Mapped with care: heart rates of 0 and 255 are "no reading" (a workout recorded without a
// sensor) and never become samples, averages or maxima. Samples without a time are skipped,
// never stamped at the start. Maxima (heart rate, speed, power, cadence) come from the summary,
// else from the samples, the same rule for every metric. Cadence: bike rpm, else run steps per
// minute, else swim strokes per minute (one cadence series in the model). `manual: true` ->
// upload_type MANUAL; a manually updated activity -> UPDATE; else AUTOMATIC. Energy: Garmin
// gives active kcal only (also as kJ). Sport: `activityType` by Garmin's names, then by parts.
// Cannot map: lap markers carry only a start time (laps need more), `isParent`/`parentSummaryId`
// multisport links, air temperature samples.
import type { Activity } from '../../../model/activity.ts';
import { HeartRateContext, UploadType } from '../../../model/enums.ts';
import { recordingEnd } from '../../../provider-kit/normalize/elapsed.ts';
import { localizationOf, type NormalizeContext, statsOf } from '../../../provider-kit/normalize/normalize.ts';
import { encodePolyline } from '../../../provider-kit/normalize/polyline.ts';
import { kilocaloriesToKilojoules, paceMinutesPerKilometer } from '../../../provider-kit/normalize/units.ts';
import { garminActivityType } from './sport.ts';
import {
  heartRateOrNull,
  isNumber,
  numberOrNull,
  offsetMinutesOf,
  positiveOrNull,
  textOrNull,
  wireAt,
} from './time.ts';
import type { GarminActivity, GarminActivityDetails, GarminActivitySample } from './types.ts';

export type GarminActivityPayload = {
  activities: readonly GarminActivity[];
  activityDetails?: readonly GarminActivityDetails[];
  manuallyUpdatedActivities?: readonly GarminActivity[];
};

const keyOf = (summaryId: unknown) =>
  (textOrNull(summaryId) ?? (typeof summaryId === 'number' ? String(summaryId) : '')).replace(/-detail$/, '');

type Timed = { at: number; sample: GarminActivitySample };

function series<K extends string>(
  samples: readonly Timed[],
  pick: (sample: GarminActivitySample) => number | null,
  offset: number,
  start: number,
  key: K,
): ({ timestamp: string; timer_duration_seconds: number | null } & Record<K, number>)[] {
  const out: ({ timestamp: string; timer_duration_seconds: number | null } & Record<K, number>)[] = [];
  for (const { at, sample } of samples) {
    const value = pick(sample);
    if (value === null) continue;
    out.push({
      timestamp: wireAt(at, offset),
      timer_duration_seconds: numberOrNull(sample.timerDurationInSeconds) ?? at - start,
      [key]: value,
    } as { timestamp: string; timer_duration_seconds: number | null } & Record<K, number>);
  }
  return out;
}

const finite = (value: number | null | undefined) => (isNumber(value) ? value : null);
const nonNegative = (value: number | null | undefined) => (isNumber(value) && value >= 0 ? value : null);

export function normalizeGarminActivity(
  summary: GarminActivity,
  details: GarminActivityDetails | undefined,
  upload: 'device' | 'update',
  context: NormalizeContext,
): Activity | null {
  const id = keyOf(summary.summaryId ?? details?.summaryId);
  if (!id || !isNumber(summary.startTimeInSeconds)) return null;
  const offset = offsetMinutesOf(summary, context);
  const start = summary.startTimeInSeconds;
  const timed: Timed[] = (details?.samples ?? [])
    .filter((sample): sample is GarminActivitySample => !!sample && isNumber(sample.startTimeInSeconds))
    .map((sample) => ({ at: sample.startTimeInSeconds as number, sample }))
    .sort((a, b) => a.at - b.at);
  // The summary's `durationInSeconds` is the activity's length (Health API activity summary). A
  // sample's `clockDurationInSeconds` is the elapsed time at the sample's own start, so the last
  // one falls a sample interval (2-4 s) short of the end: it only counts when it runs longer
  // (a paused workout whose pauses the duration leaves out).
  const clock = timed.reduce<number | null>(
    (longest, { sample }) =>
      isNumber(sample.clockDurationInSeconds) && sample.clockDurationInSeconds > (longest ?? -1)
        ? sample.clockDurationInSeconds
        : longest,
    null,
  );
  const length = isNumber(summary.durationInSeconds) ? summary.durationInSeconds : null;
  const end = recordingEnd(start, {
    elapsed: clock !== null && length !== null ? Math.max(clock, length) : (clock ?? length),
    timer: summary.durationInSeconds,
    lastSampleAt: timed[timed.length - 1]?.at ?? null,
  });

  const hrSamples = series(timed, (s) => heartRateOrNull(s.heartRate), offset, start, 'bpm').map(
    (sample) => ({
      ...sample,
      context: HeartRateContext.ACTIVE,
    }),
  );
  const speedSamples = series(
    timed,
    (s) => nonNegative(s.speedMetersPerSecond),
    offset,
    start,
    'speed_meters_per_second',
  );
  const powerSamples = series(timed, (s) => nonNegative(s.powerInWatts), offset, start, 'watts');
  const cadenceSamples = series(
    timed,
    (s) => nonNegative(s.bikeCadenceInRPM ?? s.stepsPerMinute ?? s.swimCadenceInStrokesPerMinute),
    offset,
    start,
    'cadence_rpm',
  );
  const elevationSamples = series(timed, (s) => finite(s.elevationInMeters), offset, start, 'elev_meters');
  const distanceSamples = series(
    timed,
    (s) => nonNegative(s.totalDistanceInMeters),
    offset,
    start,
    'distance_meters',
  );
  const positions = timed.filter(
    ({ sample }) => isNumber(sample.latitudeInDegree) && isNumber(sample.longitudeInDegree),
  );
  const hr = statsOf(hrSamples.map((s) => s.bpm));
  const speed = statsOf(speedSamples.map((s) => s.speed_meters_per_second));
  const power = statsOf(powerSamples.map((s) => s.watts));
  const cadence = statsOf(cadenceSamples.map((s) => s.cadence_rpm));
  const elevation = statsOf(elevationSamples.map((s) => s.elev_meters));
  const calories = numberOrNull(summary.activeKilocalories);
  const avgSpeed = positiveOrNull(summary.averageSpeedInMetersPerSecond) ?? speed.avg;
  const maxSpeed = positiveOrNull(summary.maxSpeedInMetersPerSecond) ?? speed.max;
  const first = positions[0]?.sample;
  const last = positions[positions.length - 1]?.sample;
  const latLng = (sample: GarminActivitySample | undefined) =>
    sample && isNumber(sample.latitudeInDegree) && isNumber(sample.longitudeInDegree)
      ? [sample.latitudeInDegree, sample.longitudeInDegree]
      : null;
  const startPoint =
    latLng(first) ??
    (isNumber(summary.startingLatitudeInDegree) && isNumber(summary.startingLongitudeInDegree)
      ? [summary.startingLatitudeInDegree, summary.startingLongitudeInDegree]
      : null);
  const uploadType =
    summary.manual === true
      ? UploadType.MANUAL
      : upload === 'update'
        ? UploadType.UPDATE
        : UploadType.AUTOMATIC;

  return {
    metadata: {
      summary_id: id,
      start_time: wireAt(start, offset),
      end_time: wireAt(Math.max(end, start), offset),
      type: garminActivityType(textOrNull(summary.activityType)),
      upload_type: uploadType,
      name: textOrNull(summary.activityName),
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: { activity_seconds: numberOrNull(summary.durationInSeconds) },
    calories_data: { net_activity_calories: calories },
    energy_data: { energy_kilojoules: calories === null ? null : kilocaloriesToKilojoules(calories) },
    device_data: textOrNull(summary.deviceName)
      ? { name: textOrNull(summary.deviceName), manufacturer: 'Garmin' }
      : null,
    distance_data: {
      summary: {
        distance_meters:
          positiveOrNull(summary.distanceInMeters) ?? distanceSamples.at(-1)?.distance_meters ?? null,
        steps: positiveOrNull(summary.steps),
        elevation: {
          gain_actual_meters: numberOrNull(summary.totalElevationGainInMeters),
          loss_actual_meters: numberOrNull(summary.totalElevationLossInMeters),
          avg_meters: elevation.avg,
          min_meters: elevation.min,
          max_meters: elevation.max,
        },
        swimming: isNumber(summary.numberOfActiveLengths)
          ? {
              num_laps: summary.numberOfActiveLengths,
              pool_length_meters: positiveOrNull(summary.poolLengthInMeters),
            }
          : null,
      },
      detailed: { distance_samples: distanceSamples, elevation_samples: elevationSamples },
    },
    heart_rate_data: {
      summary: {
        avg_hr_bpm: heartRateOrNull(summary.averageHeartRateInBeatsPerMinute) ?? hr.avg,
        max_hr_bpm: heartRateOrNull(summary.maxHeartRateInBeatsPerMinute) ?? hr.max,
        min_hr_bpm: hr.min,
        user_max_hr_bpm: context.maxHeartRate ?? null,
      },
      detailed: { hr_samples: hrSamples },
    },
    movement_data: {
      avg_speed_meters_per_second: avgSpeed,
      max_speed_meters_per_second: maxSpeed,
      avg_pace_minutes_per_kilometer:
        positiveOrNull(summary.averagePaceInMinutesPerKilometer) ??
        (avgSpeed ? paceMinutesPerKilometer(avgSpeed) : null),
      max_pace_minutes_per_kilometer:
        positiveOrNull(summary.maxPaceInMinutesPerKilometer) ??
        (maxSpeed ? paceMinutesPerKilometer(maxSpeed) : null),
      avg_cadence_rpm:
        positiveOrNull(
          summary.averageBikeCadenceInRoundsPerMinute ??
            summary.averageRunCadenceInStepsPerMinute ??
            summary.averageSwimCadenceInStrokesPerMinute,
        ) ?? cadence.avg,
      max_cadence_rpm:
        positiveOrNull(summary.maxBikeCadenceInRoundsPerMinute ?? summary.maxRunCadenceInStepsPerMinute) ??
        cadence.max,
      speed_samples: speedSamples,
      cadence_samples: cadenceSamples,
    },
    power_data:
      powerSamples.length > 0 || isNumber(summary.averagePowerInWatts)
        ? {
            avg_watts: positiveOrNull(summary.averagePowerInWatts) ?? power.avg,
            max_watts: positiveOrNull(summary.maxPowerInWatts) ?? power.max,
            power_samples: powerSamples,
          }
        : null,
    position_data:
      startPoint || positions.length > 0
        ? {
            start_pos_lat_lng_deg: startPoint,
            end_pos_lat_lng_deg: latLng(last),
            position_samples: positions.map(({ at, sample }) => ({
              timestamp: wireAt(at, offset),
              coords_lat_lng_deg: [sample.latitudeInDegree as number, sample.longitudeInDegree as number],
              timer_duration_seconds: numberOrNull(sample.timerDurationInSeconds) ?? at - start,
            })),
          }
        : null,
    polyline_map_data:
      positions.length > 1
        ? {
            summary_polyline: encodePolyline(
              positions.map(({ sample }) => sample.latitudeInDegree as number),
              positions.map(({ sample }) => sample.longitudeInDegree as number),
            ),
          }
        : null,
  };
}

export function normalizeActivities(payload: GarminActivityPayload, context: NormalizeContext): Activity[] {
  const details = new Map<string, GarminActivityDetails>();
  for (const detail of payload.activityDetails ?? []) {
    if (!detail || typeof detail !== 'object') continue;
    const samples = Array.isArray(detail.samples) ? detail.samples : [];
    const summary = detail.summary && typeof detail.summary === 'object' ? detail.summary : undefined;
    details.set(keyOf(detail.summaryId ?? summary?.summaryId), { ...detail, samples, summary });
  }
  const chosen = new Map<string, { summary: GarminActivity; upload: 'device' | 'update' }>();
  for (const activity of payload.activities) {
    if (activity && typeof activity === 'object')
      chosen.set(keyOf(activity.summaryId), { summary: activity, upload: 'device' });
  }
  for (const [key, detail] of details) {
    if (!chosen.has(key) && detail.summary)
      chosen.set(key, { summary: { ...detail.summary, summaryId: key }, upload: 'device' });
  }
  for (const activity of payload.manuallyUpdatedActivities ?? []) {
    if (activity && typeof activity === 'object')
      chosen.set(keyOf(activity.summaryId), { summary: activity, upload: 'update' });
  }
  const records: Activity[] = [];
  for (const [key, { summary, upload }] of chosen) {
    const record = normalizeGarminActivity(summary, details.get(key), upload, context);
    if (record) records.push(record);
  }
  return records;
}
