import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../../core/config.ts';
import type { AppContext } from '../context.ts';
import { createLogger } from '../../core/log.ts';
import { claimForServer } from '../data-dir-ownership.ts';
import { type Role, type Runtime, startRuntime } from '../runtime.ts';
import { tracingSettings } from '../../core/tracing-settings.ts';
import { startTracing } from '../tracing.ts';
import { SERVE_USAGE } from './help.ts';
import { checkPortFree, portProblem } from './listen-port.ts';
import { parseArgsProblem, UsageError } from './output.ts';

const ROLES: Role[] = ['api', 'worker', 'all'];

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
export function parseServeArgs(args: string[]): { role: Role } {
  let role: string;
  try {
    role = parseArgs({ args, options: { role: { type: 'string', default: 'all' } } }).values.role;
  } catch (error) {
    throw parseArgsProblem(error, SERVE_USAGE) ?? error;
  }
  if (!ROLES.includes(role as Role))
    throw new UsageError(`--role must be one of ${ROLES.join(', ')}, not "${role}"\n${SERVE_USAGE}`);
  return { role: role as Role };
}

export async function serveCommand(config: Config, { role }: { role: Role }) {
  const log = createLogger(config.logLevel, undefined, config.logFormat);
  const started = Date.now();
  // A taken port is said before the data directory and the store are set up, which takes a while.
  if (role !== 'worker') await checkPortFree(config.host, config.port);
  // Embedded storage's server is this process's to run while it runs; CLI commands connect to it
  // as clients (the lock says a service holds it). PostgreSQL is shared by design: no lock.
  const lock = config.databaseUrl ? undefined : await claimForServer(config.dataDir);
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
    try {
      await runtime.stop();
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
    runtime = await startRuntime(config, role, log, {
      signal: starting.signal,
      beforeServing: async (ctx) => {
        if (role !== 'worker' && !config.databaseUrl) await bootstrapSandboxDeveloper(ctx, config);
      },
    });
  } catch (error) {
    lock?.release();
    if (starting.signal.aborted) process.exit(0);
    throw portProblem(error, config.host, config.port) ?? error;
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
