import type { Logger } from 'pino';
import { buildApp } from '../http/app.ts';
import { defineJobs, scheduleRecurringJobs } from './workers/index.ts';
import type { Config } from '../core/config.ts';
import { type AppContext, createContext } from './context.ts';
import type { App } from '../http/app-type.ts';
import { createJobQueue } from '../jobs/queue.ts';
import { jobSettings } from '../jobs/settings.ts';
import { createLogger } from '../core/log.ts';
import { exposedMode } from '../core/private-files.ts';
import { openStore, type Store } from '../store/db.ts';
import { migrateToLatest, migrationState } from '../store/migrate.ts';
import { databaseNotThereYet, waitForDatabase } from '../store/startup-wait.ts';
import { verifyEncryptionKey } from '../store/key-fingerprint.ts';
import type { StartupStage } from '../http/startup-gate.ts';
import type { EmbeddedPostgres } from '../store/embedded/server.ts';
import { sweepAbandonedSpools } from '../provider-kit/piece-spool.ts';

export type Role = 'api' | 'worker' | 'all';

export type Runtime = {
  ctx: AppContext;
  app: App | undefined;
  /** Stops accepting requests, finishes in-flight requests and jobs, closes the store. */
  stop(): Promise<void>;
};

/** The store options of `config` (embedded storage: start its server, or attach to a running one). */
function storeOptions(config: Config, log: Logger, starting?: Promise<EmbeddedPostgres>) {
  return {
    databaseUrl: config.databaseUrl,
    readUrl: config.databaseReadUrl,
    dataDir: config.dataDir,
    embedded: {
      mode: config.embeddedPostgres.attach ? ('attach' as const) : ('start' as const),
      port: config.embeddedPostgres.port,
      starting,
    },
    schema: config.databaseSchema,
    statementTimeoutMs: config.databaseStatementTimeoutSeconds * 1000,
    log,
  };
}

/**
 * Opens the store and applies migrations: what every command needs first. `applied` names the
 * migrations this opening applied (for `tributary migrate` to report).
 */
export async function openMigratedStore(
  config: Config,
  log: Logger,
): Promise<{ store: Store; applied: string[] }> {
  const store = await openStore(storeOptions(config, log));
  try {
    const applied = await migrateToLatest(store.db, store.postgres.schema);
    if (applied.length > 0) log.info({ migrations: applied }, 'applied migrations');
    await verifyEncryptionKey(store.db, config.encryptionKey);
    return { store, applied };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * A context without workers or HTTP, for CLI commands that only touch the store; `applied` names
 * the migrations opening it applied.
 */
export async function openContext(
  config: Config,
): Promise<{ ctx: AppContext; applied: string[]; close(): Promise<void> }> {
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const { store, applied } = await openMigratedStore(config, log);
  const jobs = createJobQueue(store, log, config.settings.get(jobSettings));
  const ctx = createContext({ config, store, jobs, log });
  defineJobs(ctx);
  try {
    // A command sees the providers as the server does: with the operator's stored settings.
    await ctx.providerSettings.reload();
    await jobs.start({ work: false });
  } catch (error) {
    await jobs.stop().catch(() => {});
    await store.close();
    throw error;
  }
  return {
    ctx,
    applied,
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

/** The start-up stage of a serving process, read by /ready and the start-up gate. */
function startupProgress(log: Logger) {
  let stage: StartupStage = 'waiting_for_database';
  return {
    stage: () => stage,
    enter(next: StartupStage) {
      stage = next;
      log.debug({ stage }, 'start-up stage');
    },
  };
}

/**
 * Migrates once the database is there. A database that goes away again before the migrations
 * ran (a restart while the cluster comes up) sends the process back to waiting, not out.
 */
async function migrateWhenReachable(
  store: Store,
  log: Logger,
  signal: AbortSignal,
  progress: ReturnType<typeof startupProgress>,
): Promise<void> {
  for (;;) {
    progress.enter('waiting_for_database');
    await waitForDatabase(store, { log, signal });
    progress.enter('migrating');
    try {
      const state = await migrationState(store.db, store.postgres.schema);
      if (runsBehindTheDatabase(log, state)) return;
      // A later start: everything applied already, so the migrator (and its lock) is not needed.
      if (state.pending.length === 0) return;
      const applied = await migrateToLatest(store.db, store.postgres.schema);
      if (applied.length > 0) log.info({ migrations: applied }, 'applied migrations');
      return;
    } catch (error) {
      if (!databaseNotThereYet(error)) throw error;
      log.warn({ err: error }, 'the database went away during migrations; waiting for it again');
    }
  }
}

/**
 * A database migrated by a newer release than this one: the previous release's processes keep
 * running against it (releases migrate expand-first: they add, and remove only what no earlier
 * supported release uses; docs/operating.md), so this process starts without migrating. A
 * database that both lacks migrations this code has and holds ones it does not know came from
 * another line of releases: that is refused.
 */
function runsBehindTheDatabase(
  log: Logger,
  { ahead, pending }: { ahead: string[]; pending: string[] },
): boolean {
  if (ahead.length === 0) return false;
  if (pending.length > 0)
    throw new Error(
      `the database has migrations this release does not know (${ahead.join(', ')}) and lacks ones it ` +
        `has (${pending.join(', ')}): it was migrated by another line of releases; not starting`,
    );
  log.warn(
    { newerMigrations: ahead },
    'the database was migrated by a newer release; this release runs against it without migrating',
  );
  return true;
}

/**
 * What a process that died mid-job (killed, out of memory) left in the temporary folder: a
 * worker removes it before it takes work, so a crash loop cannot fill the disk. Never fatal.
 */
async function sweepLeftovers(log: Logger): Promise<void> {
  try {
    const removed = await sweepAbandonedSpools();
    if (removed.length > 0)
      log.info({ folders: removed }, 'removed the temporary folders of processes that ended mid-job');
  } catch (error) {
    log.warn({ err: error }, 'could not sweep the temporary folders left by ended processes');
  }
}

export type StartOptions = {
  /** Runs once the store is migrated and the queues exist, before the process serves. */
  beforeServing?: (ctx: AppContext) => Promise<void>;
  /** Aborting it ends a start-up still waiting for the database (the process is stopping). */
  signal?: AbortSignal;
  /** Embedded storage: its server, already set starting by the caller (taken over, stopped on stop). */
  embeddedServer?: Promise<EmbeddedPostgres>;
  /** A listening socket handed over by the parent process (`serve --listen-stdin`), used instead of binding PORT. */
  listenFd?: number | undefined;
};

/**
 * Starts a process of `role`. The API listens at once: /health answers and /ready reports
 * not-ready (and why) while the process waits for the database with backoff, migrates and starts
 * the job queue; every other route answers 503 until then. It never gives up waiting for a
 * database that is merely not there yet; any other failure rejects (and nothing is left open).
 */
export async function startRuntime(
  config: Config,
  role: Role,
  log = createLogger(config.logLevel),
  options: StartOptions = {},
): Promise<Runtime> {
  if (!config.databaseUrl) warnIfDataDirExposed(config.dataDir, log);
  const store = await openStore({
    ...storeOptions(config, log, options.embeddedServer),
    connectLater: true,
  });
  const jobs = createJobQueue(store, log, config.settings.get(jobSettings));
  const ctx = createContext({ config, store, jobs, log });
  defineJobs(ctx);
  const progress = startupProgress(log);
  const stopWaiting = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stopWaiting.signal]) : stopWaiting.signal;

  let app: App | undefined;
  let queueStarted = false;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      stopWaiting.abort(new Error('stopped while starting'));
      await app?.close();
      if (queueStarted) await jobs.stop();
      await store.close();
    })();
    return stopping;
  };

  // The HTTP side (building the app: CPU in this process) and the database side (migrations, the
  // key check, the queues: mostly waiting on the database) run side by side. Each waits for the
  // other to settle before a failure is thrown, so nothing is left half-open; a listener that
  // cannot listen ends the database side's wait.
  const listening =
    role === 'worker'
      ? Promise.resolve()
      : (async () => {
          app = await buildApp(ctx, progress);
          // Fastify hands its options to Node's server.listen, which listens on a handed-over `fd`
          // (Fastify's types leave it out).
          const handedOver = { fd: options.listenFd, host: config.host };
          await app.listen(
            options.listenFd === undefined ? { port: config.port, host: config.host } : handedOver,
          );
        })();
  listening.catch((error: unknown) => stopWaiting.abort(error));
  const prepared = (async () => {
    await migrateWhenReachable(store, log, signal, progress);
    signal.throwIfAborted();
    // Before anything opens a sealed secret (the stored provider settings are next).
    await verifyEncryptionKey(store.db, config.encryptionKey);
    progress.enter('starting');
    // Two independent sequences of round trips, side by side (each settles before a failure is
    // thrown, so nothing is left half-started): the operator's stored provider settings (the
    // environment wins) before any request is served, and the queues, which exist before
    // anything can send to them (a send to a missing queue fails); the handlers start once the
    // process serves, so their first fetches do not hold up readiness.
    queueStarted = true;
    const [settings, queues] = await Promise.allSettled([
      ctx.providerSettings.start(),
      jobs.start({ work: false }),
    ]);
    if (settings.status === 'rejected') throw settings.reason;
    if (queues.status === 'rejected') throw queues.reason;
  })();

  try {
    const [http, database] = await Promise.allSettled([listening, prepared]);
    // The listener's failure first: a taken port is what the operator must hear about.
    if (http.status === 'rejected') throw http.reason;
    if (database.status === 'rejected') throw database.reason;
    signal.throwIfAborted();
    await options.beforeServing?.(ctx);
    progress.enter('serving');
    if (role !== 'api') {
      await sweepLeftovers(log);
      await jobs.work();
      // Recurring jobs are kept in the database: registering them again (a later start finds them
      // unchanged and writes nothing) need not hold up readiness.
      await scheduleRecurringJobs(ctx);
    }
  } catch (error) {
    await stop().catch((closing: unknown) =>
      log.warn({ err: closing }, 'closing after a failed start failed'),
    );
    throw error;
  }
  return { ctx, app, stop };
}
