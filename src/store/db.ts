import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { DEFAULT_STATEMENT_TIMEOUT_SECONDS } from '../core/config.ts';
import { markDatabaseError } from '../core/errors.ts';
import { acceptCopyIn } from './copy-in.ts';
import { type ChangeHandlers, channelOf, listenOnPostgres } from './change-feed.ts';
import {
  type EmbeddedPostgres,
  embeddedConnectionString,
  startEmbeddedPostgres,
  waitForEmbeddedPostgres,
} from './embedded/server.ts';
import { moveOverFromPglite } from './embedded/from-pglite.ts';
import { CONNECTION_LOST, faultReporter } from './fault-reporter.ts';
import { sendHotStatementsByName } from './named-statements.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export type Store = {
  db: Db;
  /**
   * A streaming replica for reads that need not see their own writes (StoreOptions.readUrl), or
   * `db` itself when there is none. Read-only: a write there fails.
   */
  readDb: Db;
  /** PostgreSQL connection string and schema (the job queue opens its own pool). */
  postgres: { connectionString: string; schema: string };
  /** Embedded storage: the data directory its PostgreSQL cluster lives in (backups copy it). */
  embedded: { dataDir: string } | undefined;
  /** Hears the change notices published on `topic` (change-feed.ts) until the store closes. */
  listen(topic: string, handlers: ChangeHandlers): void;
  close(): Promise<void>;
};

export type StoreOptions = {
  /** PostgreSQL; absent means embedded storage in `dataDir`. */
  databaseUrl: string | undefined;
  /** A PostgreSQL streaming replica of `databaseUrl` (DATABASE_READ_URL), opened as `readDb`. */
  readUrl?: string | undefined;
  /** Embedded storage's directory (its PostgreSQL cluster, store/embedded/server.ts). */
  dataDir: string | undefined;
  /**
   * Embedded storage: `start` runs the server for as long as the store is open (the caller owns
   * the data directory); `attach` connects to the one a running service started.
   */
  embedded?: {
    mode: 'start' | 'attach';
    port?: number | undefined;
    /**
     * `start`: the server the caller already set starting on this data directory (serve starts it
     * before it loads the rest of the service, so the two overlap); the store takes it over and
     * stops it on close. Absent: the store starts it.
     */
    starting?: Promise<EmbeddedPostgres> | undefined;
  };
  /** PostgreSQL schema to use (tests isolate themselves in a schema of their own). */
  schema?: string;
  poolSize?: number;
  /**
   * The longest one statement may run before PostgreSQL cuts it (statement_timeout of every
   * connection; DATABASE_STATEMENT_TIMEOUT_SECONDS). Work that legitimately runs longer lifts it
   * for itself: liftStatementDeadline, withoutStatementDeadline.
   */
  statementTimeoutMs?: number;
  /** Where lost database connections are reported (once per outage window). */
  log?: Logger;
  /**
   * Open without touching the database (no connection until the first query, the schema not yet
   * created). The caller waits for it with `store/startup-wait.ts`, which prepares it; a serving
   * process answers /health meanwhile. (An embedded server is started first all the same.)
   */
  connectLater?: boolean;
};

const INT8_OID = 20;

// Counts and bigint ids come back as strings from node-postgres; every int8 we store fits a
// double, so they are returned as numbers.
const parseInt8 = (value: string) => Number(value);

export async function openStore(options: StoreOptions): Promise<Store> {
  const open = (connectionString: string, embedded: Store['embedded']) =>
    openPostgres({
      connectionString,
      schema: options.schema ?? 'public',
      poolSize: options.poolSize,
      statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_SECONDS * 1000,
      log: options.log,
      readUrl: options.readUrl,
      connectLater: options.connectLater ?? false,
      embedded,
    });
  if (options.databaseUrl) return open(options.databaseUrl, undefined);
  const { dataDir } = options;
  if (!dataDir) throw new Error('embedded storage needs a data directory (DATA_DIR), or set DATABASE_URL');
  const mode = options.embedded?.mode ?? 'start';
  const port = options.embedded?.port;
  if (mode === 'attach') {
    if (!options.connectLater) await waitForEmbeddedPostgres(dataDir, port);
    return open(embeddedConnectionString(dataDir, { port }), { dataDir });
  }
  const server = await (options.embedded?.starting ??
    startEmbeddedPostgres({ dataDir, port, log: options.log }));
  try {
    // A DATA_DIR of an earlier release (PGlite) has its data copied over before anything opens it.
    await moveOverFromPglite(dataDir, port, options.log);
    const store = await open(server.connectionString, { dataDir });
    return withServer(store, server);
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The store closes its connections first, then the server it started. */
function withServer(store: Store, server: EmbeddedPostgres): Store {
  return {
    ...store,
    async close() {
      try {
        await store.close();
      } finally {
        await server.stop();
      }
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
  await prepareSchema(store.db, store.postgres.schema);
}

/**
 * Lifts the store's statement deadline for the rest of `trx` (SET LOCAL: it ends with the
 * transaction, whatever the outcome), for work that legitimately runs longer than a request's
 * statements: a job that waits its turn on a person's lock, moves a month of records, rebuilds;
 * a connection's deletion, which takes all its records and samples with it.
 */
export async function liftStatementDeadline(trx: Db): Promise<void> {
  // Outside a transaction SET LOCAL only warns: the work would keep its deadline unseen.
  if (!trx.isTransaction) throw new Error('liftStatementDeadline: not in a transaction');
  await sql`SET LOCAL statement_timeout = 0`.execute(trx);
}

/**
 * Runs `work` on one connection of `db` with no statement deadline, for work that opens its own
 * transactions (the migrator): set for the session, then reset to the pool's own deadline
 * (RESET returns to the value the connection started with) before the connection goes back.
 */
export async function withoutStatementDeadline<DB, T>(
  db: Kysely<DB>,
  work: (connection: Kysely<DB>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`SET statement_timeout = 0`.execute(connection);
    try {
      return await work(connection);
    } finally {
      await sql`RESET statement_timeout`.execute(connection);
    }
  });
}

/**
 * The connection class of the store's pools: everything the store adds to a connection happens
 * here, as each one is made. Every error it raises while connecting is marked as the database's
 * (core/errors.ts: a bare socket error from here means the database, the same code from any other
 * client does not), and so is every error it emits once connected; its hot statements go by name.
 */
function storeConnection(reportLoss: (error: Error) => void): typeof pg.Client {
  return class StoreConnection extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // A connection the server drops emits 'error'; unheard, that ends the process. pg-pool
      // re-emits an idle client's error on the pool but takes its own listener off a client while
      // it is checked out, so every connection has one of ours. The statement in flight rejects
      // with the same error (the HTTP edge answers 503) and the pool discards the broken client;
      // the next checkout opens a fresh connection, so the pool recovers once the database is back.
      this.on('error', (error: Error) => reportLoss(markDatabaseError(error)));
      // The hot statements of data reads go by name: parsed once per connection.
      sendHotStatementsByName(this);
      // COPY … FROM STDIN with a buffer as its data (copy-in.ts): an import's batches.
      acceptCopyIn(this);
      endOnFatal(this);
    }

    // pg-pool connects with a callback; anyone else (Kysely's cancellation) with a promise.
    override connect(): Promise<pg.Client>;
    override connect(callback: (error: Error | null, client?: pg.Client) => void): void;
    override connect(
      callback?: (error: Error | null, client?: pg.Client) => void,
    ): Promise<pg.Client> | void {
      if (callback) {
        super.connect((error: Error | null) => callback(error ? markDatabaseError(error) : null, this));
        return;
      }
      return super.connect().catch((error: unknown) => {
        throw markDatabaseError(error);
      });
    }
  };
}

type Query = (...args: unknown[]) => unknown;

/**
 * Ends `client` as soon as one of its statements fails with a FATAL error: PostgreSQL ends the
 * session after a FATAL (a terminated backend, 57P01; a shutdown), but the statement rejects
 * before node-postgres has read the socket's close, and the pool takes back a client released
 * in between as healthy. It then lent that dead connection to the next request, which failed too
 * (a 503 after one terminated backend: archive-failures, under load). Ended here, before the
 * caller's own handler releases it, the pool discards it and the next checkout opens a fresh one.
 */
function endOnFatal(client: pg.Client): void {
  const query = client.query.bind(client) as Query;
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise)
      result.catch((error: unknown) => {
        if ((error as { severity?: unknown } | null)?.severity === 'FATAL') client.end().catch(() => {});
      });
    return result;
  };
}

/** A pool on `connectionString` with our int8 parsing, search path and deadline, and the Kysely on it. */
function openPool(
  connectionString: string,
  schema: string,
  settings: { size: number; statementTimeoutMs: number },
  reportLoss: (error: Error) => void,
) {
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString,
    max: settings.size,
    types,
    Client: storeConnection(reportLoss),
    // Prepared statements (named-statements.ts) are planned for each run's values all the same: a
    // generic plan of a keyset page over the month partitions of data_records scans far more
    // than a plan pruned to the values (issue 44: a 5-year read took 3.5x as long).
    // Every statement has a deadline (a request's statements are pages and batches, far below
    // it); the longer jobs lift it for themselves (liftStatementDeadline).
    options:
      `-c search_path=${schema} -c plan_cache_mode=force_custom_plan` +
      ` -c statement_timeout=${Math.round(settings.statementTimeoutMs)}`,
    connectionTimeoutMillis: 10_000,
  });
  // An idle connection's error comes here too (pg-pool re-emits it); its own listener reported it.
  pool.on('error', () => {});
  return { pool, db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) };
}

async function openPostgres(options: {
  connectionString: string;
  schema: string;
  poolSize: number | undefined;
  statementTimeoutMs: number;
  log: Logger | undefined;
  readUrl: string | undefined;
  connectLater: boolean;
  embedded: Store['embedded'];
}): Promise<Store> {
  const { connectionString, schema, log, readUrl } = options;
  const pool = { size: options.poolSize ?? 10, statementTimeoutMs: options.statementTimeoutMs };
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  const report = faultReporter(log, { source: 'pool', message: CONNECTION_LOST });
  // A store that is closing loses its connections on purpose (an embedded server stops after it).
  let closing = false;
  const reportLoss = (error: Error) => {
    if (!closing) report(error);
  };
  const { db } = openPool(connectionString, schema, pool, reportLoss);
  if (!options.connectLater) await prepareSchema(db, schema);
  // The replica's pool is opened lazily by pg (no connection until the first routed read).
  const readDb = readUrl ? openPool(readUrl, schema, pool, reportLoss).db : db;
  // Every topic on one listening connection, opened by the first `listen`.
  const changes = listenOnPostgres({ connectionString, log });
  return {
    db,
    readDb,
    postgres: { connectionString, schema },
    embedded: options.embedded,
    listen(topic, handlers) {
      changes.listen(channelOf(topic, schema), handlers);
    },
    async close() {
      closing = true;
      await changes.close();
      if (readDb !== db) await readDb.destroy();
      await db.destroy();
    },
  };
}
