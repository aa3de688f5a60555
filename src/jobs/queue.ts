import { CompiledQuery } from 'kysely';
import { type Job, type JobWithMetadata, PgBoss, type QueueOptions, type WorkOptions } from 'pg-boss';
import type { Logger } from 'pino';
import { isDatabaseConnectionError, isDiskFullError } from '../core/errors.ts';
import { CONNECTION_LOST, DISK_FULL, faultReporter } from '../store/fault-reporter.ts';
import type { Db, Store } from '../store/db.ts';
import type { QueueName, QueuePayloads } from './queues.ts';
import { createCrashGuard, type QuarantinedJob } from './crash-guard.ts';
import { createDueWakes } from './due-wakes.ts';
import { inJobSpan, traced, untraced } from './job-trace.ts';

/**
 * The durable job queue (pg-boss on the same database as everything else). Modules declare
 * their queues with `define`; `start` creates them and, in a worker role, starts their
 * handlers. Sending inside a store transaction enqueues atomically with the change that
 * caused it, so a crash can never leave one without the other.
 */
export type QueueDefinition<Q extends QueueName> = {
  name: Q;
  /** Retry, backoff and expiry for jobs of this queue. */
  options: QueueOptions;
  /**
   * pg-boss's policy, set when the queue is created (it cannot change later): `stately` keeps at
   * most one waiting job per singleton key, which is how a queue coalesces repeated sends.
   */
  policy?: 'standard' | 'stately';
  /** How this process's workers fetch (batch size, concurrency, polling). */
  work?: Omit<WorkOptions, 'includeMetadata'>;
  handler: (jobs: Job<QueuePayloads[Q]>[]) => Promise<void>;
  /**
   * What the owner does with a job the queue gives up on: its retries spent, whether its handler
   * threw each time or its worker died (missed heartbeats, expiry). Such a job is moved to the
   * queue's dead-letter queue `<name>.given-up`, whose worker calls this once with the job's
   * payload and its last error, so the owner can fail what the job was for (a session, an import)
   * and say why. Without it, a given-up job only stays `failed` in the queue.
   */
  givenUp?: (job: { data: QueuePayloads[Q]; reason: string; attempts: number }) => Promise<void>;
};

/** The dead-letter queue of a queue that declares `givenUp`. */
export const givenUpQueue = (name: string) => `${name}.given-up`;

/** A failed job's last error, as pg-boss stored it (a thrown error, or its own expiry note). */
function lastError(output: unknown): string {
  if (output && typeof output === 'object') {
    const value = output as { message?: unknown; value?: unknown };
    if (typeof value.message === 'string') return value.message;
    if (typeof value.value === 'string') return value.value;
  }
  return output === null || output === undefined ? 'no error recorded' : JSON.stringify(output).slice(0, 300);
}

export type SendOptions = {
  /** Enqueue inside this transaction (commits or rolls back with it). */
  trx?: Db;
  startAfter?: Date | number;
  singletonKey?: string;
  id?: string;
  priority?: number;
  /** The job's group (e.g. its developer): a queue's `groupConcurrency` bounds each group's active jobs. */
  group?: { id: string };
  /**
   * The trace the job continues (a W3C traceparent), when it is not the active span's: work
   * queued on behalf of another caller (the webhook outbox relay). Only read while tracing is on.
   */
  traceparent?: string;
};

export type JobQueue = {
  define<Q extends QueueName>(definition: QueueDefinition<Q>): void;
  start(options: { work: boolean }): Promise<void>;
  /**
   * Starts this process's handlers, once, after `start({ work: false })`: a serving process starts
   * them after it listens, so their first fetches do not delay readiness.
   */
  work(): Promise<void>;
  send<Q extends QueueName>(queue: Q, data: QueuePayloads[Q], options?: SendOptions): Promise<string | null>;
  sendMany<Q extends QueueName>(
    queue: Q,
    items: { data: QueuePayloads[Q]; options?: Omit<SendOptions, 'trx'> }[],
    trx?: Db,
  ): Promise<void>;
  /** Jobs waiting (queued, including deferred) per queue, for metrics and readiness. */
  depths(): Promise<Record<string, { queued: number; active: number }>>;
  /** Wakes this process's workers of a queue now instead of at their next poll. */
  wake(queue: string): void;
  /**
   * Work that lives as long as this process's queue: started once the queue has started (in every
   * role: API processes send jobs too), stopped before the queue stops.
   */
  attach(companion: { start(): void; stop(): Promise<void> }): void;
  /** Stops fetching, waits for running handlers (up to `timeoutMs`), then releases the queue. */
  stop(timeoutMs?: number): Promise<void>;
  boss(): PgBoss;
  /** Jobs set aside after crashing the process (jobs/crash-guard.ts), for the operator. */
  quarantine: {
    list(limit?: number): Promise<QuarantinedJob[]>;
    /** Sends the job's payload to its queue again as a new job; undefined if it is not (or no longer) quarantined. */
    release(jobId: string): Promise<QuarantinedJob | undefined>;
    discard(jobId: string): Promise<QuarantinedJob | undefined>;
  };
};

export type JobQueueOptions = {
  /** Process deaths while running one job before it is quarantined (JOB_CRASH_LIMIT; default 2). */
  crashLimit?: number;
  /** Connections of pg-boss's pool (JOB_QUEUE_POOL_SIZE; default 6). */
  poolSize?: number;
  /** Seconds between supervision passes (JOB_SUPERVISE_INTERVAL_SECONDS; default 15). */
  superviseIntervalSeconds?: number;
  /** Seconds between two checks of one queue (JOB_MONITOR_INTERVAL_SECONDS; default 60, pg-boss's). */
  monitorIntervalSeconds?: number;
};

/**
 * Whether updating the stored queue with `options` would change it. pg-boss's updateQueue sets
 * exactly the options given and keeps the others, and its queue rows name their columns as the
 * options do, so the queue is up to date when every given option equals its stored value.
 */
export function queueNeedsUpdate(stored: object, options: CreateQueueOptions): boolean {
  const row = stored as Record<string, unknown>;
  return Object.entries(options).some(([key, value]) => value !== undefined && row[key] !== value);
}

type CreateQueueOptions = NonNullable<Parameters<PgBoss['createQueue']>[1]>;

const executorFor = (trx: Db) => ({
  executeSql: async (text: string, values?: unknown[]) => {
    const result = await trx.executeQuery(CompiledQuery.raw(text, values ?? []));
    return { rows: result.rows as unknown[] };
  },
});

// Supervision returns the jobs of a process that died to the queue; pg-boss's default (60 s)
// makes a crashed worker's deliveries wait over a minute, and the check itself is a cheap query.
// A pass checks each queue only once its monitor interval has passed (pg-boss's 60 s by default:
// the check also refreshes the queue's counts, an aggregate over its jobs), so that interval is
// what bounds how long a dead process's job waits past its heartbeat.
const SUPERVISE_INTERVAL_SECONDS = 15;
const MONITOR_INTERVAL_SECONDS = 60;
const POOL_SIZE = 6;
/**
 * How often a queue's workers poll when nothing woke them. New jobs wake them by NOTIFY; jobs
 * deferred in this process and the retries of jobs that failed here wake them at their time
 * (due-wakes.ts); so the poll only finds what another process deferred (or a dead process left to
 * retry), at most this late. A worker that got jobs fetches again at once (fetchAgain): the poll
 * paces only idle workers. A queue whose definition sets its own polling keeps it.
 */
const IDLE_POLL_SECONDS = 5;

// pg-boss's own OpenTelemetry spans are off: our job spans (inJobSpan) continue the trace that
// queued each job, through the payload and the webhook outbox relay alike; pg-boss's, with its
// context propagation off by default, would start a separate trace for every job processed and
// add a span for every send and every completion (https://pgboss.io/opentelemetry).
const PG_BOSS_TELEMETRY = { enabled: false } as const;

function createBoss(store: Store, options: JobQueueOptions): PgBoss {
  const { connectionString, schema } = store.postgres;
  return new PgBoss({
    openTelemetry: PG_BOSS_TELEMETRY,
    connectionString,
    schema: schema === 'public' ? 'pgboss' : `${schema}_jobs`,
    max: options.poolSize ?? POOL_SIZE,
    useListenNotify: true,
    superviseIntervalSeconds: options.superviseIntervalSeconds ?? SUPERVISE_INTERVAL_SECONDS,
    monitorIntervalSeconds: options.monitorIntervalSeconds ?? MONITOR_INTERVAL_SECONDS,
  });
}

export function createJobQueue(store: Store, log: Logger, options: JobQueueOptions = {}): JobQueue {
  const boss = createBoss(store, options);
  const guard = createCrashGuard({
    db: store.db,
    boss: () => boss,
    log,
    crashLimit: options.crashLimit ?? 2,
    plainData: (data) => untraced({ data }).job.data,
  });
  const definitions = new Map<string, QueueDefinition<QueueName>>();
  /** Every worker of each queue in this process (a `work` with `localConcurrency` above 1 starts several). */
  const workerIds = new Map<string, string[]>();
  const wakeWorkers = (queue: string) => {
    for (const id of workerIds.get(queue) ?? []) boss.notifyWorker(id);
  };
  const dueWakes = createDueWakes(wakeWorkers);
  /** Remembers when the deferred jobs sent to `queue` come due, to wake this process's workers then. */
  const noteDeferred = (queue: string, options: { startAfter?: Date | number } | undefined) => {
    if (options?.startAfter !== undefined && workerIds.has(queue))
      dueWakes.deferred(queue, options.startAfter);
  };
  const companions: { start(): void; stop(): Promise<void> }[] = [];
  let started = false;

  // pg-boss survives a lost connection by itself: its pool discards the client, workers poll
  // again, and its LISTEN connection reconnects with backoff. What reaches us is a report.
  const reportLoss = faultReporter(log, { source: 'job queue', message: CONNECTION_LOST });
  const reportDiskFull = faultReporter(log, { source: 'job queue', message: DISK_FULL });
  boss.on('error', (error) => {
    if (isDatabaseConnectionError(error)) reportLoss(error);
    else if (isDiskFullError(error)) reportDiskFull(error);
    else log.error({ err: error }, 'job queue error');
  });

  /** Notes the ids of the workers one `boss.work` started (a `localConcurrency` above 1 starts several). */
  function noteWorkers(queue: string, workId: string) {
    const ids = boss
      .getWipData()
      .filter((worker) => worker.workId === workId)
      .map((worker) => worker.id);
    workerIds.set(queue, [...(workerIds.get(queue) ?? []), ...(ids.length > 0 ? ids : [workId])]);
  }

  /**
   * Called as a worker's handler ends. pg-boss waits a whole poll after every fetch, one that
   * brought jobs too (it bursts only on full batches larger than one, or on its cached count of
   * ready jobs): a backlog in a queue fetched one job at a time drained at one job per
   * IDLE_POLL_SECONDS per worker, so a job queued behind a dozen others waited a minute (the merged
   * view's day behind the watch's history). A worker woken here fetches again as soon as pg-boss has
   * settled its batch (it reads the wake after that), so only an empty fetch leaves it to the poll;
   * its idle siblings wake with it, for the jobs still queued. A queue with a burst trigger of its
   * own keeps it.
   */
  function fetchAgain(queue: string, options: WorkOptions | undefined, jobs: readonly unknown[]) {
    const bursts = options?.burstWhenBatchFull === true || options?.burstWhenReadyExceeds !== undefined;
    if (jobs.length > 0 && !bursts) wakeWorkers(queue);
  }

  /** The worker of a queue's dead-letter queue: each given-up job goes to its owner, once. */
  async function workGivenUp(name: string, givenUp: NonNullable<QueueDefinition<QueueName>['givenUp']>) {
    const queue = givenUpQueue(name);
    const options = {
      pollingIntervalSeconds: IDLE_POLL_SECONDS,
      notifyPollingIntervalSeconds: IDLE_POLL_SECONDS,
      batchSize: 1,
      includeMetadata: true,
    } as const;
    const workId = await boss.work(
      queue,
      options,
      async (jobs: JobWithMetadata<QueuePayloads[QueueName]>[]) => {
        try {
          for (const entry of jobs) {
            const { job } = untraced(entry);
            const attempts = (job.sourceRetryCount ?? 0) + 1;
            log.warn(
              { queue: name, jobId: job.sourceId, attempts, output: job.sourceOutput },
              'job given up',
            );
            await givenUp({ data: job.data, reason: lastError(job.sourceOutput), attempts });
          }
        } finally {
          fetchAgain(queue, options, jobs);
        }
      },
    );
    noteWorkers(queue, workId);
  }

  let working = false;
  async function startWorkers() {
    if (working) return;
    working = true;
    for (const definition of definitions.values()) {
      // NOTIFY wakes workers for new jobs at once, dueWakes for what this process deferred or has
      // to retry; the poll catches the rest (IDLE_POLL_SECONDS). A queue's own polling interval
      // holds whether or not NOTIFY is up.
      const poll = definition.work?.pollingIntervalSeconds ?? IDLE_POLL_SECONDS;
      const workId = await boss.work<QueuePayloads[QueueName]>(
        definition.name,
        { notifyPollingIntervalSeconds: poll, ...definition.work, pollingIntervalSeconds: poll },
        async (jobs) => {
          try {
            await guard.run(definition.name, jobs, (part) =>
              inJobSpan(definition.name, part, definition.handler),
            );
          } catch (error) {
            // pg-boss retries the batch after its retry delay (or gives it up to the dead letter).
            dueWakes.failed(definition.name, ...(definition.givenUp ? [givenUpQueue(definition.name)] : []));
            throw error;
          } finally {
            fetchAgain(definition.name, definition.work, jobs);
          }
        },
      );
      noteWorkers(definition.name, workId);
      if (definition.givenUp) await workGivenUp(definition.name, definition.givenUp);
    }
    dueWakes.start();
  }

  return {
    define(definition) {
      if (started) throw new Error(`queue ${definition.name} defined after start`);
      definitions.set(definition.name, definition as unknown as QueueDefinition<QueueName>);
    },

    async start({ work }) {
      await boss.start();
      await guard.prune();
      // Every queue as stored, read once: a later start finds them all in place with the same
      // options and writes nothing (creating and updating each one was four statements a queue).
      const stored = new Map((await boss.getQueues()).map((queue) => [queue.name, queue]));
      const ensure = async (name: string, options: CreateQueueOptions, policy?: 'standard' | 'stately') => {
        const queue = stored.get(name);
        if (queue && !queueNeedsUpdate(queue, options)) return;
        // createQueue leaves an existing queue (say, one another process just made) as it is.
        if (!queue) await boss.createQueue(name, { ...options, ...(policy ? { policy } : {}) });
        await boss.updateQueue(name, options);
      };
      for (const definition of definitions.values()) {
        // The dead-letter queue first: the queue that names it must find it.
        const deadLetter = definition.givenUp ? givenUpQueue(definition.name) : undefined;
        if (deadLetter)
          await ensure(deadLetter, { retryLimit: 5, retryDelay: 5, retryBackoff: true, notify: true });
        await ensure(
          definition.name,
          { ...definition.options, notify: true, ...(deadLetter ? { deadLetter } : {}) },
          definition.policy,
        );
      }
      started = true;
      for (const companion of companions) companion.start();
      if (work) await startWorkers();
    },

    async work() {
      if (!started) throw new Error('job queue: work() before start()');
      await startWorkers();
    },

    async send(queue, data, options = {}) {
      const { trx, traceparent, ...jobOptions } = options;
      const id = await boss.send(queue, traced(data, traceparent), {
        ...jobOptions,
        ...(trx ? { db: executorFor(trx) } : {}),
      });
      // (Sent in a transaction that then rolls back, the job is never due: one needless wake.)
      noteDeferred(queue, jobOptions);
      return id;
    },

    async sendMany(queue, items, trx) {
      if (items.length === 0) return;
      await boss.insert(
        queue,
        items.map((item) => {
          const { traceparent, ...options } = item.options ?? {};
          return { data: traced(item.data, traceparent), ...options };
        }),
        trx ? { db: executorFor(trx) } : undefined,
      );
      for (const item of items) noteDeferred(queue, item.options);
    },

    async depths() {
      const result: Record<string, { queued: number; active: number }> = {};
      const names = [...definitions.values()].flatMap((definition) =>
        definition.givenUp ? [definition.name, givenUpQueue(definition.name)] : [definition.name],
      );
      for (const queue of await boss.getQueues(names)) {
        result[queue.name] = { queued: queue.queuedCount, active: queue.activeCount };
      }
      return result;
    },

    wake: wakeWorkers,

    attach(companion) {
      companions.push(companion);
      if (started) companion.start();
    },

    async stop(timeoutMs = 30_000) {
      for (const companion of companions) await companion.stop();
      dueWakes.stop();
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true });
      // A stop is no crash: jobs whose handlers outlived the wait are not counted against them.
      await guard
        .stopped()
        .catch((error: unknown) => log.warn({ err: error }, 'could not unmark the jobs running at stop'));
    },

    boss: () => boss,

    quarantine: {
      list: (limit) => guard.list(limit),
      release: (jobId) =>
        guard.release(jobId, (queue, payload, trx) =>
          boss.send(queue, payload as object, { db: executorFor(trx) }),
        ),
      discard: (jobId) => guard.discard(jobId),
    },
  };
}
