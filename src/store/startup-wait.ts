import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { isDatabaseConnectionError } from '../core/errors.ts';
import { prepareStore, type Store } from './db.ts';

/**
 * At start-up the database may simply not be there yet: a cluster coming up together, a
 * PostgreSQL restarting, a DNS name not yet published, a database or role still being created by
 * whoever provisions it. None of that is a reason for the process to exit (its orchestrator
 * would only restart it into the same wait); it waits with backoff and says why.
 */

// Besides a lost or refused connection (isDatabaseConnectionError): the host name not resolving
// yet, the database not created yet (3D000), the role or its password not in place yet (28000,
// 28P01). Each is logged, so a real misconfiguration is visible while the process waits.
const NOT_YET_CODES = new Set(['ENOTFOUND', '3D000', '28000', '28P01']);

export function databaseNotThereYet(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (isDatabaseConnectionError(cause)) return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_YET_CODES.has(code)) return true;
  }
  return false;
}

export type WaitOptions = {
  log: Pick<Logger, 'warn' | 'info'>;
  /** Stops the wait (the process is shutting down): the promise rejects with the abort reason. */
  signal?: AbortSignal;
  /** First pause after a failed attempt; each next pause doubles, up to maxPauseMs. */
  firstPauseMs?: number;
  maxPauseMs?: number;
};

export const WAIT_FIRST_PAUSE_MS = 250;
export const WAIT_MAX_PAUSE_MS = 5_000;

/**
 * Resolves once the store answers (its schema prepared: see prepareStore); throws at once on any
 * error that waiting cannot cure (a bad schema name, a permission refused on CREATE SCHEMA).
 */
export async function waitForDatabase(store: Store, options: WaitOptions): Promise<void> {
  let pauseMs = options.firstPauseMs ?? WAIT_FIRST_PAUSE_MS;
  const maxPauseMs = options.maxPauseMs ?? WAIT_MAX_PAUSE_MS;
  const since = Date.now();
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      await prepareStore(store);
      if (attempt > 1)
        options.log.info({ attempts: attempt, waitedMs: Date.now() - since }, 'database is reachable');
      return;
    } catch (error) {
      if (!databaseNotThereYet(error)) throw error;
      const { code, message } = error as { code?: unknown; message?: unknown };
      options.log.warn(
        { attempt, code, error: String(message ?? error), retryInMs: pauseMs },
        'waiting for the database: not reachable yet',
      );
    }
    await sleep(pauseMs, undefined, options.signal ? { signal: options.signal } : {});
    pauseMs = Math.min(pauseMs * 2, maxPauseMs);
  }
}
