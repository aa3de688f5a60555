import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Migrator } from 'kysely/migration';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrator as storeMigrator } from '../../src/store/migrate.ts';
import { migrations } from '../../src/store/migrations/index.ts';

/**
 * An empty store for a migration test, with a migrator the test moves step by step: embedded
 * PGlite in memory, or on PostgreSQL (DATABASE_URL) a schema of its own, dropped on close.
 */
export type MigrationStore = {
  store: Store;
  migrator: Migrator;
  /** Applies every migration before `name` (which must exist and not be the first). */
  migrateToJustBefore(name: string): Promise<void>;
  close(): Promise<void>;
};

export async function openMigrationStore(): Promise<MigrationStore> {
  const schema = `m_${randomBytes(5).toString('hex')}`;
  const store = await openStore({ databaseUrl: process.env.DATABASE_URL, dataDir: undefined, schema });
  // The service's own migrator (bookkeeping in the store's schema, introspection scoped to it).
  const migrator = storeMigrator(store.db, store.postgres ? schema : undefined);
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
      if (store.postgres) await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(store.db);
      await store.close();
    },
  };
}
