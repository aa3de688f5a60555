// The tables Tributary owns in a PostgreSQL destination's schema: which record tables there are,
// their migrations, and applying them (versions in `<schema>.schema_migrations`, under an
// advisory lock, so two workers never migrate at once). Separate so the database's shape is in
// one place, apart from the statements that write to it (postgresql-statements.ts).
import type pg from 'pg';
import { type DataTypeName } from '../../../model/index.ts';
import type { PostgresqlSettings } from './postgresql-settings.ts';

/** The record tables, by the data event's `type` on the wire, with the model type keying their records. */
export const RECORD_TABLES: Readonly<Record<string, DataTypeName>> = {
  activity: 'activity',
  body: 'body',
  daily: 'daily',
  hormone: 'hormone',
  menstruation: 'menstruation',
  nutrition: 'nutrition',
  planned_workout: 'plannedWorkout',
  sleep: 'sleep',
};

/**
 * The migrations of the tables Tributary owns in the developer's database, in order. Released
 * ones are never edited: a change is a new entry (the schema's `schema_migrations` says which ran).
 */
function migrationsFor(schema: string): string[][] {
  const s = `"${schema}"`;
  const recordTables = Object.keys(RECORD_TABLES).map(
    (table) => `
      CREATE TABLE ${s}."${table}" (
        user_id text NOT NULL,
        record_id text NOT NULL,
        record jsonb NOT NULL,
        event_id text NOT NULL,
        event_created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, record_id)
      )`,
  );
  return [
    [
      `CREATE TABLE ${s}.events (
        event_id text PRIMARY KEY,
        developer_id text NOT NULL,
        type text NOT NULL,
        user_id text,
        created_at timestamptz NOT NULL,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX events_by_user ON ${s}.events (user_id, created_at)`,
      `CREATE TABLE ${s}.users (
        user_id text PRIMARY KEY,
        provider text,
        reference_id text,
        active boolean,
        "user" jsonb NOT NULL,
        event_created_at timestamptz NOT NULL,
        deauthenticated_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE TABLE ${s}.athlete (
        user_id text PRIMARY KEY,
        athlete jsonb NOT NULL,
        event_id text NOT NULL,
        event_created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      ...recordTables,
    ],
  ];
}

/** Creates the schema and its tables, or runs the migrations it has not run yet. */
export async function migrateTables(
  openPool: () => Promise<pg.Pool>,
  settings: PostgresqlSettings,
): Promise<void> {
  const s = `"${settings.schema}"`;
  const client = await (await openPool()).connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `tributary-destination:${settings.schema}`,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = await client.query<{ version: number }>(`SELECT version FROM ${s}.schema_migrations`);
    const applied = new Set(done.rows.map((row) => Number(row.version)));
    const steps = migrationsFor(settings.schema);
    for (let index = 0; index < steps.length; index++) {
      const version = index + 1;
      if (applied.has(version)) continue;
      for (const statement of steps[index]!) await client.query(statement);
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
