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

export class UsageError extends Error {
  override name = 'UsageError';
}
