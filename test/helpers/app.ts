import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { buildApp } from '../../src/http/app.ts';
import { defineJobs, scheduleRecurringJobs } from '../../src/runtime/workers/index.ts';
import { type Config, loadConfig } from '../../src/core/config.ts';
import { type Clock } from '../../src/core/clock.ts';
import { type AppContext, createContext } from '../../src/runtime/context.ts';
import type { App } from '../../src/http/app-type.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/core/log.ts';
import type { Environment } from '../../src/features/developers/tables.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { jobSettings } from '../../src/jobs/settings.ts';
import { createDataService } from '../../src/features/data/service.ts';
import { TEST_JOB_QUEUE_POOL_SIZE } from './job-queue-settings.ts';

/**
 * A whole Tributary (store, queue, workers, HTTP app) for a test, on PostgreSQL (the server
 * test/helpers/database.ts chooses), in a database of its own copied from the run's migrated
 * template and dropped afterwards, so tests never see each other's rows, jobs or notices. With
 * `database`, a second service joins another's database, as a second process of one deployment
 * does. With DATABASE_URL in `env` (another cluster), a schema of its own there, migrated.
 */
export type TestService = {
  app: App;
  ctx: AppContext;
  config: Config;
  /** The store the service runs on (a test can listen to its change feed like a second process). */
  store: Store;
  /** Its database (pass it as `database` to start another process of the same deployment). */
  database: TestDatabase | undefined;
  close(): Promise<void>;
};

export type TestServiceOptions = {
  env?: Record<string, string>;
  clock?: Clock;
  /** Start queue workers (default true). */
  work?: boolean;
  /** Where log lines go (with LOG_LEVEL in `env`), for tests that assert on what is logged. */
  logTo?: DestinationStream;
  /** Another service's database to share (that service drops it when it closes). */
  database?: TestDatabase;
  /**
   * The default engine instead: an embedded PostgreSQL started in the service's own data
   * directory (benches measure what an operator runs without DATABASE_URL).
   */
  embedded?: boolean;
};

/** The store's pool in a test service (10 in production). */
const TEST_STORE_POOL_SIZE = 5;

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tributary-test-'));
  // A cluster of the test's own (DATABASE_URL in env): a schema of its own there, migrated here.
  const otherCluster = options.env?.DATABASE_URL;
  const embedded = options.embedded ?? false;
  const owned = options.database || otherCluster || embedded ? undefined : await createTestDatabase();
  const database = options.database ?? owned;
  const config = loadConfig({
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PUBLIC_URL: 'http://127.0.0.1:8080',
    JOB_QUEUE_POOL_SIZE: String(TEST_JOB_QUEUE_POOL_SIZE),
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  });
  const schema = otherCluster
    ? (options.env?.DATABASE_SCHEMA ?? `t_${randomBytes(6).toString('hex')}`)
    : 'public';
  const store = await openStore({
    databaseUrl: embedded ? undefined : config.databaseUrl,
    readUrl: config.databaseReadUrl,
    dataDir: embedded ? dataDir : undefined,
    schema,
    poolSize: TEST_STORE_POOL_SIZE,
    statementTimeoutMs: config.databaseStatementTimeoutSeconds * 1000,
  });
  // A no-op on a copy of the template; it migrates a schema on another cluster.
  await migrateToLatest(store.db, schema);
  const log = createLogger(config.logLevel, options.logTo);
  const jobs = createJobQueue(store, log, config.settings.get(jobSettings));
  const ctx = createContext({ config, store, jobs, log, ...(options.clock ? { clock: options.clock } : {}) });
  defineJobs(ctx);
  await ctx.providerSettings.start();
  const work = options.work ?? true;
  await jobs.start({ work });
  if (work) await scheduleRecurringJobs(ctx);
  const app = await buildApp(ctx);

  return {
    app,
    ctx,
    config,
    store,
    database,
    async close() {
      await app.close();
      await jobs.stop(5_000);
      await store.close();
      if (owned) await owned.drop();
      else if (otherCluster && config.databaseUrl) await dropSchemas(config.databaseUrl, schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function dropSchemas(databaseUrl: string, schema: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A data service of its own on a running service's store, without the enrichers (scores) the app
 * registered on its own: writes through it cost what a write without them costs.
 */
export function bareDataService(ctx: AppContext) {
  return createDataService({
    db: ctx.db,
    jobs: ctx.jobs,
    clock: ctx.clock,
    log: ctx.log,
    config: ctx.config,
    providers: ctx.providers,
    secretBox: ctx.secretBox,
    webhooks: ctx.webhooks,
  });
}

export type TestDeveloper = {
  devId: string;
  apiKey: string;
  webhookSecret: string;
  headers: Record<string, string>;
};

export async function createDeveloper(
  ctx: AppContext,
  options: { environment?: Environment; orderApi?: boolean; name?: string } = {},
): Promise<TestDeveloper> {
  const created = await ctx.developers.create({
    name: options.name ?? 'Test developer',
    environment: options.environment ?? 'sandbox',
    orderApiAccess: options.orderApi ?? false,
  });
  return {
    devId: created.developer.id,
    apiKey: created.apiKey,
    webhookSecret: created.webhookSecret,
    headers: { 'dev-id': created.developer.id, 'x-api-key': created.apiKey },
  };
}

/** Asserts-friendly view of a problem+json response. */
export function problemOf(response: { headers: Record<string, unknown>; body: string; statusCode: number }) {
  return {
    status: response.statusCode,
    contentType: String(response.headers['content-type'] ?? ''),
    body: JSON.parse(response.body) as {
      type: string;
      title: string;
      status: number;
      detail: string;
      instance: string;
    } & Record<string, unknown>,
  };
}
