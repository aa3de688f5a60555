import { type Kysely, sql } from 'kysely';

/**
 * Workout templates and planned workouts (features/workouts; the vendor's current `/workouts`
 * and `/plannedWorkouts`). Ids are 64-bit integers, sent as strings. A template belongs to a
 * developer; a planned workout to one user (deleted with it) and, when it was planned from a
 * template, to that template: the service deletes the planned ones (at the provider too) before
 * the template, and the foreign key keeps a template from going while any remain.
 *
 * `details` is the body as pushed to the provider, in the current schema's numeric form;
 * `delivery` says whether it went to the provider (`pushed`) or waits for the user's mobile SDK
 * (`queued`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE workout_templates (
      id bigserial PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      template json NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX workout_templates_by_developer ON workout_templates (developer_id, id)`.execute(db);

  await sql`
    CREATE TABLE planned_workouts (
      id bigserial PRIMARY KEY,
      developer_id text NOT NULL REFERENCES developers (id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      workout_id bigint REFERENCES workout_templates (id),
      planned_date date NOT NULL,
      provider_workout_id text,
      delivery text NOT NULL CHECK (delivery IN ('pushed', 'queued')),
      coercion_warnings text,
      athlete_metrics json,
      details json NOT NULL,
      created_at timestamptz NOT NULL,
      last_updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX planned_workouts_by_user ON planned_workouts (user_id, planned_date, id)`.execute(
    db,
  );
  await sql`
    CREATE INDEX planned_workouts_by_template ON planned_workouts (workout_id)
    WHERE workout_id IS NOT NULL`.execute(db);
  await sql`
    CREATE INDEX planned_workouts_by_provider_id ON planned_workouts (user_id, provider_workout_id)
    WHERE provider_workout_id IS NOT NULL`.execute(db);
}
