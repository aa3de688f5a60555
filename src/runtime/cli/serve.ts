import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import type { AppContext } from '../context.ts';
import { createLogger } from '../../core/log.ts';
import { claimForServer } from '../data-dir-ownership.ts';
import type { Role, Runtime } from '../runtime.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../store/embedded/server.ts';
import { tracingSettings } from '../../core/tracing-settings.ts';
import { gcNow } from '../../core/gc-handle.ts';
import { collectAsReadsStream } from '../../features/data/read-collection.ts';
import { memoryTuningSettings } from '../memory-settings.ts';
import { startTracing } from '../tracing.ts';
import { checkPortFree, portProblem } from './listen-port.ts';
import { parseArgsProblem, UsageError } from './output.ts';

const ROLES: Role[] = ['api', 'worker', 'all'];

export const SERVE_USAGE = `usage:
  tributary serve [--role api|worker|all] [--listen-stdin]

Runs the HTTP API (api), the queue workers (worker) or both (all, the default). With embedded
storage and no developer yet, creates a sandbox developer and prints its credentials (also saved,
0600, in DATA_DIR/sandbox-credentials.json). Logs go to stdout: JSON, or one readable line each on
a terminal (LOG_FORMAT). SIGTERM or SIGINT finishes in-flight requests and jobs, then exits 0.

  --listen-stdin    serve HTTP on the listening TCP socket the parent process gave as standard
                    input (as inetd, systemd's StandardInput=socket or a test harness hand it over)
                    instead of binding HOST:PORT; PORT and PUBLIC_URL should name its address.`;

export type ServeOptions = { role: Role; listenFd?: number | undefined };

/** Standard input: the one descriptor besides stdout and stderr that the launcher's re-exec keeps. */
const STDIN_FD = 0;

/**
 * A laptop demo must be usable the moment it starts: on embedded storage with no developers
 * yet, create a sandbox developer and say how to use it (also kept, 0600, in the data dir).
 */
async function bootstrapSandboxDeveloper(ctx: AppContext, config: Config) {
  const file = join(config.dataDir, 'sandbox-credentials.json');
  if ((await ctx.developers.count()) > 0) {
    if (existsSync(file)) process.stdout.write(`Sandbox developer credentials: ${file}\n`);
    return;
  }
  const created = await ctx.developers.create({
    name: 'Sandbox developer',
    environment: 'sandbox',
    orderApiAccess: true,
  });
  const credentials = {
    dev_id: created.developer.id,
    api_key: created.apiKey,
    environment: created.developer.environment,
    webhook_secret: created.webhookSecret,
  };
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  process.stdout.write(
    [
      '',
      `Created a sandbox developer (also saved to ${file}):`,
      `  dev-id:          ${credentials.dev_id}`,
      `  x-api-key:       ${credentials.api_key}`,
      `  webhook secret:  ${credentials.webhook_secret}`,
      '',
      'Try it:',
      `  curl -H 'dev-id: ${credentials.dev_id}' -H 'x-api-key: ${credentials.api_key}' ${config.publicUrl}/v2/subscriptions`,
      '',
    ].join('\n'),
  );
}

/** `serve`'s command line: read before any configuration or storage is touched. */
export function parseServeArgs(args: string[]): ServeOptions {
  let values: { role: string; 'listen-stdin'?: boolean | undefined };
  try {
    values = parseArgs({
      args,
      options: { role: { type: 'string', default: 'all' }, 'listen-stdin': { type: 'boolean' } },
    }).values;
  } catch (error) {
    throw parseArgsProblem(error, SERVE_USAGE) ?? error;
  }
  const { role } = values;
  if (!ROLES.includes(role as Role))
    throw new UsageError(`--role must be one of ${ROLES.join(', ')}, not "${role}"\n${SERVE_USAGE}`);
  return { role: role as Role, listenFd: values['listen-stdin'] ? STDIN_FD : undefined };
}

/** Whether serve sets this process's old-generation ceiling (runtime/memory-limits.js: api, all). */
const sizesItsMemory = (config: Config, role: Role) =>
  role !== 'worker' && config.settings.get(memoryTuningSettings).enabled;

/**
 * Where serve sets its ceiling, long reads ask V8 for collections as they stream (`gc` taken from
 * a new context, not from --expose-gc: core/gc-handle.ts). Its one start-up collection ran before
 * any of this was loaded: the launcher's (runtime/start-up-heap.ts). Exported for the benches
 * that start a runtime as serve does (bench/data-read.ts).
 */
export function collectAsServeDoes(config: Config, role: Role): void {
  if (!sizesItsMemory(config, role)) return;
  const collect = gcNow();
  if (!collect) return;
  collectAsReadsStream(collect);
}

export async function serveCommand(config: Config, { role, listenFd }: ServeOptions) {
  const log = createLogger(config.logLevel, undefined, config.logFormat);
  const started = Date.now();
  // A taken port is said before the data directory and the store are set up, which takes a while.
  // (A socket handed over is bound already: nothing to check.)
  if (role !== 'worker' && listenFd === undefined) await checkPortFree(config.host, config.port);
  // Embedded storage's server is this process's to run while it runs; CLI commands connect to it
  // as clients (the lock says a service holds it). PostgreSQL is shared by design: no lock.
  const lock = config.databaseUrl ? undefined : await claimForServer(config.dataDir);
  // Its server boots in processes of its own while this one loads the rest of the service (most
  // of a later start's time): the two overlap instead of following each other.
  const embeddedServer: Promise<EmbeddedPostgres> | undefined = lock
    ? startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPostgres.port, log })
    : undefined;
  // Heard when the runtime takes it over; until then a failure must not go unhandled.
  embeddedServer?.catch(() => {});
  // Before anything that makes spans; loads nothing unless an OTLP endpoint is set.
  const tracing = await startTracing(config.settings.get(tracingSettings), log);
  let runtime: Runtime | undefined;

  // Signals are heard from the start: one that arrives while the process still waits for the
  // database ends the wait and the process cleanly (an orchestrator stopping a pod that never
  // got its database).
  const starting = new AbortController();
  let signalled = false;
  const shutdown = async (signal: string) => {
    if (signalled) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    if (!runtime) {
      log.info({ signal }, 'stopping during start-up');
      starting.abort(new Error(`${signal} during start-up`));
      return;
    }
    log.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
    await stopRuntime(runtime);
  };
  const stopRuntime = async (running: Runtime) => {
    try {
      await running.stop();
      // The last spans (this shutdown's requests and jobs) are exported before exiting.
      await tracing?.shutdown();
      // Only once the store (and its embedded server) is closed may another process start it.
      lock?.release();
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    collectAsServeDoes(config, role);
    const { startRuntime } = await import('../runtime.ts');
    runtime = await startRuntime(config, role, log, {
      signal: starting.signal,
      embeddedServer,
      listenFd,
      beforeServing: async (ctx) => {
        if (role !== 'worker' && !config.databaseUrl) await bootstrapSandboxDeveloper(ctx, config);
      },
    });
  } catch (error) {
    // Stopped already when the store had taken it over (stop is idempotent); not otherwise.
    await embeddedServer?.then(
      (server) => server.stop(),
      () => {},
    );
    lock?.release();
    if (starting.signal.aborted) process.exit(0);
    throw portProblem(error, config.host, config.port) ?? error;
  }
  // A signal heard after the process began serving but before its start-up had finished (its
  // workers and schedules start after /ready) found no runtime to stop: it is stopped now.
  if (signalled) {
    log.info('shutting down: a signal arrived while start-up was finishing');
    await stopRuntime(runtime);
  }
  log.info(
    {
      role,
      storage: runtime.ctx.store.embedded ? 'embedded' : 'postgres',
      url: role === 'worker' ? undefined : config.publicUrl,
      dashboard: role === 'worker' ? undefined : `${config.publicUrl}/dashboard`,
      startupMs: Date.now() - started,
    },
    'tributary started',
  );
}
