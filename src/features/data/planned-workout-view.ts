// Planned workouts as the data reads and data events show them: the user's workouts planned through
// Tributary (held by the workouts feature, which registers itself as their source) together with
// the workouts the provider holds (synced like any data type, `plannedWorkout` records), each in
// the current wire form (model/planned-workout-current.ts). A workout Tributary pushed comes back
// from the provider too: it is shown once, as Tributary's, matched on the provider's id.
import { externalPlannedWorkout, type PlannedWorkout } from '../../model/planned-workout-current.ts';
import type { Db } from '../../store/db.ts';
import * as repo from './repo.ts';

/** Local calendar days [fromDay, toDay), as `YYYY-MM-DD`. */
export type DayRange = { fromDay: string; toDay: string };

/** The planned workouts of a user made through Tributary, planned on a day of `days`. */
export type OwnPlannedWorkoutSource = (db: Db, userId: string, days: DayRange) => Promise<PlannedWorkout[]>;

const PROVIDER_TYPE = 'plannedWorkout';

function byDateThenId(left: PlannedWorkout, right: PlannedWorkout): number {
  const leftKey = `${left.planned_date ?? ''}|${left.planned_workout_id ?? ''}|${left.provider_workout_id ?? ''}`;
  const rightKey = `${right.planned_date ?? ''}|${right.planned_workout_id ?? ''}|${right.provider_workout_id ?? ''}`;
  return leftKey < rightKey ? -1 : leftKey > rightKey ? 1 : 0;
}

export function createPlannedWorkoutView(db: Db) {
  let own: OwnPlannedWorkoutSource = async () => [];

  return {
    /** The workouts feature registers its store here at composition (it sits above data). */
    registerOwnSource(source: OwnPlannedWorkoutSource): void {
      own = source;
    },

    /** Every planned workout of the user on `days`, by date: Tributary's and the provider's. */
    async list(userId: string, days: DayRange, trx: Db = db): Promise<PlannedWorkout[]> {
      const mine = await own(trx, userId, days);
      const pushed = new Set(mine.map((workout) => workout.provider_workout_id).filter(Boolean));
      const stored = await repo.recordsOnDays(trx, { userId, type: PROVIDER_TYPE, ...days });
      const external = stored
        .map((row) => externalPlannedWorkout(JSON.parse(row.summary) as Record<string, unknown>))
        .filter((workout) => !workout.provider_workout_id || !pushed.has(workout.provider_workout_id));
      return [...mine, ...external].sort(byDateThenId);
    },

    /** Provider-side workouts the store holds with these provider ids (the ones it knows). */
    async knownProviderIds(userId: string, ids: readonly string[]): Promise<Set<string>> {
      return repo.existingKeys(db, userId, PROVIDER_TYPE, ids);
    },

    /** Forgets provider-side workouts the provider has deleted. */
    async forgetProviderWorkouts(trx: Db, userId: string, ids: readonly string[]): Promise<void> {
      await repo.deleteRecords(trx, userId, PROVIDER_TYPE, ids);
    },
  };
}

export type PlannedWorkoutView = ReturnType<typeof createPlannedWorkoutView>;
