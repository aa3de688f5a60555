// Attempts a batch stopped waiting for: after `batchWaitMs` a batch leaves what is still
// unanswered to the engine (each with a slow-lane lease job in case this process dies), and their
// outcomes are written here, one write at a time. Separate so a silent destination's attempts
// outlive their batch without the batch loop (deliver.ts) tracking them.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { JobQueue } from '../../jobs/queue.ts';
import type { DestinationRow } from './destination-repo.ts';
import type { Snapshot } from './engine-destinations.ts';
import { divertedJobs, type InFlight, newWave, pendingSize, type Sink, type Wave } from './engine-work.ts';
import { SLOW_DELIVERY_QUEUE } from './outbox.ts';
import type { WebhookSettings } from './settings.ts';

/** How long after its deadline a detached attempt's outcome may take to be written before its event is sent again. */
const LEASE_MARGIN_MS = 15_000;

export function createDetached(deps: {
  jobs: JobQueue;
  log: Logger;
  settings: WebhookSettings;
  record: (wave: Wave, routes: Map<string, DestinationRow>) => Promise<void>;
}) {
  const { settings, record } = deps;
  /**
   * Attempts a batch stopped waiting for (see `deliver`): their outcomes are recorded here, one
   * write at a time, with the destinations as their batch last read them.
   */
  const detached = {
    /** The attempts themselves, so closing can wait for them (they end at their deadline at the latest). */
    attempts: new Set<Promise<void>>(),
    /**
     * Event generations whose detached attempt is in flight or not yet written: their lease job,
     * should it come due here first (a slow write), does not send them a second time.
     */
    events: new Map<string, number>(),
    wave: newWave(),
    routes: new Map<string, DestinationRow>(),
    writing: null as Promise<void> | null,
  };

  /** Records what detached attempts answered, one write at a time (a failed write is logged: the stuck sweeper resends). */
  function recordDetached() {
    if (detached.writing || pendingSize(detached.wave) === 0) return;
    const wave = detached.wave;
    detached.wave = newWave();
    const written = wave.outcomes.map(({ id }) => id);
    detached.writing = record(wave, detached.routes)
      .catch((error: unknown) =>
        deps.log.warn({ err: error }, 'recording the outcomes of detached webhook attempts failed'),
      )
      .finally(() => {
        for (const id of written) detached.events.delete(id);
        detached.writing = null;
        recordDetached();
      });
  }

  /**
   * Waits for the batch's attempts in flight, but for none longer than `batchWaitMs` from its
   * start: what is still unanswered then is detached (its outcome goes to `detached`), so the
   * batch's jobs, and the worker, are free for other destinations' events. Each detached event
   * leaves a slow-lane job due after its deadline: should this process die before the outcome is
   * written, that job sends it again (once written, the job is stale and skipped).
   */
  async function waitOrDetach(sink: Sink, inFlight: Map<Promise<void>, InFlight>, snapshot: Snapshot | null) {
    if (inFlight.size === 0) return;
    const youngest = Math.max(...[...inFlight.values()].map(({ startedAt }) => startedAt));
    const patience = youngest + settings.batchWaitMs - Date.now();
    const waiting = new AbortController();
    await Promise.race([
      Promise.all(inFlight.keys()),
      delay(Math.max(0, patience), undefined, { signal: waiting.signal }).catch(() => undefined),
    ]);
    waiting.abort();
    if (inFlight.size === 0) return;
    for (const [route, row] of snapshot?.destinations ?? []) detached.routes.set(route, row);
    sink.detached = true;
    for (const { works } of inFlight.values())
      for (const work of works) detached.events.set(work.event.id, work.generation);
    for (const attempt of inFlight.keys()) {
      detached.attempts.add(attempt);
      void attempt.finally(() => detached.attempts.delete(attempt));
    }
    const leases = [...inFlight.values()].flatMap(({ works }) =>
      works.map((work) => ({ work, afterMs: settings.timeoutMs + LEASE_MARGIN_MS })),
    );
    await deps.jobs.sendMany(SLOW_DELIVERY_QUEUE, divertedJobs(leases));
  }

  /** Waits for the detached attempts to end (at their deadline at the latest) and their outcomes to be written. */
  async function settled() {
    await Promise.allSettled([...detached.attempts]);
    // (Read through a function: recordDetached reassigns it, which the compiler cannot see.)
    const writing = (): Promise<void> | null => detached.writing;
    for (let write = writing(); write; write = writing()) await write;
  }

  return { detached, recordDetached, waitOrDetach, settled };
}
