// Workout templates and planned workouts (the vendor's current `/workouts` and `/plannedWorkouts`,
// docs/wire-contract.md#planned-workouts), and the older contract's `POST`/`DELETE
// /v2/plannedWorkout` aliases over the same store. This module assembles the feature:
//   templates.ts        templates, stored per developer
//   template-update.ts  a template replaced and re-sent to its upcoming planned workouts
//   planned.ts          planning a template for a user; list, get, reschedule, delete
//   legacy.ts           the older contract's aliases
//   provider-writes.ts  how planned workouts reach the user's provider (pushed or queued)
//   planned-views.ts    how a stored planned workout is shown
//
// Tributary's planned workouts are registered with the data feature as a source of its own, so
// data reads and `planned_workout` events show the same list as this feature does.
import { findConnectionById } from '../connections/repo.ts';
import type { WorkoutsDeps } from './deps.ts';
import { createLegacyPlannedWorkouts } from './legacy.ts';
import { createPlannedWorkouts } from './planned.ts';
import { toWire } from './planned-views.ts';
import { createProviderWrites } from './provider-writes.ts';
import * as repo from './repo.ts';
import { createTemplates } from './templates.ts';
import { createTemplateUpdate } from './template-update.ts';

export type { WorkoutsDeps } from './deps.ts';

export function createWorkoutsService(deps: WorkoutsDeps) {
  // Data reads and planned_workout events list Tributary's planned workouts through this.
  deps.data.plannedWorkouts.registerOwnSource(async (trx, userId, days) => {
    const rows = await repo.plannedOfUser(trx, userId, days);
    if (rows.length === 0) return [];
    const user = await findConnectionById(trx, userId);
    return rows.map((row) => toWire(row, user?.provider ?? ''));
  });

  const writes = createProviderWrites(deps);
  return {
    ...createTemplates(deps, writes),
    ...createTemplateUpdate(deps, writes),
    ...createPlannedWorkouts(deps, writes),
    ...createLegacyPlannedWorkouts(deps, writes),
  };
}

export type WorkoutsService = ReturnType<typeof createWorkoutsService>;
