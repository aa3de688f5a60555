// Data access for workout templates and planned workouts. Every function takes the database or
// transaction it runs in. Ids are bigints read as text; dates are read as text.
import { sql } from 'kysely';
import type { Db } from '../../store/db.ts';
import type { PlannedWorkoutDelivery } from './tables.ts';

export type TemplateRow = { id: string; template: unknown; created_at: Date };

export type PlannedRow = {
  id: string;
  developer_id: string;
  user_id: string;
  workout_id: string | null;
  planned_date: string;
  provider_workout_id: string | null;
  delivery: PlannedWorkoutDelivery;
  coercion_warnings: string | null;
  athlete_metrics: unknown;
  details: unknown;
  created_at: Date;
  last_updated_at: Date;
};

const plannedColumns = [
  sql<string>`id::text`.as('id'),
  'developer_id',
  sql<string>`user_id::text`.as('user_id'),
  sql<string | null>`workout_id::text`.as('workout_id'),
  sql<string>`planned_date::text`.as('planned_date'),
  'provider_workout_id',
  'delivery',
  'coercion_warnings',
  'athlete_metrics',
  'details',
  'created_at',
  'last_updated_at',
] as const;

export async function insertTemplate(
  db: Db,
  input: { developerId: string; template: unknown; now: Date },
): Promise<string> {
  const row = await db
    .insertInto('workout_templates')
    .values({
      developer_id: input.developerId,
      template: JSON.stringify(input.template),
      created_at: input.now,
      updated_at: input.now,
    })
    .returning(sql<string>`id::text`.as('id'))
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function listTemplates(db: Db, developerId: string): Promise<TemplateRow[]> {
  return db
    .selectFrom('workout_templates')
    .select([sql<string>`id::text`.as('id'), 'template', 'created_at'])
    .where('developer_id', '=', developerId)
    .orderBy('id')
    .execute();
}

export async function findTemplate(
  db: Db,
  developerId: string,
  id: string,
): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('workout_templates')
    .select([sql<string>`id::text`.as('id'), 'template', 'created_at'])
    .where('developer_id', '=', developerId)
    .where(sql<boolean>`id = ${id}::bigint`)
    .executeTakeFirst();
}

/** Replaces the template's body; false when it is not the developer's. */
export async function updateTemplate(
  db: Db,
  developerId: string,
  id: string,
  template: unknown,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('workout_templates')
    .set({ template: JSON.stringify(template), updated_at: now })
    .where('developer_id', '=', developerId)
    .where(sql<boolean>`id = ${id}::bigint`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteTemplate(db: Db, developerId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('workout_templates')
    .where('developer_id', '=', developerId)
    .where(sql<boolean>`id = ${id}::bigint`)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertPlanned(
  db: Db,
  input: Omit<PlannedRow, 'id' | 'athlete_metrics' | 'details'> & {
    athlete_metrics: unknown;
    details: unknown;
  },
): Promise<string> {
  const row = await db
    .insertInto('planned_workouts')
    .values({
      developer_id: input.developer_id,
      user_id: input.user_id,
      workout_id: input.workout_id,
      planned_date: input.planned_date,
      provider_workout_id: input.provider_workout_id,
      delivery: input.delivery,
      coercion_warnings: input.coercion_warnings,
      athlete_metrics: input.athlete_metrics === null ? null : JSON.stringify(input.athlete_metrics),
      details: JSON.stringify(input.details),
      created_at: input.created_at,
      last_updated_at: input.last_updated_at,
    })
    .returning(sql<string>`id::text`.as('id'))
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findPlanned(db: Db, userId: string, id: string): Promise<PlannedRow | undefined> {
  return db
    .selectFrom('planned_workouts')
    .select(plannedColumns)
    .where('user_id', '=', userId)
    .where(sql<boolean>`id = ${id}::bigint`)
    .executeTakeFirst();
}

/** Planned workouts of a user: on days [fromDay, toDay) when given, else all; by date. */
export async function plannedOfUser(
  db: Db,
  userId: string,
  days: { fromDay: string; toDay: string } | null,
): Promise<PlannedRow[]> {
  let query = db.selectFrom('planned_workouts').select(plannedColumns).where('user_id', '=', userId);
  if (days) query = query.where('planned_date', '>=', days.fromDay).where('planned_date', '<', days.toDay);
  return query.orderBy('planned_date').orderBy('id').execute();
}

/** A user's planned workouts named by Tributary id or by provider id. */
export async function plannedByAnyId(db: Db, userId: string, ids: readonly string[]): Promise<PlannedRow[]> {
  if (ids.length === 0) return [];
  const numeric = ids.filter((id) => /^\d{1,18}$/.test(id));
  return db
    .selectFrom('planned_workouts')
    .select(plannedColumns)
    .where('user_id', '=', userId)
    .where((eb) =>
      eb.or([
        eb('provider_workout_id', 'in', ids),
        ...(numeric.length > 0 ? [eb(sql<string>`id::text`, 'in', numeric)] : []),
      ]),
    )
    .execute();
}

export async function plannedOfTemplate(
  db: Db,
  developerId: string,
  workoutId: string,
): Promise<PlannedRow[]> {
  return db
    .selectFrom('planned_workouts')
    .select(plannedColumns)
    .where('developer_id', '=', developerId)
    .where(sql<boolean>`workout_id = ${workoutId}::bigint`)
    .orderBy('id')
    .execute();
}

export async function reschedule(
  db: Db,
  id: string,
  change: { plannedDate: string; providerWorkoutId: string | null; details: unknown; now: Date },
): Promise<void> {
  await db
    .updateTable('planned_workouts')
    .set({
      planned_date: change.plannedDate,
      provider_workout_id: change.providerWorkoutId,
      details: JSON.stringify(change.details),
      last_updated_at: change.now,
    })
    .where(sql<boolean>`id = ${id}::bigint`)
    .execute();
}

/** A planned workout re-sent from its updated template: its new body, provider id and warnings. */
export async function replacePlannedBody(
  db: Db,
  id: string,
  change: { details: unknown; providerWorkoutId: string | null; warnings: string | null; now: Date },
): Promise<void> {
  await db
    .updateTable('planned_workouts')
    .set({
      details: JSON.stringify(change.details),
      provider_workout_id: change.providerWorkoutId,
      coercion_warnings: change.warnings,
      last_updated_at: change.now,
    })
    .where(sql<boolean>`id = ${id}::bigint`)
    .execute();
}

export async function deletePlanned(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('planned_workouts')
    .where(sql<string>`id::text`, 'in', ids)
    .execute();
}
