import { USAGE as backupUsage } from './backup.ts';
import { USAGE as destinationsUsage, WEBHOOK_USAGE as webhookUsage } from './destinations.ts';
import { USAGE as developersUsage } from './developers.ts';
import { USAGE as importUsage } from './import.ts';
import { USAGE as listenUsage } from './listen.ts';
import { USAGE as providersUsage } from './providers.ts';
import { USAGE as restoreUsage } from './restore.ts';
import { USAGE as sandboxUsage } from './sandbox.ts';
import { USAGE as scoresUsage } from './scores.ts';
import { SERVE_USAGE } from './serve.ts';
import { HELP_FLAGS } from './help-request.ts';

/** What `tributary`, `tributary help` and `tributary --help` print (on stdout, exit 0). */
export const TOP_USAGE = `usage: tributary <command> [--help]

commands:
  serve [--role api|worker|all]   run the API and/or the workers
  migrate                         apply pending database migrations
  developers …                    create, list, suspend, resume, set-limit, order-api
  keys …                          create, list, revoke API keys
  providers …                     list providers; enable/disable them per developer
  sandbox …                       connect a sandbox user without a browser; print credentials
  scores recompute …              recompute the computed scores of stored records (docs/scores.md)
  webhook …                       the primary webhook: get, set, rotate-secret, test, deliveries, replay
  destinations …                  list, add, get, set, delete, test, rotate-secret, deliveries, replay
  listen                          receive your webhooks here: verify, print, forward
  import apple-health <file> …    import an Apple Health export for a user, with progress
  backup <file> [--with-key]      copy embedded storage to a file (also while the server runs)
  restore <file> [--replace]      restore such a copy into DATA_DIR (no server running on it)

\`tributary <command> --help\` (or \`tributary help <command>\`) describes one command.

Configuration comes from the environment and from ./.env when it exists (variables already set
win); see .env.example. With embedded storage, commands run beside a running server take effect
in that server.

exit status:
  0  done
  1  refused or failed (an unknown developer, a failed import, a data directory in use, …)
  2  usage or configuration error (a missing or unknown option, a malformed option value,
     a bad environment variable)`;

const MIGRATE_USAGE = `usage:
  tributary migrate

Applies pending database migrations and says which (every process also migrates at start-up).`;

const USAGES: Record<string, string> = {
  serve: SERVE_USAGE,
  migrate: MIGRATE_USAGE,
  developers: developersUsage,
  keys: developersUsage,
  providers: providersUsage,
  sandbox: sandboxUsage,
  scores: scoresUsage,
  webhook: webhookUsage,
  destinations: destinationsUsage,
  listen: listenUsage,
  import: importUsage,
  backup: backupUsage,
  restore: restoreUsage,
};

/**
 * The help a command line asks for, or null when it asks for none. `--help` or `-h` anywhere
 * after the command (`tributary import apple-health --help`), `tributary help [command]`, or a
 * bare `tributary`. An argument after `--` is a value, never a request for help.
 */
export function requestedHelp(argv: readonly string[]): string | null {
  const [name, ...args] = argv;
  if (name === undefined || HELP_FLAGS.has(name)) {
    const topic = name === undefined ? undefined : args[0];
    return (topic && USAGES[topic]) ?? TOP_USAGE;
  }
  const end = args.indexOf('--');
  const options = end < 0 ? args : args.slice(0, end);
  if (!options.includes('--help') && !options.includes('-h')) return null;
  return USAGES[name] ?? null;
}

/** The usage of a known command, for its error messages. */
export const usageOf = (name: string): string => USAGES[name] ?? TOP_USAGE;
