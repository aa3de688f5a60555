import { developersCommand, keysCommand } from './cli/developers.ts';
import { UsageError } from './cli/output.ts';
import { providersCommand } from './cli/providers.ts';
import { sandboxCommand } from './cli/sandbox.ts';
import { serveCommand } from './cli/serve.ts';
import { webhookCommand } from './cli/webhook.ts';
import { ConfigError, loadConfig } from '../core/config.ts';
import { AppError } from '../core/errors.ts';
import { createLogger } from '../core/log.ts';
import { openMigratedStore } from './runtime.ts';

const USAGE = `usage: tributary <command>

commands:
  serve [--role api|worker|all]   run the API and/or the workers
  migrate                         apply pending database migrations
  developers …                    create, list, suspend, resume, set-limit, order-api
  keys …                          create, list, revoke API keys
  providers …                     list providers; enable/disable them per developer
  sandbox connect …               connect a sandbox user without a browser
  webhook …                       get, set, rotate-secret, test, deliveries, replay

Configuration comes from the environment; see .env.example.`;

type Command = (config: ReturnType<typeof loadConfig>, args: string[]) => Promise<void>;

const commands: Record<string, Command> = {
  serve: serveCommand,
  migrate: async (config) => {
    const log = createLogger(config.logLevel);
    const store = await openMigratedStore(config, log);
    await store.close();
    process.stdout.write('migrations up to date\n');
  },
  developers: developersCommand,
  keys: keysCommand,
  providers: providersCommand,
  sandbox: sandboxCommand,
  webhook: webhookCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`${USAGE}\n`);
    return name === undefined || name === 'help' || name === '--help' ? 0 : 2;
  }
  try {
    await command(loadConfig(), args);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof AppError) {
      process.stderr.write(`tributary: ${error.message}\n`);
      return error instanceof AppError ? 1 : 2;
    }
    throw error;
  }
}
