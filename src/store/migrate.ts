/* eslint-disable @typescript-eslint/no-explicit-any -- the migrator runs on any database shape. */
import { type DatabaseIntrospector, type Kysely, sql, type TableMetadata } from 'kysely';
import { type MigrationProvider, Migrator } from 'kysely/migration';
import { isDatabaseConnectionError } from '../core/errors.ts';
import { withoutStatementDeadline } from './db.ts';
import { knownMigrationNames } from './migration-names.ts';

// The migrations' code (some forty modules) is loaded only when the migrator runs: a later start
// finds nothing pending from their names alone (migrationState).
const provider: MigrationProvider = {
  getMigrations: async () => (await import('./migrations/index.ts')).migrations,
};

/**
 * What the migrator asks the database (does our schema exist, do the bookkeeping tables exist),
 * answered from our own schema alone. Kysely's own introspector reads every table of every schema
 * and resolves each schema by name (`has_schema_privilege`, `pg_get_serial_sequence`): on a
 * database shared with others, a schema dropped while that query runs fails our start-up with
 * "schema … does not exist" (seen on PostgreSQL while other test runs dropped theirs).
 */
function scopedIntrospector(db: Kysely<any>, schema: string | undefined): DatabaseIntrospector {
  const inSchema = schema ? sql`n.nspname = ${schema}` : sql`n.nspname = current_schema()`;
  return {
    async getSchemas() {
      const { rows } = await sql<{ name: string }>`
        SELECT nspname AS name FROM pg_catalog.pg_namespace n WHERE ${inSchema}`.execute(db);
      return rows;
    },
    async getTables(): Promise<TableMetadata[]> {
      const { rows } = await sql<{ name: string; schema: string; kind: string }>`
        SELECT c.relname AS name, n.nspname AS schema, c.relkind AS kind
        FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE ${inSchema} AND c.relkind IN ('r', 'p', 'v', 'f')`.execute(db);
      return rows.map((row) => ({
        name: row.name,
        schema: row.schema,
        isView: row.kind === 'v',
        isForeign: row.kind === 'f',
        columns: [],
      }));
    },
  };
}

/** The same database handle, but its `introspection` is the scoped one above. */
function withScopedIntrospection(db: Kysely<any>, schema: string | undefined): Kysely<any> {
  const introspection = scopedIntrospector(db, schema);
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The migration bookkeeping tables live in the store's own schema; left to default, Kysely
 * would find another schema's `kysely_migration` on the search path and skip our tables.
 */
export function migrator(db: Kysely<any>, schema: string | undefined): Migrator {
  const own = schema && schema !== 'public' ? schema : undefined;
  return new Migrator({
    db: withScopedIntrospection(db, own),
    provider,
    ...(own ? { migrationTableSchema: own } : {}),
  });
}

/** How often start-up migrations are tried when the connection is lost, and the first pause. */
const MIGRATION_ATTEMPTS = 5;
const MIGRATION_RETRY_FIRST_MS = 500;

/**
 * The longest a migration waits for one lock before its run gives up and starts again. A run
 * takes each table's lock as its statements reach it and holds it to the commit, while the
 * running release's requests take theirs in their own order: a request that holds one table and
 * then waits for another the run already holds, while the run waits for the first, is a deadlock,
 * and PostgreSQL ended the request (a 503 in the upgrade test). A run that yields after this
 * (below PostgreSQL's default deadlock_timeout of 1 s, so before a request's deadlock check) lets
 * the request through, and tries again a moment later.
 */
const MIGRATION_LOCK_WAIT_MS = 100;
/** How long a run keeps trying while locks are busy (another process migrating, long requests). */
const MIGRATION_LOCK_RETRY_FOR_MS = 30 * 60_000;
/** Pauses between runs that met a busy lock: doubling from the first to the last. */
const LOCK_RETRY_FIRST_MS = 50;
const LOCK_RETRY_MAX_MS = 1_000;
/** 55P03 lock_not_available (lock_timeout), 40P01 deadlock_detected. */
const LOCK_CONTENTION = new Set(['55P03', '40P01']);

// Kysely discards a connection whose rollback failed (the session was lost mid-migration) and then
// releases the migration lock on it, which throws this and hides the original error.
const DISCARDED_CONNECTION = /connection has been discarded/i;

/** Whether a failed run met a lock it could not have in time (or a deadlock): it may run again at once. */
function lockContention(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (LOCK_CONTENTION.has(String((cause as { code?: unknown }).code))) return true;
  }
  return false;
}

/** Whether a failed migration run may succeed as it is when tried again (the database blinked). */
function lostConnection(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (isDatabaseConnectionError(cause) || DISCARDED_CONNECTION.test(cause.message)) return true;
  }
  return false;
}

/**
 * Applies every pending migration; throws with the failing migration's name on error. Kysely
 * runs them all in one transaction, so a run cut short by a lost connection left nothing applied:
 * it is tried again with backoff (a database restart during start-up is survived), and any other
 * error is thrown at once.
 */
export async function migrateToLatest(
  db: Kysely<any>,
  schema?: string,
  options: { attempts?: number; retryFirstMs?: number } = {},
): Promise<string[]> {
  const attempts = options.attempts ?? MIGRATION_ATTEMPTS;
  let pauseMs = options.retryFirstMs ?? MIGRATION_RETRY_FIRST_MS;
  const lockRetryUntil = Date.now() + MIGRATION_LOCK_RETRY_FOR_MS;
  let lockPauseMs = LOCK_RETRY_FIRST_MS;
  for (let attempt = 1; ;) {
    const run = await migrateOnce(db, schema);
    if (!run.error) return run.applied;
    if (lockContention(run.error.cause) && Date.now() < lockRetryUntil) {
      // Jittered, so that two processes migrating at once do not meet again in step.
      await new Promise((resolve) => setTimeout(resolve, lockPauseMs * (0.5 + Math.random())));
      lockPauseMs = Math.min(LOCK_RETRY_MAX_MS, lockPauseMs * 2);
      continue;
    }
    if (attempt >= attempts || !lostConnection(run.error.cause)) throw run.error;
    attempt++;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    pauseMs *= 2;
  }
}

async function migrateOnce(
  db: Kysely<any>,
  schema: string | undefined,
): Promise<{ applied: string[]; error?: Error }> {
  // A migration may rewrite or index a table of any size, and waits its turn on the migration
  // lock while another process migrates: no statement deadline (store/db.ts) applies to it.
  // Each lock, though, is waited for briefly (MIGRATION_LOCK_WAIT_MS; the run is tried again).
  const { error, results } = await withoutStatementDeadline(db, async (connection) => {
    await sql.raw(`SET lock_timeout = ${MIGRATION_LOCK_WAIT_MS}`).execute(connection);
    try {
      return await migrator(connection, schema).migrateToLatest();
    } finally {
      await sql`RESET lock_timeout`.execute(connection);
    }
  }).catch((thrown: unknown) => ({ error: thrown, results: undefined }));
  if (!error) {
    const applied = (results ?? []).filter((result) => result.status === 'Success');
    return { applied: applied.map((result) => result.migrationName) };
  }
  // The run's one transaction rolled back: migrations reported a success before the failure are not applied.
  const failed = results?.find((result) => result.status === 'Error');
  const message = error instanceof Error ? error.message : String(error);
  return {
    applied: [],
    error: new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${message}`, {
      cause: error,
    }),
  };
}

/** Names of migrations the code knows but the database has not applied. */
export async function pendingMigrations(db: Kysely<any>, schema?: string): Promise<string[]> {
  const all = await migrator(db, schema).getMigrations();
  return all.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name);
}

/**
 * Migrations the database has applied that this code does not know: a newer release ran them
 * (a rollback, or an old pod restarting during a rollout). Kysely refuses to migrate such a
 * database ("previously executed migration … is missing"); see `runtime.ts` for what start-up
 * does instead.
 */
export async function migrationsAheadOfCode(db: Kysely<any>, schema?: string): Promise<string[]> {
  return (await migrationState(db, schema)).ahead;
}

/**
 * The database's migrations against the code's, from one read of the bookkeeping table (none
 * yet: every migration pending): `ahead`, applied but unknown to this code (migrationsAheadOfCode);
 * `pending`, known but not applied. A later start that finds nothing pending need not run the
 * migrator at all (its table checks, lock and transaction are a dozen round trips).
 */
export async function migrationState(
  db: Kysely<any>,
  schema?: string,
): Promise<{ ahead: string[]; pending: string[] }> {
  const own = schema && schema !== 'public' ? schema : undefined;
  const table = own ? `${own}.kysely_migration` : 'kysely_migration';
  const { rows: present } = await sql<{ present: boolean }>`
    SELECT to_regclass(${table}) IS NOT NULL AS present`.execute(db);
  const applied = present[0]?.present
    ? (await sql<{ name: string }>`SELECT name FROM ${sql.raw(table)} ORDER BY name`.execute(db)).rows.map(
        (row) => row.name,
      )
    : [];
  const known = knownMigrationNames();
  const knownSet = new Set(known);
  const appliedSet = new Set(applied);
  return {
    ahead: applied.filter((name) => !knownSet.has(name)),
    pending: known.filter((name) => !appliedSet.has(name)).sort(),
  };
}
