// Planned workouts: written to the provider through its connector (which names them), kept in
// the store like any record, and read back with GET /v2/plannedWorkout. Providers that cannot
// accept them get a 400.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { invalidParameter, upstreamUnavailable } from '../../core/errors.ts';
import { SUPPORTED_DATE_RANGE } from '../../model/calendar.ts';
import type { PlannedWorkout } from '../../model/planned-workout.ts';
import { formatDateTime } from '../../model/time.ts';
import type { DataSource } from '../../provider-kit/data-source.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { Db } from '../../store/db.ts';
import type { Developer } from '../developers/service.ts';
import { findUserForDeveloper, toWireUser, type UserRow, type WireUser } from '../users/service.ts';
import { anchorOf, prepareRecord } from './records.ts';
import * as repo from './repo.ts';
import type { Sync } from './sync.ts';
import { prepareAll } from './sync.ts';

export const PLANNED_WORKOUT_CREATED = 'Planned workout successfully created';
const TYPE = 'plannedWorkout';
/** Stands in for the id the provider assigns while a workout is checked before the write. */
const UNASSIGNED_ID = 'unassigned';

export type PlannedWorkoutDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  providers: ProviderCatalog;
  sync: Sync;
};

export type DeleteOutcome = {
  status: 200 | 207;
  user: WireUser;
  processed: { id: string; response_code: number }[];
};

async function callProvider<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (!(error instanceof ProviderDataError)) throw error;
    throw upstreamUnavailable('the provider did not accept the change right now; retry later', {
      headers: { 'Retry-After': String(error.retryAfterSeconds ?? 60) },
    });
  }
}

/**
 * A workout the store would refuse (an unreadable planned_date, say) is a 400 before anything
 * is written at the provider, never a 201 that stored nothing.
 */
function assertStorable(workouts: readonly PlannedWorkout[], now: Date): void {
  workouts.forEach((workout, index) => {
    const plannedDate = workout.metadata?.planned_date;
    if (typeof plannedDate === 'string' && !anchorOf(plannedDate)) {
      throw invalidParameter(
        `data[${index}].metadata.planned_date`,
        `expected YYYY-MM-DD or an ISO 8601 datetime, a real calendar date in ${SUPPORTED_DATE_RANGE}`,
      );
    }
    const prepared = prepareRecord(
      TYPE,
      { ...workout, metadata: { ...workout.metadata, id: UNASSIGNED_ID } },
      now,
    );
    if (!prepared.ok) throw invalidParameter(`data[${index}]`, prepared.problem);
  });
}

export function createPlannedWorkouts(deps: PlannedWorkoutDeps) {
  const { db, clock } = deps;

  /** The user and its provider's writer, or the 400/404 that explains why not. */
  async function writable(
    developer: Developer,
    userId: string,
  ): Promise<{ user: UserRow; source: DataSource }> {
    const user = await findUserForDeveloper(db, developer.id, userId);
    if (user.status === 'pending') {
      throw invalidParameter('user_id', `user ${user.id} has not completed authentication yet`);
    }
    const provider = deps.providers.get(user.provider);
    const source = provider?.connector?.data;
    if (
      !provider?.declaration.writesPlannedWorkouts ||
      !source?.writePlannedWorkouts ||
      !source.deletePlannedWorkouts
    ) {
      throw invalidParameter('user_id', `planned workouts cannot be written to provider ${user.provider}`);
    }
    return { user, source };
  }

  return {
    async create(developer: Developer, userId: string, workouts: readonly PlannedWorkout[]) {
      const { user, source } = await writable(developer, userId);
      assertStorable(workouts, clock.now());
      const ids = await callProvider(() =>
        source.writePlannedWorkouts!({ ...deps.sync.contextFor(user), workouts }),
      );
      if (ids.length !== workouts.length)
        throw new Error(`provider returned ${ids.length} ids for ${workouts.length} workouts`);
      const now = clock.now();
      const records = workouts.map((workout, index) => ({
        ...workout,
        metadata: {
          ...workout.metadata,
          id: ids[index],
          provider: workout.metadata?.provider ?? user.provider,
          created_date: workout.metadata?.created_date ?? formatDateTime(now.getTime(), 0),
        },
      }));
      await db.transaction().execute(async (trx) => {
        const prepared = prepareAll(deps.log, { user, type: TYPE, records, now });
        await repo.upsertRecords(trx, user.id, TYPE, prepared.stored, now);
      });
      return { user: toWireUser(user), log_ids: ids, message: PLANNED_WORKOUT_CREATED };
    },

    async remove(developer: Developer, userId: string, ids: readonly string[]): Promise<DeleteOutcome> {
      const { user, source } = await writable(developer, userId);
      const unique = [...new Set(ids)];
      const known = await repo.existingKeys(db, user.id, TYPE, unique);
      const toDelete = unique.filter((id) => known.has(id));
      const outcomes =
        toDelete.length === 0
          ? []
          : await callProvider(() =>
              source.deletePlannedWorkouts!({ ...deps.sync.contextFor(user), ids: toDelete }),
            );
      const deleted = new Set(outcomes.filter((outcome) => outcome.deleted).map((outcome) => outcome.id));
      await repo.deleteRecords(db, user.id, TYPE, [...deleted]);
      const processed = ids.map((id) => ({
        id,
        response_code: !known.has(id) ? 404 : deleted.has(id) ? 200 : 502,
      }));
      return {
        status: processed.every((entry) => entry.response_code === 200) ? 200 : 207,
        user: toWireUser(user),
        processed,
      };
    },
  };
}

export type PlannedWorkouts = ReturnType<typeof createPlannedWorkouts>;
