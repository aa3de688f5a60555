import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { ensurePrivateDirectory, restrictNewFilesToOwner } from '../core/private-files.ts';
import {
  type ChangeFeed,
  type ChangeHandlers,
  channelOf,
  listenOnPglite,
  listenOnPostgres,
} from './change-feed.ts';
import { CONNECTION_LOST, faultReporter } from './fault-reporter.ts';
import { OwnerOnlyNodeFS } from './owner-only-fs.ts';
import { PgliteDialect } from './pglite-dialect.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export type Store = {
  db: Db;
  /**
   * A streaming replica for reads that need not see their own writes (StoreOptions.readUrl), or
   * `db` itself when there is none. Read-only: a write there fails.
   */
  readDb: Db;
  kind: 'pglite' | 'postgres';
  /** The embedded instance, when there is one (the job queue shares it). */
  pglite: PGlite | undefined;
  /** PostgreSQL connection string and schema, when on PostgreSQL (the job queue opens its own pool). */
  postgres: { connectionString: string; schema: string } | undefined;
  /**
   * Hears the change notices published on `topic` (change-feed.ts) until the store closes; on
   * PostgreSQL through a listening connection of its own.
   */
  listen(topic: string, handlers: ChangeHandlers): void;
  close(): Promise<void>;
};

export type StoreOptions = {
  databaseUrl: string | undefined;
  /** A PostgreSQL streaming replica of `databaseUrl` (DATABASE_READ_URL), opened as `readDb`. */
  readUrl?: string | undefined;
  /** Directory for embedded data; `undefined` keeps PGlite in memory (tests). */
  dataDir: string | undefined;
  /** PostgreSQL schema to use (tests isolate themselves in a schema of their own). */
  schema?: string;
  poolSize?: number;
  /** Where lost database connections are reported (once per outage window). */
  log?: Logger;
  /**
   * PostgreSQL: open without touching the database (no connection until the first query, the
   * schema not yet created). The caller waits for it with `store/startup-wait.ts`, which
   * prepares it; a serving process answers /health meanwhile.
   */
  connectLater?: boolean;
  /**
   * Embedded: a data directory snapshot (embedded-backup.ts) to create the store from; the data
   * directory must not hold a database yet.
   */
  loadDataDir?: Blob;
};

const INT8_OID = 20;

// PGlite's own single-user start parameters (they are replaced, not extended, when given).
const EMBEDDED_START_PARAMS = [
  '--single',
  '-F',
  '-O',
  '-j',
  '-c',
  'search_path=public',
  '-c',
  'exit_on_error=false',
  '-c',
  'log_checkpoints=false',
  '-c',
  'max_worker_processes=0',
  '-c',
  'max_parallel_workers=0',
  '-c',
  'max_parallel_workers_per_gather=0',
  '-c',
  'io_method=sync',
  '-c',
  'max_parallel_maintenance_workers=0',
];

// Counts and bigint ids come back as strings from node-postgres and as bigint from PGlite;
// every int8 we store fits a double, so both return numbers.
const parseInt8 = (value: string) => Number(value);

// PGlite's own bytea conversions go through an array of one string per byte (its serializer maps
// every byte to a two-digit string and joins them; its parser slices the hex text a byte at a
// time): an 8 MB lab report file took the whole heap before the upload was answered. Buffer's hex
// codec does the same in one native pass, with one string of twice the file's size.
const BYTEA_OID = 17;
const serializeBytea = (value: unknown) => {
  if (!(value instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
  return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
};
const parseBytea = (value: string) => Buffer.from(value.slice(2), 'hex');

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl)
    return openPostgres(
      options.databaseUrl,
      options.schema ?? 'public',
      options.poolSize,
      options.log,
      options.readUrl,
      options.connectLater,
    );
  return openPglite(options.dataDir, options.loadDataDir);
}

async function openPglite(dataDir: string | undefined, loadDataDir?: Blob): Promise<Store> {
  let fs: OwnerOnlyNodeFS | undefined;
  if (dataDir) {
    const path = join(dataDir, 'pgdata');
    ensurePrivateDirectory(dataDir);
    ensurePrivateDirectory(path);
    // Health data: what this process creates from now on is its user's alone (PGlite's own file
    // modes are restricted by OwnerOnlyNodeFS; the umask covers the directories it makes).
    restrictNewFilesToOwner();
    fs = new OwnerOnlyNodeFS(path);
  }
  const pglite = await PGlite.create({
    ...(fs ? { fs } : {}),
    ...(loadDataDir ? { loadDataDir } : {}),
    parsers: { [INT8_OID]: parseInt8, [BYTEA_OID]: parseBytea },
    serializers: { [BYTEA_OID]: serializeBytea },
    // PostgreSQL's default 128 MB of shared buffers all lands in this process's memory; an
    // embedded store serves one laptop, and the OS page cache still holds the data files.
    startParams: [...EMBEDDED_START_PARAMS, '-c', 'shared_buffers=32MB'],
  });
  const db = new Kysely<Database>({ dialect: new PgliteDialect(pglite) });
  const feeds: ChangeFeed[] = [];
  return {
    db,
    readDb: db,
    kind: 'pglite',
    pglite,
    postgres: undefined,
    listen(topic, handlers) {
      feeds.push(listenOnPglite(pglite, channelOf(topic, 'public'), handlers));
    },
    async close() {
      await Promise.all(feeds.map((feed) => feed.close()));
      await db.destroy();
      await pglite.close();
    },
  };
}

/**
 * The store's schema exists (created when it is not `public`); on `public`, one round trip that
 * shows the database answers. Either way it fails as a query does when the database is away.
 */
async function prepareSchema(db: Db, schema: string) {
  if (schema !== 'public') await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${schema}`).execute(db);
  else await sql`select 1`.execute(db);
}

/** What a store opened with `connectLater` needs before its first migration: see prepareSchema. */
export async function prepareStore(store: Store): Promise<void> {
  if (store.postgres) await prepareSchema(store.db, store.postgres.schema);
  else await sql`select 1`.execute(store.db);
}

/** A pool on `connectionString` with our int8 parsing and search path, and the Kysely on it. */
function openPool(
  connectionString: string,
  schema: string,
  size: number,
  reportLoss: (error: Error) => void,
) {
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString,
    max: size,
    types,
    options: `-c search_path=${schema}`,
    connectionTimeoutMillis: 10_000,
  });
  // A connection the server drops emits 'error'; unheard, that ends the process. pg-pool re-emits
  // an idle client's error on the pool but takes its own listener off a client while it is
  // checked out, so every client gets one of ours too. The statement in flight rejects with the
  // same error (the HTTP edge answers 503) and the pool discards the broken client; the next
  // checkout opens a fresh connection, so the pool recovers as soon as the database is back.
  pool.on('error', reportLoss);
  pool.on('connect', (client) => client.on('error', reportLoss));
  return { pool, db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) };
}

async function openPostgres(
  connectionString: string,
  schema: string,
  poolSize = 10,
  log?: Logger,
  readUrl?: string,
  connectLater = false,
): Promise<Store> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  const reportLoss = faultReporter(log, { source: 'pool', message: CONNECTION_LOST });
  const { db } = openPool(connectionString, schema, poolSize, reportLoss);
  if (!connectLater) await prepareSchema(db, schema);
  // The replica's pool is opened lazily by pg (no connection until the first routed read).
  const readDb = readUrl ? openPool(readUrl, schema, poolSize, reportLoss).db : db;
  const feeds: ChangeFeed[] = [];
  return {
    db,
    readDb,
    kind: 'postgres',
    pglite: undefined,
    postgres: { connectionString, schema },
    listen(topic, handlers) {
      feeds.push(listenOnPostgres({ connectionString, channel: channelOf(topic, schema), handlers, log }));
    },
    async close() {
      await Promise.all(feeds.map((feed) => feed.close()));
      if (readDb !== db) await readDb.destroy();
      await db.destroy();
    },
  };
}
