import { setTimeout as sleep } from 'node:timers/promises';
import { AdminUnreachable, sendCommand } from './admin/client.ts';
import { executeCommand, executeLocalCommand, LOCAL_COMMANDS, STORE_COMMANDS } from './cli/commands.ts';
import { requestedHelp, TOP_USAGE } from './cli/help.ts';
import { UsageError } from './cli/output.ts';
import { parseServeArgs, serveCommand } from './cli/serve.ts';
import { PortUnavailable } from './cli/listen-port.ts';
import { backupArgumentsForServer } from './cli/backup.ts';
import { restoreCommand } from './cli/restore.ts';
import { ConfigError, type Config } from '../core/config.ts';
import { loadRuntimeConfig } from './settings.ts';
import { AppError } from '../core/errors.ts';
import { claimForCommand, DataDirInUse, staleHint } from './data-dir-ownership.ts';
import { ensurePrivateDirectory } from '../core/private-files.ts';

/** How often a command retries a server that does not answer (100 ms apart) before giving up. */
const UNREACHABLE_ATTEMPTS = 50;

/**
 * A store command on PostgreSQL opens its own connection: every process shares the database. On
 * embedded storage it needs the data directory: its own while no server runs, otherwise it is
 * sent to the server that owns it and runs there.
 */
async function runStoreCommand(name: string, config: Config, args: string[]): Promise<number> {
  if (config.databaseUrl) return executeCommand(name, config, args);
  for (let attempt = 1; ; attempt++) {
    const ownership = await claimForCommand(config.dataDir, name);
    if (ownership.kind === 'owned') {
      try {
        return await executeCommand(name, config, args);
      } finally {
        ownership.lock.release();
      }
    }
    try {
      const sent = name === 'backup' ? backupArgumentsForServer(args) : args;
      const result = await sendCommand(ownership.admin, [name, ...sent]);
      process.stdout.write(result.stdout);
      process.stderr.write(result.stderr);
      return result.exit_code;
    } catch (error) {
      if (!(error instanceof AdminUnreachable)) throw error;
      // A server shutting down stops taking commands before it lets go of the directory.
      if (attempt >= UNREACHABLE_ATTEMPTS)
        throw new DataDirInUse(
          `DATA_DIR ${config.dataDir} belongs to a running tributary server (pid ${ownership.pid}) that ` +
            `did not take the command (${error.message}); nothing was changed. ${staleHint(config.dataDir)}.`,
        );
      await sleep(100);
    }
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
    // Embedded storage's lock, key and data all live in DATA_DIR: it exists (0700) before any of
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
      error instanceof PortUnavailable
    ) {
      process.stderr.write(`tributary: ${error.message}\n`);
      return error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
    }
    throw error;
  }
}
