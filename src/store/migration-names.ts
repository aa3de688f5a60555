// The migrations this code has, named from their files alone: a later start compares these
// names with the database's without loading the migrations' code (store/migrate.ts).
import { readdirSync } from 'node:fs';

const MIGRATION_FILE = /^(\d{4}_\w+)\.ts$/;

/**
 * The names of the migrations this code has, from their files (migrations/index.ts lists the
 * same ones, as a unit test checks). A file missing from the index would only make the migrator
 * run and find nothing to do; never the other way round.
 */
export function knownMigrationNames(): string[] {
  return readdirSync(new URL('./migrations/', import.meta.url))
    .map((file) => MIGRATION_FILE.exec(file)?.[1])
    .filter((name) => name !== undefined)
    .sort();
}
