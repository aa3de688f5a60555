import type { Logger } from 'pino';
import { buildApp } from '../http/app.ts';
import { defineJobs, scheduleRecurringJobs } from './workers/index.ts';
import type { Config } from '../core/config.ts';
import { type AppContext, createContext } from './context.ts';
import type { App } from '../http/app-type.ts';
import { createJobQueue } from '../jobs/queue.ts';
import { createLogger } from '../core/log.ts';
import { exposedMode } from '../core/private-files.ts';
import { openStore, type Store } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';

export type Role = 'api' | 'worker' | 'all';

export type Runtime = {
  ctx: AppContext;
  app: App | undefined;
  /** Stops accepting requests, finishes in-flight requests and jobs, closes the store. */
  stop(): Promise<void>;
};

/** Opens the store and applies migrations: what every command needs first. */
export async function openMigratedStore(config: Config, log: Logger): Promise<Store> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    readUrl: config.databaseReadUrl,
    dataDir: config.dataDir,
    schema: config.databaseSchema,
    log,
  });
  const applied = await migrateToLatest(store.db, store.postgres?.schema);
  if (applied.length > 0) log.info({ migrations: applied }, 'applied migrations');
  return store;
}

/** A context without workers or HTTP, for CLI commands that only touch the store. */
export async function openContext(config: Config): Promise<{ ctx: AppContext; close(): Promise<void> }> {
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const store = await openMigratedStore(config, log);
  const jobs = createJobQueue(store, log);
  const ctx = createContext({ config, store, jobs, log });
  defineJobs(ctx);
  await jobs.start({ work: false });
  return {
    ctx,
    async close() {
      await jobs.stop();
      await store.close();
    },
  };
}

/** A data directory others can enter exposes health data and key hashes: say so at start-up. */
function warnIfDataDirExposed(dataDir: string, log: Logger) {
  const mode = exposedMode(dataDir);
  if (mode)
    log.warn(
      { dataDir, mode },
      `DATA_DIR is accessible to other users (mode ${mode}); restrict it: chmod -R go-rwx ${dataDir}`,
    );
}

export async function startRuntime(
  config: Config,
  role: Role,
  log = createLogger(config.logLevel),
  beforeListen?: (ctx: AppContext) => Promise<void>,
): Promise<Runtime> {
  if (!config.databaseUrl) warnIfDataDirExposed(config.dataDir, log);
  const store = await openMigratedStore(config, log);
  const jobs = createJobQueue(store, log);
  const ctx = createContext({ config, store, jobs, log });
  defineJobs(ctx);
  // The queues exist before anything can send to them (a send to a missing queue fails); the
  // handlers start once the process serves, so their first fetches do not hold up readiness.
  await jobs.start({ work: false });
  if (role !== 'api') await scheduleRecurringJobs(ctx);

  await beforeListen?.(ctx);
  let app: App | undefined;
  if (role !== 'worker') {
    app = await buildApp(ctx);
    await app.listen({ port: config.port, host: config.host });
  }
  if (role !== 'api') await jobs.work();

  let stopping: Promise<void> | undefined;
  return {
    ctx,
    app,
    stop() {
      stopping ??= (async () => {
        await app?.close();
        await jobs.stop();
        await store.close();
      })();
      return stopping;
    },
  };
}
