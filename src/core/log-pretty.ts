// Log lines for a person at a terminal: pino writes JSON lines, this turns each into
// `21:04:05.123 INFO  msg  key=value …`. A small formatter instead of pino-pretty: the lines
// are ours, their shape is fixed, and a terminal needs nothing pino-pretty adds (it would be a
// second dependency tree and a worker thread for one function).
import type { DestinationStream } from 'pino';

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '\x1b[90m' },
  20: { name: 'DEBUG', color: '\x1b[36m' },
  30: { name: 'INFO', color: '\x1b[32m' },
  40: { name: 'WARN', color: '\x1b[33m' },
  50: { name: 'ERROR', color: '\x1b[31m' },
  60: { name: 'FATAL', color: '\x1b[41m' },
};
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';
/** Fields every line carries that say nothing to someone watching one process. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);
const REQUEST_FIELDS = new Set(['method', 'path', 'status', 'ms']);

function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/** One pino JSON line as one readable line (plus the stack of an error, indented). */
export function prettyLine(line: string, color: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const paint = (code: string, text: string) => (color ? `${code}${text}${RESET}` : text);
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level), color: '' };
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  let stack = '';
  const fields: string[] = [];
  const message = typeof entry.msg === 'string' ? entry.msg : '';
  // A request's line already says `GET /path 200 12ms`; its fields are for collectors.
  const told = message.startsWith(`${String(entry.method)} ${String(entry.path)} ${String(entry.status)}`)
    ? REQUEST_FIELDS
    : undefined;
  for (const [key, value] of Object.entries(entry)) {
    if (OMITTED.has(key) || told?.has(key) || value === undefined) continue;
    if (key === 'err' && value && typeof value === 'object') {
      const error = value as { message?: string; stack?: string };
      fields.push(`err=${fieldValue(error.message ?? '')}`);
      if (error.stack) stack = `\n${error.stack.replace(/^/gm, '    ')}`;
      continue;
    }
    fields.push(`${key}=${fieldValue(value)}`);
  }
  const rest = fields.length ? `  ${paint(DIM, fields.join(' '))}` : '';
  return `${paint(DIM, time)} ${paint(level.color, level.name.padEnd(5))} ${message}${rest}${stack}\n`;
}

/** A pino destination that writes readable lines to a terminal stream. */
export function prettyDestination(
  out: { write(text: string): unknown; hasColors?: () => boolean } = process.stdout,
): DestinationStream {
  const color = typeof out.hasColors === 'function' ? out.hasColors() : false;
  return { write: (line: string) => void out.write(prettyLine(line, color)) };
}
