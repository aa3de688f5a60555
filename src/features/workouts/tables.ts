import type { ColumnType, Generated } from 'kysely';

/** `YYYY-MM-DD`: date columns are read and written as text (see the casts in repo.ts). */
type Day = ColumnType<string, string, string>;
/** bigint ids: read as text (`id::text`), so no driver turns them into a number or a BigInt. */
type BigId = ColumnType<string, never, never>;
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

export interface WorkoutTemplatesTable {
  id: Generated<BigId>;
  developer_id: string;
  /** The WorkoutTemplate as created (without its workout_id). */
  template: Json<unknown>;
  created_at: Date;
  updated_at: Date;
}

export type PlannedWorkoutDelivery = 'pushed' | 'queued';

export interface PlannedWorkoutsTable {
  id: Generated<BigId>;
  developer_id: string;
  user_id: string;
  /** bigint, written as the template id's text. */
  workout_id: ColumnType<string | null, string | null, string | null>;
  planned_date: Day;
  provider_workout_id: string | null;
  delivery: PlannedWorkoutDelivery;
  coercion_warnings: string | null;
  athlete_metrics: NullableJson<unknown>;
  /** The body as pushed to the provider, in the current schema's numeric form. */
  details: Json<unknown>;
  created_at: Date;
  last_updated_at: Date;
}

// This module owns these tables: it adds them to the store's `Database` (see store/schema.ts).
declare module '../../store/schema.ts' {
  interface Database {
    workout_templates: WorkoutTemplatesTable;
    planned_workouts: PlannedWorkoutsTable;
  }
}
