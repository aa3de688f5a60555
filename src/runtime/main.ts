import { asksForHelp } from './cli/help-request.ts';
import { UsageError } from './cli/output.ts';
import { parseServeArgs } from './cli/serve.ts';
import { PortUnavailable } from './cli/listen-port.ts';
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
  const { executeCommand } = await import('./cli/commands.ts');
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
  const help = asksForHelp(argv) ? (await import('./cli/help.ts')).requestedHelp(argv) : null;
  if (help !== null) {
    process.stdout.write(`${help}\n`);
    return 0;
  }
  // `serve` loads only what serving needs, and only once it has set its database starting
  // (cli/serve.ts); every other command loads the commands' modules.
  const commands = name === 'serve' || name === 'restore' ? undefined : await import('./cli/commands.ts');
  if (!name || (commands && !commands.STORE_COMMANDS[name] && !commands.LOCAL_COMMANDS[name])) {
    const { TOP_USAGE } = await import('./cli/help.ts');
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
    if (commands?.LOCAL_COMMANDS[name]) return await commands.executeLocalCommand(name, config, args);
    // Restore replaces the store under DATA_DIR: never sent to a server, which would be using it.
    if (name === 'restore') {
      const { restoreCommand } = await import('./cli/restore.ts');
      await restoreCommand(config, args);
      return 0;
    }
    if (!serveOptions) return await runStoreCommand(name, config, args);
    const { serveCommand } = await import('./cli/serve.ts');
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
