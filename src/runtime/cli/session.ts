import { AsyncLocalStorage } from 'node:async_hooks';
import type { Config } from '../../core/config.ts';
import type { AppContext } from '../../features/context.ts';

/**
 * Where a CLI command's output goes: stdout/stderr from a terminal, or collected by a caller
 * that runs the command in its own process (tests). Commands print through `./output.ts`.
 */
export type CommandSession = {
  stdout(text: string): void;
  stderr(text: string): void;
};

const sessions = new AsyncLocalStorage<CommandSession>();

const terminal: CommandSession = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

export const currentSession = (): CommandSession => sessions.getStore() ?? terminal;

/** Whether output goes straight to this process's stdout/stderr (no session collects it). */
export const atTerminal = (): boolean => sessions.getStore() === undefined;

export function runInSession<T>(session: CommandSession, command: () => Promise<T>): Promise<T> {
  return sessions.run(session, command);
}

/**
 * The context a command acts on, opened for it: on embedded storage beside a running server, a
 * client of that server's PostgreSQL (the CLI set `config.embeddedPostgres.attach`); `applied`
 * names the migrations opening it applied.
 */
export async function openContext(
  config: Config,
): Promise<{ ctx: AppContext; applied: string[]; close(): Promise<void> }> {
  // Loaded when a command opens its context, not with every module that prints (serve's among them).
  const { openContext: openOwnContext } = await import('../runtime.ts');
  return openOwnContext(config);
}
