// The outbox relay: queues the first delivery attempt of events that were emitted one or a few at a
// time (outbox.ts marks them `awaiting_job`), many events to a job and many jobs to a transaction.
//
// An emit wakes the relay of its own process; the pass runs just after (follow-up passes, further
// apart each time, catch an emit whose commit came later than the first look: the wake comes from
// inside the emitting transaction, and under load its commit can take tens of milliseconds). A periodic pass in every process is the safety net: it queues what a process that
// crashed between commit and relay left marked, and what CLI commands emitted. Relays of several
// processes share the work through FOR UPDATE SKIP LOCKED.
import type { Logger } from 'pino';
import { isDatabaseConnectionError } from '../../core/errors.ts';
import { outsideTraces } from '../../core/tracing.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import { CONNECTION_LOST, faultReporter } from '../../store/fault-reporter.ts';
import { DELIVERY_QUEUE, firstAttemptJobs } from './outbox.ts';
import { claimAwaitingJob } from './delivery-moves.ts';

/** Events taken per relay transaction; a pass loops while it finds full slices. */
const SLICE = 1_000;
/** How soon after a wake the relay looks (lets the emits of one burst share a pass). */
const WAKE_DELAY_MS = 2;
/**
 * Later looks after a wake (ms after the first), for an emitting transaction that committed after
 * the first: without them such an event waited for the next emit's wake or the periodic pass.
 */
const FOLLOW_UPS_MS = [25, 100, 400] as const;
/**
 * Traces of events awaiting this relay remembered at most (tracing on): an event another process's
 * relay took, or whose transaction rolled back, is never asked for; the oldest is forgotten first.
 */
const REMEMBERED_TRACES = 10_000;

export type OutboxRelay = {
  /** An emit marked events: look soon (and, when traced, let their deliveries continue its trace). */
  wake(traced?: { eventIds: readonly string[]; traceparent: string }): void;
  /** Starts the periodic pass (and runs one now: events a crash left marked). */
  start(): void;
  /** Stops looking; waits for a pass in flight. */
  stop(): Promise<void>;
  /** One pass until nothing is left to take (tests, and the timers above); returns events taken. */
  runOnce(): Promise<number>;
};

export function createOutboxRelay(
  deps: { db: Db; jobs: JobQueue; log: Logger },
  options: { intervalMs: number },
): OutboxRelay {
  const reportLoss = faultReporter(deps.log, { source: 'webhook outbox relay', message: CONNECTION_LOST });
  let running: Promise<number> | null = null;
  let again = false;
  let stopped = true;
  let wakeTimer: NodeJS.Timeout | null = null;
  let followUpTimer: NodeJS.Timeout | null = null;
  let interval: NodeJS.Timeout | null = null;
  /** Event id -> the traceparent of the emit (only while tracing is on). */
  const traces = new Map<string, string>();

  /** A job continues the trace of its first event that has one. */
  function withTraces(jobs: ReturnType<typeof firstAttemptJobs>) {
    if (traces.size === 0) return jobs;
    return jobs.map((job) => {
      let traceparent: string | undefined;
      for (const [id] of job.data.events) traceparent ??= traces.get(id);
      return traceparent === undefined ? job : { ...job, options: { traceparent } };
    });
  }

  async function pass(): Promise<number> {
    const taken = await deps.db.transaction().execute(async (trx) => {
      const rows = await claimAwaitingJob(trx, SLICE);
      const pending = rows.filter((row) => row.status === 'pending');
      await deps.jobs.sendMany(DELIVERY_QUEUE, withTraces(firstAttemptJobs(pending)), trx);
      for (const row of rows) traces.delete(row.id);
      return rows.length;
    });
    // Workers of this process need no notification round trip to learn of the new jobs.
    if (taken > 0) deps.jobs.wake(DELIVERY_QUEUE);
    return taken;
  }

  async function drain(): Promise<number> {
    let total = 0;
    do {
      again = false;
      const taken = await pass();
      total += taken;
      if (taken === SLICE) again = true;
    } while (again && !stopped);
    return total;
  }

  function runOnce(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = drain().finally(() => {
      running = null;
    });
    return running;
  }

  /**
   * A timer's pass: failures are reported, and the next wake or the periodic pass tries again. It
   * runs outside the trace of whichever emit set the timer: its jobs carry their events' own traces.
   */
  function runInBackground() {
    outsideTraces(runOnce).catch((error: unknown) => {
      if (isDatabaseConnectionError(error)) reportLoss(error);
      else if (!stopped) deps.log.error({ err: error }, 'webhook outbox relay pass failed');
    });
  }

  /** The `index`th later look after a wake's first pass, then the next (a new wake starts over). */
  function followUp(index: number) {
    const after = FOLLOW_UPS_MS[index];
    if (after === undefined) return;
    followUpTimer = setTimeout(
      () => {
        followUpTimer = null;
        if (stopped) return;
        runInBackground();
        followUp(index + 1);
      },
      after - (FOLLOW_UPS_MS[index - 1] ?? 0),
    );
  }

  return {
    wake(traced) {
      if (stopped) return;
      if (traced) {
        for (const id of traced.eventIds) traces.set(id, traced.traceparent);
        for (const oldest of traces.keys()) {
          if (traces.size <= REMEMBERED_TRACES) break;
          traces.delete(oldest);
        }
      }
      wakeTimer ??= setTimeout(() => {
        wakeTimer = null;
        runInBackground();
        if (followUpTimer) clearTimeout(followUpTimer);
        followUp(0);
      }, WAKE_DELAY_MS);
    },
    start() {
      if (!stopped) return;
      stopped = false;
      interval = setInterval(runInBackground, options.intervalMs);
      interval.unref();
      runInBackground();
    },
    async stop() {
      const woken = wakeTimer !== null || followUpTimer !== null;
      for (const timer of [wakeTimer, followUpTimer, interval]) if (timer) clearTimeout(timer);
      wakeTimer = followUpTimer = interval = null;
      // A short-lived process (a CLI command) that just emitted queues its events itself.
      if (woken && !stopped) await runOnce().catch((error: unknown) => reportLoss(error));
      stopped = true;
      await running?.catch(() => 0);
    },
    runOnce,
  };
}
