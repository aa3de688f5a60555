// Garmin Training API: Tributary's planned workouts become Garmin workouts, scheduled on the
// user's Garmin Connect calendar (and so synced to the watch), and are deleted there again.
// Garmin's reference is partner-gated; the shapes below follow the public programme page
// (…/training-api/: "planned workouts and schedules pushed to devices") and public client code
// [C/?] (MAPPING.md "Planned workouts"). The user must have granted WORKOUT_IMPORT.
//
// The unified body arrives with enumerations by name (SDK) or by number (docs): `nameOf` reads
// either. Garmin reads back only what this app scheduled (its schedules by date, then each
// workout): those are listed as the provider's planned workouts.//
// The mapping lives in training-to-garmin.ts and training-from-garmin.ts; this module holds the
// data-source hooks that write, delete and read back through the Training API.
import type { TypeFetcher } from '../../provider-kit/api.ts';
import type { DataSource, DataSourceUser } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { PlannedWorkoutDetails } from '../../model/planned-workout.ts';
import { addDays } from '../../model/time.ts';
import { fromGarminWorkout } from './training-from-garmin.ts';
import { toGarminWorkout } from './training-to-garmin.ts';
import type { Json } from './training-values.ts';

export const GARMIN_TRAINING_API = 'https://apis.garmin.com/training-api';
/** The Garmin permission that lets a partner import workouts into a user's account. */
export const WORKOUT_IMPORT = 'WORKOUT_IMPORT';

/** Why this user's workouts cannot go to Garmin (WORKOUT_IMPORT not granted); null when they can. */
export function garminPlanRefusal(user: DataSourceUser): string | null {
  if (user.scopes === null) return null; // not known yet: Garmin answers 403 if it is missing
  const granted = user.scopes.split(/[\s,]+/);
  return granted.includes(WORKOUT_IMPORT)
    ? null
    : `the user has not granted Garmin's ${WORKOUT_IMPORT} permission (Training API)`;
}

type Hooks = Required<
  Pick<DataSource, 'writePlannedWorkouts' | 'deletePlannedWorkouts' | 'plannedWorkoutRefusal'>
>;

export const garminPlannedWorkouts: Hooks = {
  plannedWorkoutRefusal: garminPlanRefusal,

  async writePlannedWorkouts({ http, workouts }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    const ids: string[] = [];
    for (const details of workouts) {
      const created = await http.json<{ workoutId?: unknown }>({
        method: 'POST',
        url: `${GARMIN_TRAINING_API}/workout`,
        json: toGarminWorkout(details),
      });
      const workoutId = created?.workoutId;
      if (typeof workoutId !== 'number' && typeof workoutId !== 'string')
        throw new ProviderDataError('unavailable', 'Garmin created a workout without a workoutId');
      const date = details.metadata?.planned_date?.slice(0, 10);
      if (date) {
        try {
          await http.json({
            method: 'POST',
            url: `${GARMIN_TRAINING_API}/schedule`,
            json: { workoutId, date },
          });
        } catch (error) {
          // An unscheduled workout would sit in the user's library unseen: take it back.
          await http
            .json({ method: 'DELETE', url: `${GARMIN_TRAINING_API}/workout/${workoutId}`, absentOn: [404] })
            .catch(() => undefined);
          throw error;
        }
      }
      ids.push(String(workoutId));
    }
    return ids;
  },

  async deletePlannedWorkouts({ http, ids }) {
    if (!http) throw new ProviderDataError('unavailable', 'no provider HTTP client in this context');
    const outcomes: { id: string; deleted: boolean }[] = [];
    for (const id of ids) {
      if (!/^\d+$/.test(id)) {
        outcomes.push({ id, deleted: false });
        continue;
      }
      // Deleting the workout removes its schedules; already gone (404) is deleted too.
      await http.json({ method: 'DELETE', url: `${GARMIN_TRAINING_API}/workout/${id}`, absentOn: [404] });
      outcomes.push({ id, deleted: true });
    }
    return outcomes;
  },
};

/** What this app scheduled on the user's Garmin calendar in [startDate, endDate). */
export const garminPlannedWorkoutFetcher: TypeFetcher = async function* (args) {
  const schedules = await args.http.json({
    url: `${GARMIN_TRAINING_API}/schedule`,
    query: { startDate: args.startDate, endDate: addDays(args.endDate, -1) },
    absentOn: [404],
  });
  if (schedules === null) return;
  if (!Array.isArray(schedules))
    throw new ProviderDataError('unavailable', 'Garmin schedules answered something other than a list');
  const records: PlannedWorkoutDetails[] = [];
  for (const schedule of schedules as Json[]) {
    const workoutId = schedule?.workoutId;
    const date = typeof schedule?.date === 'string' ? schedule.date : null;
    if ((typeof workoutId !== 'number' && typeof workoutId !== 'string') || !date) continue;
    if (date < args.startDate || date >= args.endDate) continue;
    const workout = await args.http.json<Json>({
      url: `${GARMIN_TRAINING_API}/workout/${workoutId}`,
      absentOn: [404],
    });
    if (workout && typeof workout === 'object') records.push(fromGarminWorkout(workout, date));
  }
  yield { records, raw: schedules };
};
