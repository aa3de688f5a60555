// Oura workout and session -> Activity.
//
// Cannot map: workout `intensity` (easy/moderate/hard has no slot; it is not an ActivityLevel
// time series), `meta`; session `mood` and `motion_count` (no mood or motion field in the model).
// `calories` is Oura's "energy burned during the workout" and goes to total_burned_calories; Oura
// does not split it into active and resting. Oura names the workout with a free string, matched
// by name (unknown names become 108 OTHER). Sessions are Activities because they are bounded,
// typed events with heart-rate series; their types map to meditation/guided breathing/still.
import { heartRate } from '../../../provider-kit/normalize/measures.ts';
import type { Activity } from '../../../model/activity.ts';
import { ActivityType } from '../../../model/activity-type.ts';
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import { instantOf, type NormalizeContext, offsetFor } from '../../../provider-kit/normalize/normalize.ts';
import { activityTypeOfName } from '../../../provider-kit/normalize/sport-names.ts';
import { convertOrNull, kilocaloriesToKilojoules } from '../../../provider-kit/normalize/units.ts';
import { expandSeries } from './series.ts';
import type { OuraSession, OuraWorkout } from './types.ts';

/** Oura's app names that the common dictionary does not already cover. */
const ouraActivityNames: Readonly<Record<string, ActivityType>> = {
  cycling: ActivityType.BIKING,
  crosstraining: ActivityType.CIRCUIT_TRAINING,
  housework: ActivityType.HOUSEWORK,
  other: ActivityType.OTHER,
};

/** `source`: only a manual entry is user-made; the rest were detected or recorded by the ring. */
const uploadTypeOfSource: Readonly<Record<OuraWorkout['source'], Activity['metadata']['upload_type']>> = {
  manual: UploadType.MANUAL,
  autodetected: UploadType.AUTOMATIC,
  confirmed: UploadType.AUTOMATIC,
  workout_heart_rate: UploadType.AUTOMATIC,
};

const sessionTypes: Readonly<Record<OuraSession['type'], ActivityType>> = {
  breathing: ActivityType.GUIDED_BREATHING,
  meditation: ActivityType.MEDITATION,
  relaxation: ActivityType.MEDITATION,
  nap: ActivityType.STILL,
  rest: ActivityType.STILL,
  body_status: ActivityType.OTHER,
};

function bounds(start: string, end: string, context: NormalizeContext) {
  const offset = offsetFor(start, context);
  return {
    offset,
    start_time: formatDateTime(instantOf(start, offset), offset),
    end_time: formatDateTime(instantOf(end, offsetFor(end, context)), offset),
  };
}

export function normalizeWorkout(workout: OuraWorkout, context: NormalizeContext): Activity {
  const { offset, start_time, end_time } = bounds(workout.start_datetime, workout.end_datetime, context);
  const calories = workout.calories ?? null;
  return {
    metadata: {
      summary_id: workout.id,
      start_time,
      end_time,
      type: activityTypeOfName(workout.activity, ouraActivityNames),
      upload_type: uploadTypeOfSource[workout.source] ?? UploadType.UNKNOWN,
      name: workout.label ?? workout.activity,
      timestamp_localization: offset === 0 ? 0 : 1,
    },
    calories_data: { total_burned_calories: calories },
    energy_data: { energy_kilojoules: convertOrNull(calories, kilocaloriesToKilojoules) },
    distance_data: { summary: { distance_meters: workout.distance ?? null } },
  };
}

export function normalizeWorkouts(workouts: readonly OuraWorkout[], context: NormalizeContext): Activity[] {
  return workouts.map((workout) => normalizeWorkout(workout, context));
}

export function normalizeSession(session: OuraSession, context: NormalizeContext): Activity {
  const { offset, start_time, end_time } = bounds(session.start_datetime, session.end_datetime, context);
  const hrSamples = expandSeries(session.heart_rate, offset, (timestamp, bpm) => ({ timestamp, bpm })).filter(
    (sample) => heartRate(sample.bpm) !== null,
  );
  // Oura's HRV series is RMSSD in ms (docs/providers.md#units).
  const hrvSamples = expandSeries(session.heart_rate_variability, offset, (timestamp, hrv_rmssd) => ({
    timestamp,
    hrv_rmssd,
  }));
  let total = 0;
  let max = Number.NEGATIVE_INFINITY;
  let min = Number.POSITIVE_INFINITY;
  for (const sample of hrSamples) {
    total += sample.bpm;
    if (sample.bpm > max) max = sample.bpm;
    if (sample.bpm < min) min = sample.bpm;
  }
  let hrvTotal = 0;
  for (const sample of hrvSamples) hrvTotal += sample.hrv_rmssd;
  const hasHr = hrSamples.length > 0;
  return {
    metadata: {
      summary_id: session.id,
      start_time,
      end_time,
      type: sessionTypes[session.type] ?? ActivityType.OTHER,
      // Sessions are started by the user in the app.
      upload_type: UploadType.MANUAL,
      name: session.type,
      timestamp_localization: offset === 0 ? 0 : 1,
    },
    heart_rate_data:
      hrSamples.length === 0 && hrvSamples.length === 0
        ? null
        : {
            summary: {
              avg_hr_bpm: hasHr ? total / hrSamples.length : null,
              max_hr_bpm: hasHr ? max : null,
              min_hr_bpm: hasHr ? min : null,
              avg_hrv_rmssd: hrvSamples.length > 0 ? hrvTotal / hrvSamples.length : null,
            },
            detailed: { hr_samples: hrSamples, hrv_samples_rmssd: hrvSamples },
          },
  };
}

export function normalizeSessions(sessions: readonly OuraSession[], context: NormalizeContext): Activity[] {
  return sessions.map((session) => normalizeSession(session, context));
}
