// to_webhook=true: the request is acknowledged at once and this durable job does the work —
// sync the range, then send it as data events carrying the request's reference. A range over
// 28 days goes out as large_request_processing, large_request_sending {expected_payloads} and
// the chunks; chunk boundaries are planned from stored sizes first, so a five-year range is
// never held in memory and expected_payloads is exactly the number of chunks that follow.
import type { Job } from 'pg-boss';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { DataTypeName } from '../../model/index.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import { findConnectionById } from '../connections/repo.ts';
import { toWireUser, type ConnectionRow } from '../connections/service.ts';
import { isLargeRequestRange, serializedSize } from './chunking.ts';
import {
  buildAthleteEvent,
  buildDataEvent,
  buildLargeRequestProcessingEvent,
  buildLargeRequestSendingEvent,
  buildRateLimitHitEvent,
  type JsonObject,
} from './events.ts';
import { type Bound, type DataWindow, filterOf, windowOf } from './params.ts';
import { ATHLETE_KEY, mergeSamples } from './records.ts';
import * as repo from './repo.ts';
import type { PlannedWorkoutView } from './planned-workout-view.ts';
import { recordPages } from './stream.ts';
import type { ProviderFetch } from './provider-fetch.ts';
import { type DataWebhooks, emitDataEvent, emitDataEvents } from './webhook-emit.ts';

export const DELIVER_QUEUE = 'data.deliver-request';

export type DeliverJob = {
  developerId: string;
  userId: string;
  type: ProviderDataType;
  reference: string;
  withSamples: boolean;
  /** Absent for the athlete. */
  start?: Bound;
  end?: Bound;
};

export type DeliverDeps = {
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  log: Logger;
  sync: ProviderFetch;
  webhooks: DataWebhooks;
  plannedWorkouts: PlannedWorkoutView;
};

/** When a provider rate-limits us without saying for how long. */
const DEFAULT_PROVIDER_RETRY_SECONDS = 60;

/** Splits ordered record sizes into chunks of at most `maxObjects` records and `maxBytes` of body. */
export function planChunks(
  sizes: readonly { identity_key: string; bytes: number }[],
  limits: { maxObjects: number; maxBytes: number; reservedBytes: number },
): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let bytes = 2;
  for (const { identity_key, bytes: size } of sizes) {
    const fits =
      current.length < limits.maxObjects && limits.reservedBytes + bytes + size + 1 <= limits.maxBytes;
    if (current.length > 0 && !fits) {
      chunks.push(current);
      current = [];
      bytes = 2;
    }
    current.push(identity_key);
    bytes += size + 1;
  }
  if (current.length > 0 || chunks.length === 0) chunks.push(current);
  return chunks;
}

export function createDeliverer(deps: DeliverDeps) {
  const { db, clock, log, webhooks } = deps;

  const parse = (row: repo.StoredRecord, withSamples: boolean) =>
    JSON.parse(
      withSamples ? mergeSamples(row.summary, row.samples, row.sample_splices) : row.summary,
    ) as JsonObject;

  async function emitAthlete(user: ConnectionRow, job: DeliverJob) {
    const stored = await repo.recordsByKeys(db, {
      userId: user.id,
      type: 'athlete',
      keys: [ATHLETE_KEY],
      withSamples: false,
    });
    const athlete = stored[0] ? (JSON.parse(stored[0].summary) as JsonObject) : {};
    const event = buildAthleteEvent({ user: toWireUser(user), athlete, reference: job.reference });
    await db
      .transaction()
      .execute((trx) =>
        emitDataEvent(webhooks, trx, job.developerId, event, { userId: user.id, reference: job.reference }),
      );
  }

  async function emitRange(
    user: ConnectionRow,
    job: DeliverJob & { type: DataTypeName },
    window: DataWindow,
  ) {
    const wireUser = toWireUser(user);
    const range = { userId: user.id, type: job.type, filter: filterOf(window), withSamples: job.withSamples };
    const options = { userId: user.id, reference: job.reference };
    const start = new Date(window.startMs);
    const end = new Date(window.endMs);
    if (job.type === 'plannedWorkout') {
      // Two stores, few records: listed whole; a long range is still announced and chunked.
      const listed = await deps.plannedWorkouts.list(user.id, {
        fromDay: window.syncStartDay,
        toDay: window.syncEndDay,
      });
      const event = buildDataEvent('plannedWorkout', {
        user: wireUser,
        data: listed as unknown as JsonObject[],
        reference: job.reference,
      });
      await db
        .transaction()
        .execute((trx) =>
          emitDataEvent(webhooks, trx, job.developerId, event, { ...options, range: { start, end } }),
        );
      return;
    }
    if (!isLargeRequestRange(start, end)) {
      // Up to 28 days fits in memory; the outbox still splits a payload over the size limit.
      const data: JsonObject[] = [];
      for await (const page of recordPages(db, range))
        for (const text of page) data.push(JSON.parse(text) as JsonObject);
      const event = buildDataEvent(job.type, { user: wireUser, data, reference: job.reference });
      await db
        .transaction()
        .execute((trx) =>
          emitDataEvent(webhooks, trx, job.developerId, event, { ...options, range: { start, end } }),
        );
      return;
    }
    const sizes = await repo.recordSizes(db, range);
    const reservedBytes = serializedSize(
      buildDataEvent(job.type, { user: wireUser, data: [], reference: job.reference }),
    );
    const chunks = planChunks(sizes, {
      maxObjects: webhooks.settings.chunkMaxObjects,
      maxBytes: webhooks.settings.maxPayloadBytes,
      reservedBytes,
    });
    await db.transaction().execute((trx) =>
      emitDataEvents(webhooks, trx, job.developerId, [
        { event: buildLargeRequestProcessingEvent({ user: wireUser, reference: job.reference }), options },
        {
          event: buildLargeRequestSendingEvent({
            user: wireUser,
            reference: job.reference,
            expectedPayloads: chunks.length,
          }),
          options,
        },
      ]),
    );
    // One transaction per chunk: the outbox holds each chunk's bytes, and a chunk is at most
    // the payload limit, so memory stays at one chunk.
    for (const keys of chunks) {
      const rows = await repo.recordsByKeys(db, {
        userId: user.id,
        type: job.type,
        keys,
        withSamples: job.withSamples,
      });
      const data = rows.map((row) => parse(row, job.withSamples));
      const event = buildDataEvent(job.type, { user: wireUser, data, reference: job.reference });
      await db.transaction().execute((trx) => emitDataEvent(webhooks, trx, job.developerId, event, options));
    }
  }

  /** The provider asked us to wait: tell the developer (rate_limit_hit) and come back later. */
  async function postpone(
    user: ConnectionRow,
    job: DeliverJob,
    window: DataWindow | null,
    error: ProviderDataError,
  ) {
    const retryingAt = new Date(
      clock.now().getTime() + (error.retryAfterSeconds ?? DEFAULT_PROVIDER_RETRY_SECONDS) * 1000,
    );
    const event = buildRateLimitHitEvent({
      user: toWireUser(user),
      startDate: new Date(window?.startMs ?? clock.now().getTime()),
      endDate: new Date(window?.endMs ?? clock.now().getTime()),
      retryingAt,
    });
    await db.transaction().execute(async (trx) => {
      await emitDataEvent(webhooks, trx, job.developerId, event, {
        userId: user.id,
        reference: job.reference,
      });
      await deps.jobs.send(DELIVER_QUEUE, job, { trx, startAfter: retryingAt });
    });
  }

  async function deliver(job: DeliverJob): Promise<void> {
    const user = await findConnectionById(db, job.userId);
    // Deleted (or handed to another developer) since the request: nothing to send.
    if (!user || user.developer_id !== job.developerId) return;
    const window = job.start && job.end ? windowOf(job.start, job.end) : null;
    try {
      if (job.type === 'athlete' || !window) await deps.sync.syncAthlete(user);
      else await deps.sync.syncDays(user, job.type, window.syncStartDay, window.syncEndDay);
    } catch (error) {
      if (!(error instanceof ProviderDataError)) throw error;
      if (error.kind === 'rate_limited') return postpone(user, job, window, error);
      // Credentials refused: retrying cannot help until the user reconnects; send what is stored.
      if (error.kind !== 'unauthorized') throw error;
      log.warn(
        { userId: user.id, type: job.type, err: error },
        'provider refused credentials; delivering stored data',
      );
    }
    if (job.type === 'athlete' || !window) await emitAthlete(user, job);
    else await emitRange(user, { ...job, type: job.type }, window);
  }

  return {
    deliver,
    async handle(jobs: Job<DeliverJob>[]) {
      for (const job of jobs) await deliver(job.data);
    },
  };
}

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [DELIVER_QUEUE]: DeliverJob;
  }
}
