/* eslint-disable @typescript-eslint/no-explicit-any -- the migrator runs on any database shape. */
import type { Kysely } from 'kysely';
import { type MigrationProvider, Migrator } from 'kysely/migration';
import { migrations } from './migrations/index.ts';

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * The migration bookkeeping tables live in the store's own schema; left to default, Kysely
 * would find another schema's `kysely_migration` on the search path and skip our tables.
 */
function migrator(db: Kysely<any>, schema: string | undefined) {
  return new Migrator({
    db,
    provider,
    ...(schema && schema !== 'public' ? { migrationTableSchema: schema } : {}),
  });
}

/** Applies every pending migration; throws with the failing migration's name on error. */
export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<string[]> {
  const { error, results } = await migrator(db, schema).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${message}`, { cause: error });
  }
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}

/** Names of migrations the code knows but the database has not applied. */
export async function pendingMigrations(db: Kysely<any>, schema?: string): Promise<string[]> {
  const all = await migrator(db, schema).getMigrations();
  return all.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}
