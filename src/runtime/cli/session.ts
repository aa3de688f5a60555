import { AsyncLocalStorage } from 'node:async_hooks';
import type { Config } from '../../core/config.ts';
import type { AppContext } from '../../features/context.ts';
import { openContext as openOwnContext } from '../runtime.ts';

/**
 * Where a CLI command runs. Started from a terminal, it opens the store itself and prints to
 * stdout/stderr. Sent to a running server (over the admin socket, because embedded storage
 * belongs to that one process), it acts on the server's own context and its output is collected
 * for the CLI that sent it. Commands are written once: they call `openContext` and print through
 * `./output.ts`, and the session in effect decides both.
 */
export type CommandSession = {
  /** The running server's context, when the command runs inside the server. */
  context?: AppContext;
  stdout(text: string): void;
  stderr(text: string): void;
};

const sessions = new AsyncLocalStorage<CommandSession>();

const terminal: CommandSession = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export const currentSession = (): CommandSession => sessions.getStore() ?? terminal;

export function runInSession<T>(session: CommandSession, command: () => Promise<T>): Promise<T> {
  return sessions.run(session, command);
}

/**
 * The context a command acts on: the server's own (nothing to close, migrated at its start), or
 * one opened for it; `applied` names the migrations opening it applied.
 */
export async function openContext(
  config: Config,
): Promise<{ ctx: AppContext; applied: string[]; close(): Promise<void> }> {
  const inServer = currentSession().context;
  if (inServer) return { ctx: inServer, applied: [], close: async () => {} };
  return openOwnContext(config);
}
