import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { openStore } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

/**
 * The PostgreSQL the tests run on, and the databases they get there.
 *
 * `testDatabaseUrl()` alone decides which server: DATABASE_URL when set, else the machine's own
 * server at 127.0.0.1:5432 (database `test`, created when missing). When neither answers, store
 * tests cannot run: `databaseSkipReason()` says why (the test runner, scripts/test.ts, then runs
 * only the files that need no store), and `testDatabaseUrl()` throws that reason at once rather
 * than letting a test wait on a connection. (When the embedded PostgreSQL server lands, starting
 * it belongs in `resolveServer` below, as the last choice.)
 *
 * Every test service gets a database of its own, copied from a migrated template (`CREATE
 * DATABASE … TEMPLATE`), so no test file migrates and none sees another's rows, jobs or notices.
 * The template is made once per run by test/global-setup.ts; a file run on its own makes one for
 * its process. Every name starts with the run's id (`tt_<host>_<pid>_<time>`), so the run's
 * teardown drops all of it, and a later run drops what a killed run left (its process is gone).
 */

const LOCAL_SERVER = 'postgres://postgres@127.0.0.1:5432/test';
const CONNECT_TIMEOUT_MS = 3_000;

/** Set by test/global-setup.ts for every test file of a run (children inherit them). */
const RUN_ENV = 'TRIBUTARY_TEST_RUN';
const TEMPLATE_ENV = 'TRIBUTARY_TEST_TEMPLATE';

type Resolution = { url: string } | { skip: string };
let resolution: Promise<Resolution> | undefined;

async function answers(url: string): Promise<string | true> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The machine's server without its `test` database yet: created (as .ci/run used to). */
async function createLocalTestDatabase(): Promise<void> {
  await withClient(withDatabase(LOCAL_SERVER, 'postgres'), async (client) => {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'test'");
    if (!rowCount) await client.query('CREATE DATABASE test');
  });
}

async function resolveServer(): Promise<Resolution> {
  const given = process.env.DATABASE_URL;
  if (given) {
    const outcome = await answers(given);
    return outcome === true
      ? { url: given }
      : { skip: `the PostgreSQL at DATABASE_URL does not answer (${outcome})` };
  }
  let outcome = await answers(LOCAL_SERVER);
  if (outcome !== true && /database "test" does not exist/.test(outcome)) {
    await createLocalTestDatabase().catch(() => {});
    outcome = await answers(LOCAL_SERVER);
  }
  if (outcome === true) {
    // Files and children that reach the server themselves (scratch databases, a second process
    // on a schema of its own) read it where they always have.
    process.env.DATABASE_URL = LOCAL_SERVER;
    return { url: LOCAL_SERVER };
  }
  return {
    skip:
      `no PostgreSQL for the store tests: DATABASE_URL is not set and 127.0.0.1:5432 does not answer ` +
      `(${outcome}); start PostgreSQL or set DATABASE_URL`,
  };
}

/** Why store tests cannot run here, or `false` when they can (bounded: never hangs). */
export async function databaseSkipReason(): Promise<string | false> {
  resolution ??= resolveServer();
  const resolved = await resolution;
  return 'skip' in resolved ? resolved.skip : false;
}

/** The server (and base database) the tests use; throws the skip reason when there is none. */
export async function testDatabaseUrl(): Promise<string> {
  resolution ??= resolveServer();
  const resolved = await resolution;
  if ('skip' in resolved) throw new Error(resolved.skip);
  return resolved.url;
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs `work` on a client of its own, connected to `connectionString` and always ended after. */
export async function withClient<T>(
  connectionString: string,
  work: (client: pg.Client) => Promise<T>,
  connectTimeoutMs = 10_000,
): Promise<T> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: connectTimeoutMs });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

// ---- run ids and stale databases ----

const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 4);
const RUN_NAME = /^tt_([0-9a-f]{4})_([0-9a-z]+)_([0-9a-z]+)(?:_|$)/;
/** A run older than this is stale whatever its process (a server shared by several machines). */
const STALE_AFTER_MS = 24 * 3_600_000;

export function newRunId(): string {
  return `tt_${HOST}_${process.pid.toString(36)}_${Date.now().toString(36)}`;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A database some earlier run left behind: its process is gone, or it is a day old. */
export function isStale(name: string, now = Date.now()): boolean {
  const match = RUN_NAME.exec(name);
  if (!match) return false;
  const [, host, pid, time] = match;
  if (now - parseInt(time!, 36) > STALE_AFTER_MS) return true;
  return host === HOST && !processAlive(parseInt(pid!, 36));
}

/** One lock on the server for every run's dropping (pg_advisory_lock's key; any constant will do). */
const DROP_LOCK = 7_358_201;

async function dropDatabases(serverUrl: string, which: (name: string) => boolean): Promise<string[]> {
  return withClient(serverUrl, async (client) => {
    // Test processes starting together each drop what killed runs left: without the lock, two of
    // them dropped the same database at once, and the second's ALTER met a database the first had
    // already marked invalid, which PostgreSQL answers by ending the connection (the test file then
    // failed with "Connection terminated unexpectedly"). Released when this client ends.
    await client.query('SELECT pg_advisory_lock($1)', [DROP_LOCK]);
    // `datconnlimit = -2`: a database a DROP began and never finished (its process was killed),
    // which PostgreSQL marks invalid. ALTER DATABASE on one is FATAL, ending this connection; DROP
    // is the one command it takes, and it is never a template (the drop cleared that first).
    const { rows } = await client.query<{ datname: string; datistemplate: boolean; invalid: boolean }>(
      "SELECT datname, datistemplate, datconnlimit = -2 AS invalid FROM pg_database WHERE datname LIKE 'tt\\_%'",
    );
    const dropped = rows.filter((row) => which(row.datname));
    for (const { datname: name, datistemplate, invalid } of dropped) {
      // A template cannot be dropped; ours are marked so that copies may be made by any role.
      if (datistemplate && !invalid)
        await client.query(`ALTER DATABASE ${name} IS_TEMPLATE false`).catch(() => {});
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
    return dropped.map((row) => row.datname);
  });
}

/** Drops what killed runs left on the server; returns the names dropped. */
export function dropStaleDatabases(serverUrl: string): Promise<string[]> {
  return dropDatabases(serverUrl, (name) => isStale(name));
}

/** Drops every database of run `runId` (its template and whatever a test failed to drop). */
export function dropRunDatabases(serverUrl: string, runId: string): Promise<string[]> {
  return dropDatabases(serverUrl, (name) => name === runId || name.startsWith(`${runId}_`));
}

// ---- the template and the databases copied from it ----

/**
 * Makes `name`, migrates it to the latest schema and installs the job queue's tables and queues
 * there (test/helpers/template-job-queue.ts); marks it a template.
 */
export async function createTemplate(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const store = await openStore({
    databaseUrl: withDatabase(serverUrl, name),
    dataDir: undefined,
    poolSize: 1,
  });
  try {
    await migrateToLatest(store.db, 'public');
    // Loaded here only: the service's modules, which a file that never makes a template skips.
    const { installJobQueue } = await import('./template-job-queue.ts');
    await installJobQueue(store);
  } finally {
    await store.close();
  }
  await withClient(serverUrl, (client) => client.query(`ALTER DATABASE ${name} IS_TEMPLATE true`));
}

let ownTemplate: Promise<string> | undefined;

/** This run's id: the test runner's, or this process's own when a file runs alone. */
function runId(): string {
  process.env[RUN_ENV] ??= newRunId();
  return process.env[RUN_ENV];
}

/** The run's migrated template: the global setup's, or one made now for this process. */
async function template(serverUrl: string): Promise<string> {
  const given = process.env[TEMPLATE_ENV];
  if (given) return given;
  ownTemplate ??= (async () => {
    await dropStaleDatabases(serverUrl);
    const name = `${runId()}_template`;
    await createTemplate(serverUrl, name);
    return name;
  })();
  return ownTemplate;
}

export type TestDatabase = {
  name: string;
  /** Its connection string. */
  url: string;
  drop(): Promise<void>;
};

/**
 * A database of the caller's own on the test server: `migrated` (the default) copies the run's
 * template, so the store is at the latest migration already; `empty` is a fresh database, for
 * tests of migrating itself or of a process that migrates on start.
 */
export async function createTestDatabase(kind: 'migrated' | 'empty' = 'migrated'): Promise<TestDatabase> {
  const serverUrl = await testDatabaseUrl();
  const name = `${runId()}_${randomBytes(5).toString('hex')}`;
  const source = kind === 'migrated' ? ` TEMPLATE ${await template(serverUrl)}` : '';
  await withClient(serverUrl, async (client) => {
    await client.query(`CREATE DATABASE ${name}${source}`);
    // Nothing here must survive a crash of the server; commits need not wait for the disk.
    await client.query(`ALTER DATABASE ${name} SET synchronous_commit TO off`);
  });
  return {
    name,
    url: withDatabase(serverUrl, name),
    drop: () =>
      withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => {},
      ),
  };
}

export const TEST_RUN_ENV = { run: RUN_ENV, template: TEMPLATE_ENV } as const;
