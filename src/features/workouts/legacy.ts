// The older contract's `POST`/`DELETE /v2/plannedWorkout`: aliases over the same store as the
// current planned workouts, with bodies written without a template, the older wire shapes, and a
// provider failure answered 503 rather than 424.
import { invalidParameter } from '../../core/errors.ts';
import { isSupportedDate, readDateTime } from '../../model/calendar.ts';
import { dayOf, toCurrentDetails } from '../../model/planned-workout-current.ts';
import type { PlannedWorkoutDetails } from '../../model/planned-workout.ts';
import { dayNumberToIsoDate, MS_PER_DAY } from '../../model/time.ts';
import type { Developer } from '../developers/service.ts';
import { toWireUser, type WireUser } from '../connections/service.ts';
import type { WorkoutsDeps } from './deps.ts';
import { stamp, withIdentity } from './planned-views.ts';
import type { ProviderWrites } from './provider-writes.ts';
import * as repo from './repo.ts';

type Json = Record<string, unknown>;

export const PLANNED_WORKOUT_CREATED = 'Planned workout successfully created';

export type LegacyDeleteOutcome = {
  status: 200 | 207;
  user: WireUser;
  processed: { id: string; response_code: number }[];
};

export function createLegacyPlannedWorkouts(deps: WorkoutsDeps, writes: ProviderWrites) {
  const { db, clock } = deps;
  const now = () => clock.now();
  const { route, push, unpush } = writes;

  return {
    /** `POST /v2/plannedWorkout` (older contract): bodies without a template, ids in posted order. */
    async createLegacy(developer: Developer, userId: string, workouts: readonly PlannedWorkoutDetails[]) {
      const target = await route(developer, userId);
      const today = dayNumberToIsoDate(Math.floor(now().getTime() / MS_PER_DAY));
      const bodies = workouts.map((workout, index) => {
        const written = workout.metadata?.planned_date;
        // A datetime must be a real one too (hour 25 is not a day's start), not just its date part.
        const readable = !written || written.length === 10 || readDateTime(written) !== null;
        const day = written ? dayOf(written) : today;
        if (!readable || !day || !isSupportedDate(day)) {
          throw invalidParameter(
            `data[${index}].metadata.planned_date`,
            'expected YYYY-MM-DD or an ISO 8601 datetime, a real calendar date',
          );
        }
        return { day, details: withIdentity(toCurrentDetails(workout), null, day, target.user.provider) };
      });
      const ids = await push(
        target,
        bodies.map((body) => body.details),
        'legacy',
      );
      const at = now();
      const created: string[] = [];
      await db.transaction().execute(async (trx) => {
        for (const [index, body] of bodies.entries()) {
          const metadata = (body.details.metadata ?? {}) as Json;
          created.push(
            await repo.insertPlanned(trx, {
              developer_id: developer.id,
              user_id: target.user.id,
              workout_id: null,
              planned_date: body.day,
              provider_workout_id: ids[index] ?? null,
              delivery: target.delivery,
              coercion_warnings: null,
              athlete_metrics: null,
              details: {
                ...body.details,
                metadata: { ...metadata, created_date: metadata.created_date ?? stamp(at) },
              },
              created_at: at,
              last_updated_at: at,
            }),
          );
        }
      });
      return { user: toWireUser(target.user), log_ids: created, message: PLANNED_WORKOUT_CREATED };
    },

    /**
     * `DELETE /v2/plannedWorkout` (older contract): ids are Tributary's planned_workout_ids or
     * provider ids (of Tributary's workouts or of the provider's own); each gets its code.
     */
    async removeLegacy(
      developer: Developer,
      userId: string,
      ids: readonly string[],
    ): Promise<LegacyDeleteOutcome> {
      const target = await route(developer, userId);
      const user = target.user;
      const unique = [...new Set(ids)];
      const own = await repo.plannedByAnyId(db, user.id, unique);
      const ownById = new Map<string, repo.PlannedRow>();
      for (const row of own) {
        ownById.set(row.id, row);
        if (row.provider_workout_id) ownById.set(row.provider_workout_id, row);
      }
      const external = await deps.data.plannedWorkouts.knownProviderIds(
        user.id,
        unique.filter((id) => !ownById.has(id)),
      );
      const providerIds = [
        ...new Set([
          ...own
            .filter((row) => row.delivery === 'pushed' && row.provider_workout_id)
            .map((row) => row.provider_workout_id!),
          ...external,
        ]),
      ];
      const confirmed = await unpush(user, providerIds, 'legacy');
      const ownGone = own.filter(
        (row) =>
          row.delivery !== 'pushed' || !row.provider_workout_id || confirmed.has(row.provider_workout_id),
      );
      const externalGone = [...external].filter((id) => confirmed.has(id));
      await db.transaction().execute(async (trx) => {
        await repo.deletePlanned(
          trx,
          ownGone.map((row) => row.id),
        );
        await deps.data.plannedWorkouts.forgetProviderWorkouts(trx, user.id, externalGone);
      });
      const goneIds = new Set(ownGone.map((row) => row.id));
      const processed = ids.map((id) => {
        const row = ownById.get(id);
        const code = row
          ? goneIds.has(row.id)
            ? 200
            : 502
          : external.has(id)
            ? confirmed.has(id)
              ? 200
              : 502
            : 404;
        return { id, response_code: code };
      });
      return {
        status: processed.every((entry) => entry.response_code === 200) ? 200 : 207,
        user: toWireUser(user),
        processed,
      };
    },
  };
}
