import { type Kysely, sql } from 'kysely';

/**
 * The merged view's settings per developer (features/merge): its own source order per metric
 * family (`{"sleep": ["OURA", "watch"], …}`, validated by the feature) and whether it wants the
 * `merged` webhook events. No row means the defaults: device order, no events.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE merge_settings (
      developer_id text PRIMARY KEY REFERENCES developers (id) ON DELETE CASCADE,
      priorities jsonb NOT NULL DEFAULT '{}'::jsonb,
      merged_events boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL
    )
  `.execute(db);
}
