// How a stored planned workout is shown: in full (list, data reads, `planned_workout` events) or as
// the short summary the get and reschedule operations answer; and the body's metadata, which
// carries the provider's id and the scheduled date.
import type { PlannedWorkout } from '../../model/planned-workout-current.ts';
import { formatDateTime } from '../../model/time.ts';
import type * as repo from './repo.ts';

type Json = Record<string, unknown>;

/** The answer of the get and reschedule operations. */
export type PlannedWorkoutSummary = {
  planned_workout_id: string;
  planned_date: string;
  is_external: false;
  workout_id?: string;
  provider_workout_id?: string;
  coercion_warnings?: string;
};

/** A stored time as the wire writes it (UTC). */
export const stamp = (date: Date) => formatDateTime(date.getTime(), 0);

/** The body with the provider's id and the scheduled date written into its metadata. */
export function withIdentity(
  details: unknown,
  providerId: string | null,
  plannedDate: string,
  provider: string,
): Json {
  const body = (details ?? {}) as Json;
  const metadata = (body.metadata ?? {}) as Json;
  return { ...body, metadata: { ...metadata, id: providerId, provider, planned_date: plannedDate } };
}

export function toWire(row: repo.PlannedRow, provider: string): PlannedWorkout {
  return {
    planned_workout_id: row.id,
    workout_id: row.workout_id,
    planned_date: row.planned_date,
    provider_workout_id: row.provider_workout_id,
    coercion_warnings: row.coercion_warnings,
    created_at: stamp(row.created_at),
    last_updated_at: stamp(row.last_updated_at),
    is_external: false,
    athlete_metrics: (row.athlete_metrics ?? null) as PlannedWorkout['athlete_metrics'],
    details: withIdentity(
      row.details,
      row.provider_workout_id,
      row.planned_date,
      provider,
    ) as PlannedWorkout['details'],
  };
}

export function summaryOf(row: repo.PlannedRow): PlannedWorkoutSummary {
  return {
    planned_workout_id: row.id,
    planned_date: row.planned_date,
    is_external: false,
    ...(row.workout_id ? { workout_id: row.workout_id } : {}),
    ...(row.provider_workout_id ? { provider_workout_id: row.provider_workout_id } : {}),
    ...(row.coercion_warnings ? { coercion_warnings: row.coercion_warnings } : {}),
  };
}
