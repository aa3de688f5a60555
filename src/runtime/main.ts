import { executeCommand, executeLocalCommand, LOCAL_COMMANDS, STORE_COMMANDS } from './cli/commands.ts';
import { requestedHelp, TOP_USAGE } from './cli/help.ts';
import { UsageError } from './cli/output.ts';
import { parseServeArgs, serveCommand } from './cli/serve.ts';
import { PortUnavailable } from './cli/listen-port.ts';
import { restoreCommand } from './cli/restore.ts';
import { ConfigError, type Config } from '../core/config.ts';
import { loadRuntimeConfig } from './settings.ts';
import { AppError } from '../core/errors.ts';
import { claimForCommand, DataDirInUse } from './data-dir-ownership.ts';
import { ensurePrivateDirectory } from '../core/private-files.ts';
import { EmbeddedPostgresUnavailable } from '../store/embedded/binaries.ts';

/**
 * A store command on PostgreSQL opens its own connection: every process shares the database. On
 * embedded storage it runs the embedded server itself while no service runs (holding the data
 * directory meanwhile), and otherwise connects to the running service's server like any client.
 */
async function runStoreCommand(name: string, config: Config, args: string[]): Promise<number> {
  if (config.databaseUrl) return executeCommand(name, config, args);
  const ownership = await claimForCommand(config.dataDir, name);
  if (ownership.kind === 'server')
    return executeCommand(
      name,
      { ...config, embeddedPostgres: { ...config.embeddedPostgres, attach: true } },
      args,
    );
  try {
    return await executeCommand(name, config, args);
  } finally {
    ownership.lock.release();
  }
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  // Help is answered before the configuration is read: it must work whatever the environment.
  const help = requestedHelp(argv);
  if (help !== null) {
    process.stdout.write(`${help}\n`);
    return 0;
  }
  if (!name || (name !== 'serve' && name !== 'restore' && !STORE_COMMANDS[name] && !LOCAL_COMMANDS[name])) {
    process.stderr.write(`tributary: unknown command "${name}"\n${TOP_USAGE}\n`);
    return 2;
  }
  try {
    // A bad command line is refused before the configuration is read or DATA_DIR is touched.
    const serveOptions = name === 'serve' ? parseServeArgs(args) : undefined;
    const config = loadRuntimeConfig(process.env);
    // Embedded storage's lock, key and cluster all live in DATA_DIR: it exists (0700) before any of
    // them is touched, whether or not a key file had to be generated into it.
    if (!config.databaseUrl) ensurePrivateDirectory(config.dataDir);
    if (LOCAL_COMMANDS[name]) return await executeLocalCommand(name, config, args);
    // Restore replaces the store under DATA_DIR: never sent to a server, which would be using it.
    if (name === 'restore') {
      await restoreCommand(config, args);
      return 0;
    }
    if (!serveOptions) return await runStoreCommand(name, config, args);
    await serveCommand(config, serveOptions);
    return 0;
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      error instanceof AppError ||
      error instanceof DataDirInUse ||
      error instanceof PortUnavailable ||
      error instanceof EmbeddedPostgresUnavailable
    ) {
      process.stderr.write(`tributary: ${error.message}\n`);
      return error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
    }
    throw error;
  }
}
