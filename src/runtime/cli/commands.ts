import { parseArgs } from 'node:util';
import { ConfigError, type Config } from '../../core/config.ts';
import { AppError } from '../../core/errors.ts';
import { migrateToLatest } from '../../store/migrate.ts';
import { backupCommand } from './backup.ts';
import { destinationsCommand, webhookCommand } from './destinations.ts';
import { developersCommand, keysCommand } from './developers.ts';
import { importCommand } from './import.ts';
import { listenCommand } from './listen.ts';
import { usageOf } from './help.ts';
import { migrateReport, parseArgsProblem, print, UsageError } from './output.ts';
import { providersCommand } from './providers.ts';
import { sandboxCommand } from './sandbox.ts';
import { scoresCommand } from './scores.ts';
import { currentSession, openContext } from './session.ts';

/**
 * The commands that work on the store (everything but `serve`). Each can run in its own process
 * or, beside a server that owns embedded storage, inside that server (see ./session.ts).
 */
type Command = (config: Config, args: string[]) => Promise<void>;

async function migrateCommand(config: Config, args: string[]) {
  parseArgs({ args, options: {}, strict: true });
  const opened = await openContext(config);
  try {
    // Opening a context applies pending migrations (a running server applied them at start-up):
    // what it applied is reported with anything still pending.
    const applied = [
      ...opened.applied,
      ...(await migrateToLatest(opened.ctx.store.db, opened.ctx.store.postgres.schema)),
    ];
    print(migrateReport(applied));
  } finally {
    await opened.close();
  }
}

export const STORE_COMMANDS: Record<string, Command> = {
  migrate: migrateCommand,
  developers: developersCommand,
  keys: keysCommand,
  providers: providersCommand,
  sandbox: sandboxCommand,
  scores: scoresCommand,
  webhook: webhookCommand,
  destinations: destinationsCommand,
  import: importCommand,
  backup: backupCommand,
};

/** Runs a command in the current session; returns its exit status (2 usage, 1 refused or failed). */
export async function executeCommand(name: string, config: Config, args: string[]): Promise<number> {
  const command = STORE_COMMANDS[name];
  if (!command) throw new Error(`unknown command ${name}`);
  try {
    await command(config, args);
    return 0;
  } catch (thrown) {
    const error = parseArgsProblem(thrown, usageOf(name)) ?? thrown;
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof AppError) {
      currentSession().stderr(`tributary: ${error.message}\n`);
      return error instanceof AppError ? 1 : 2;
    }
    throw error;
  }
}

/**
 * Commands that run in the CLI's own process whatever the storage (never sent to a running
 * server): they talk to Tributary over its REST API like a developer's app. Each returns its
 * exit status.
 */
export const LOCAL_COMMANDS: Record<string, (config: Config, args: string[]) => Promise<number>> = {
  listen: listenCommand,
};

/** Runs a local command; usage problems exit 2, refusals and failures 1, as store commands do. */
export async function executeLocalCommand(name: string, config: Config, args: string[]): Promise<number> {
  const command = LOCAL_COMMANDS[name];
  if (!command) throw new Error(`unknown command ${name}`);
  try {
    return await command(config, args);
  } catch (thrown) {
    const error = parseArgsProblem(thrown, usageOf(name)) ?? thrown;
    if (error instanceof UsageError || error instanceof AppError) {
      currentSession().stderr(`tributary: ${error.message}\n`);
      return error instanceof AppError ? 1 : 2;
    }
    throw error;
  }
}
