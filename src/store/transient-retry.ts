import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { isTransientDatabaseError } from '../core/errors.ts';

/** Tries of one piece of database work, the first included. */
const ATTEMPTS = 3;
/** Wait before the second try; each later one waits four times longer (50 ms, 200 ms). */
const FIRST_WAIT_MS = 50;

/**
 * Runs `work` (typically one transaction) again when the database gave it up for a reason that
 * passes (a lost or refused connection, a deadlock, a serialization failure), up to three tries.
 * For work whose inputs cannot be had again, such as tokens a provider handed over once: a 503
 * would lose them. A connection lost while committing leaves the work possibly done, so `work`
 * is told which try it is and must accept finding its own earlier try committed. Other errors,
 * and the last try's, are thrown as they are.
 */
export async function retryTransient<T>(
  what: string,
  work: (attempt: number) => Promise<T>,
  log?: Pick<Logger, 'warn'>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isTransientDatabaseError(error)) throw error;
      log?.warn({ err: error, attempt }, `${what}: the database gave the work up; trying again`);
      await sleep(FIRST_WAIT_MS * 4 ** (attempt - 1));
    }
  }
}
