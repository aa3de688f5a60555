// Hevy workout (GET /v1/workouts/events `updated` events, schema `Workout` of the Hevy OpenAPI
// document, api.hevyapp.com/docs) -> Activity with strength_data.
//
// A workout holds `start_time`/`end_time` as UTC instants (`…Z`) and no time zone, so records
// are placed in UTC (+00:00) unless the user's offset is known. Each exercise becomes one
// `strength_data.exercises[]` entry and each set one `sets[]` entry; set fields are the
// document's (`weight_kg`, `reps`, `distance_meters`, `duration_seconds`, `rpe`, `type`).
// Placeholder zeros: a 0 for distance, duration or RPE is "not logged" (RPE is 6 to 10 in Hevy;
// 0 m or 0 s belongs to an exercise that does not log it); a 0 kg weight is kept (a bodyweight
// set lifts no added weight). Hevy sends no calories, heart rate or device: those stay null.
// The document's exercise field is `supersets_id`; some clients read `superset_id`: both are read.
import type { Activity } from '../../../model/activity.ts';
import { ActivityType } from '../../../model/activity-type.ts';
import { UploadType } from '../../../model/enums.ts';
import { formatDateTime } from '../../../model/time.ts';
import { localizationOf, type NormalizeContext } from '../../../provider-kit/normalize/normalize.ts';

export type HevySet = {
  index?: number | null;
  type?: string | null;
  weight_kg?: number | null;
  reps?: number | null;
  distance_meters?: number | null;
  duration_seconds?: number | null;
  rpe?: number | null;
  custom_metric?: number | null;
};

export type HevyExercise = {
  index?: number | null;
  title?: string | null;
  notes?: string | null;
  exercise_template_id?: string | null;
  supersets_id?: number | string | null;
  superset_id?: number | string | null;
  sets?: HevySet[] | null;
};

export type HevyWorkout = {
  id?: string;
  title?: string | null;
  description?: string | null;
  routine_id?: string | null;
  start_time?: string;
  end_time?: string | null;
  updated_at?: string | null;
  created_at?: string | null;
  exercises?: HevyExercise[] | null;
};

const SET_TYPES = new Set(['normal', 'warmup', 'dropset', 'failure']);

const finite = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const nonNegative = (value: unknown): number | null => {
  const number = finite(value);
  return number === null || number < 0 ? null : number;
};
const positive = (value: unknown): number | null => {
  const number = finite(value);
  return number === null || number <= 0 ? null : number;
};
const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null;
const idText = (value: unknown): string | null =>
  typeof value === 'number' && Number.isFinite(value) ? String(value) : text(value);
const wholeOrNull = (value: unknown): number | null => {
  const number = nonNegative(value);
  return number === null ? null : Math.round(number);
};

/** The instant a Hevy timestamp names (epoch ms), or NaN. */
export const hevyInstant = (value: unknown): number =>
  typeof value === 'string' ? Date.parse(value) : Number.NaN;

function strengthExercises(workout: HevyWorkout): NonNullable<Activity['strength_data']>['exercises'] {
  const exercises = Array.isArray(workout.exercises) ? workout.exercises : [];
  return exercises
    .filter((exercise) => exercise && typeof exercise === 'object')
    .map((exercise, position) => ({
      exercise_index: wholeOrNull(exercise.index) ?? position,
      exercise_name: text(exercise.title),
      // The category sits in the exercise template (GET /v1/exercise_templates), not read.
      exercise_category: null,
      exercise_id: text(exercise.exercise_template_id),
      superset_id: idText(exercise.supersets_id ?? exercise.superset_id),
      notes: text(exercise.notes),
      sets: (Array.isArray(exercise.sets) ? exercise.sets : [])
        .filter((set) => set && typeof set === 'object')
        .map((set, setPosition) => ({
          set_index: wholeOrNull(set.index) ?? setPosition,
          set_type: typeof set.type === 'string' && SET_TYPES.has(set.type) ? set.type : null,
          reps: wholeOrNull(set.reps),
          weight_kg: nonNegative(set.weight_kg),
          duration_seconds: positive(set.duration_seconds),
          distance_meters: positive(set.distance_meters),
          rpe: positive(set.rpe),
        })),
    }));
}

export function normalizeWorkout(workout: HevyWorkout, context: NormalizeContext): Activity {
  if (typeof workout?.id !== 'string' || workout.id === '') throw new RangeError('a workout without id');
  const startMs = hevyInstant(workout.start_time);
  if (Number.isNaN(startMs)) throw new RangeError(`workout ${workout.id}: invalid start_time`);
  const endParsed = hevyInstant(workout.end_time);
  // An end before the start (or none) leaves the duration unknown rather than negative.
  const endMs = Number.isNaN(endParsed) || endParsed < startMs ? null : endParsed;
  const offset = context.userOffsetMinutes ?? 0;
  const exercises = strengthExercises(workout);
  const distances = (exercises ?? []).flatMap((exercise) =>
    (exercise.sets ?? []).map((set) => set.distance_meters ?? 0),
  );
  const distance = distances.reduce((sum, meters) => sum + meters, 0);
  const seconds = endMs === null ? null : Math.round((endMs - startMs) / 1000);

  return {
    metadata: {
      summary_id: workout.id,
      start_time: formatDateTime(startMs, offset),
      end_time: formatDateTime(endMs ?? startMs, offset),
      type: ActivityType.STRENGTH_TRAINING,
      // Hevy workouts are logged by hand in the app, set by set.
      upload_type: UploadType.MANUAL,
      name: text(workout.title),
      timestamp_localization: localizationOf(offset),
    },
    active_durations_data: { activity_seconds: seconds, rest_seconds: null },
    calories_data: null,
    distance_data: distance > 0 ? { summary: { distance_meters: distance } } : null,
    strength_data: { exercises },
  };
}
