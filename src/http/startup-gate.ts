import { AppError } from '../core/errors.ts';
import type { App } from './app-type.ts';

/**
 * Where a starting process is: a serving process listens from its first moment (so /health
 * answers and /ready says what it waits for), but nothing else is served until the database is
 * reachable, migrated and the job queue is up.
 */
export type StartupStage = 'waiting_for_database' | 'migrating' | 'starting' | 'serving';

export type StartupProgress = { stage(): StartupStage };

/** An app built on a store that is already open and migrated (tests, tools). */
export const ALREADY_SERVING: StartupProgress = { stage: () => 'serving' };

/** What answers while the process starts: liveness and readiness only. */
const ANSWERED_WHILE_STARTING = new Set(['/health', '/ready']);

/** Seconds a client is asked to wait before retrying a request refused during start-up. */
const STARTING_RETRY_AFTER_SECONDS = 5;

const WHY: Record<Exclude<StartupStage, 'serving'>, string> = {
  waiting_for_database: 'waiting for the database to become reachable',
  migrating: 'applying database migrations',
  starting: 'starting the job queue',
};

export function registerStartupGate(app: App, progress: StartupProgress) {
  app.addHook('onRequest', (request, _reply, done) => {
    const stage = progress.stage();
    if (stage === 'serving') return done();
    const path = request.url.split('?', 1)[0] ?? '';
    if (ANSWERED_WHILE_STARTING.has(path.replace(/\/+$/, ''))) return done();
    throw new AppError('service_unavailable', `the service is starting (${WHY[stage]}); retry shortly`, {
      headers: { 'retry-after': String(STARTING_RETRY_AFTER_SECONDS) },
    });
  });
}
