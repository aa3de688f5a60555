import { currentSession } from './session.ts';

/** CLI output: JSON for scripts (`--json`), aligned text for people; to the current session. */
export function print(text: string) {
  currentSession().stdout(text);
}

export function printJson(value: unknown) {
  print(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(rows: Record<string, unknown>[]) {
  if (rows.length === 0) {
    print('(none)\n');
    return;
  }
  const columns = Object.keys(rows[0] ?? {});
  const cell = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value ?? '-'));
  const widths = columns.map((column) =>
    Math.max(column.length, ...rows.map((row) => cell(row[column]).length)),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  print(`${line(columns)}\n`);
  for (const row of rows) print(`${line(columns.map((column) => cell(row[column])))}\n`);
}

/** What `tributary migrate` says: each migration it applied, one a line, or that none was pending. */
export function migrateReport(applied: readonly string[]): string {
  if (applied.length === 0) return 'migrations up to date: none pending\n';
  const count = applied.length === 1 ? '1 migration' : `${applied.length} migrations`;
  return `applied ${count}:\n${applied.map((name) => `  ${name}\n`).join('')}`;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * A command line `node:util` parseArgs refused (an unknown option, a missing value), as a
 * UsageError with a short message and the command's usage: Node's own message goes on to suggest
 * `-- "--x"` with quotes that do not balance, which reads as a second problem.
 */
export function parseArgsProblem(error: unknown, usage: string): UsageError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof TypeError) || typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS'))
    return null;
  const unknown = /^Unknown option '([^']+)'/.exec(error.message);
  const first = unknown ? `unknown option ${unknown[1]}` : (error.message.split(/\.\s/)[0] ?? error.message);
  return new UsageError(`${first.charAt(0).toLowerCase()}${first.slice(1)}\n${usage}`);
}
