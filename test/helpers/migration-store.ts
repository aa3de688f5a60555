import type { Migrator } from 'kysely/migration';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrator as storeMigrator } from '../../src/store/migrate.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { createTestDatabase } from './database.ts';

/**
 * An empty store for a migration test, with a migrator the test moves step by step: an empty
 * database of its own on the test PostgreSQL (test/helpers/database.ts), dropped on close.
 */
export type MigrationStore = {
  store: Store;
  migrator: Migrator;
  /** Applies every migration before `name` (which must exist and not be the first). */
  migrateToJustBefore(name: string): Promise<void>;
  close(): Promise<void>;
};

export async function openMigrationStore(): Promise<MigrationStore> {
  const database = await createTestDatabase('empty');
  const store = await openStore({ databaseUrl: database.url, dataDir: undefined });
  // The service's own migrator (bookkeeping in the store's schema, introspection scoped to it).
  const migrator = storeMigrator(store.db, undefined);
  return {
    store,
    migrator,
    async migrateToJustBefore(name) {
      const names = Object.keys(migrations);
      const index = names.indexOf(name);
      if (index < 1) throw new Error(`no migration before ${name}`);
      const { error } = await migrator.migrateTo(names[index - 1]!);
      if (error) throw error;
    },
    async close() {
      await store.close();
      await database.drop();
    },
  };
}
