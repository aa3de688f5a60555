import type { Logger } from 'pino';

/** At most one log line per window while connections keep failing (one outage, not a flood). */
const REPORT_WINDOW_MS = 10_000;

/**
 * Reports database connections that dropped or could not be opened. An outage fails every
 * pooled connection and every poll of every queue at once; one line per window, with the count
 * of the failures it stands for, says the same thing. Only the code and message are logged:
 * node-postgres errors carry the whole client object.
 */
export function connectionLossReporter(log: Logger | undefined, source: string, now = () => Date.now()) {
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
      { source, code, error: String(message ?? error), failuresSinceLastReport: suppressed },
      'database connection lost or refused; retrying',
    );
    windowStart = at;
    suppressed = 0;
  };
}
