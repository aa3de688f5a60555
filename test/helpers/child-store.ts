import { openStore, type Db } from '../../src/store/db.ts';

/**
 * Opens the store of a child service (see child-service.ts) from the test process, to inspect what
 * it left behind: its PostgreSQL schema at any time, or its embedded data directory once the child
 * has stopped (embedded storage belongs to one process at a time).
 */
export async function withChildStore<T>(
  env: Record<string, string>,
  inspect: (db: Db) => Promise<T>,
): Promise<T> {
  const store = await openStore({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATABASE_URL ? undefined : env.DATA_DIR,
    ...(env.DATABASE_SCHEMA ? { schema: env.DATABASE_SCHEMA } : {}),
    poolSize: 2,
  });
  try {
    return await inspect(store.db);
  } finally {
    await store.close();
  }
}
