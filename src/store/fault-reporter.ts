import type { Logger } from 'pino';

/** At most one log line per window while the same fault keeps recurring (one outage, not a flood). */
const REPORT_WINDOW_MS = 10_000;

/**
 * Reports a database fault that every connection and every queue poll meets at once (connections
 * lost or refused, a full disk): one line per window, with the count of the failures it stands
 * for, says the same as hundreds. Only the code and message are logged: node-postgres errors carry
 * the whole client object.
 */
export function faultReporter(
  log: Pick<Logger, 'warn'> | undefined,
  fault: { source: string; message: string },
  now = () => Date.now(),
) {
  let windowStart = -Infinity;
  let suppressed = 0;
  return (error: unknown) => {
    if (!log) return;
    const at = now();
    if (at - windowStart < REPORT_WINDOW_MS) {
      suppressed++;
      return;
    }
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    log.warn(
      { source: fault.source, code, error: String(message ?? error), failuresSinceLastReport: suppressed },
      fault.message,
    );
    windowStart = at;
    suppressed = 0;
  };
}

export const CONNECTION_LOST = 'database connection lost or refused; retrying';
export const DISK_FULL = 'the database is out of disk space: writes fail until space is freed';
/** What requests answered 503 meanwhile stand for (http/problems.ts). */
export const REQUESTS_WITHOUT_DATABASE = 'requests answered 503: the database connection is lost or refused';
export const REQUESTS_PAST_DEADLINE = 'requests answered 503: database statements ran past their deadline';
