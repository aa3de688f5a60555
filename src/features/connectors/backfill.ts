// Backfill after a connection: the provider's last `backfillDays` of every type it offers,
// newest first, one durable job per chunk of `backfillChunkDays`. Each chunk goes through the
// data module's sync (validated, upserted, recorded as covered), so a read that arrives in the
// middle finds what is already there and a repeated chunk costs nothing. Progress is a row per
// user and type; a crash resumes at its cursor, a rate limit reschedules the chunk for when the
// window reopens, and the chain enqueues its next chunk in the transaction that records the
// last one.
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../model/time.ts';
import { findConnectionById } from '../connections/repo.ts';
import type { ConnectionRow } from '../connections/service.ts';
import { ProviderDataError } from '../../provider-kit/data-source.ts';
import type { ProviderCatalog } from '../../provider-access/catalog.ts';
import type { ProviderDataType } from '../../provider-kit/types.ts';
import type { Db } from '../../store/db.ts';
import type { BackfillStatus } from './tables.ts';

export const BACKFILL_QUEUE = 'connectors.backfill';
export type BackfillJob = { userId: string; type: ProviderDataType };

/** What a chunk needs from the data module. */
export type BackfillSync = {
  syncDays(user: ConnectionRow, type: ProviderDataType, fromDay: string, toDay: string): Promise<void>;
  syncAthlete(user: ConnectionRow): Promise<void>;
};

export type BackfillProgress = {
  type: string;
  status: BackfillStatus;
  startDay: string;
  endDay: string;
  /** Days from here to `endDay` are done. */
  cursorDay: string;
  chunksDone: number;
  chunksTotal: number;
  lastError: string | null;
};

/** Dates are read as text so no time zone ever moves them. */
const day = <C extends 'start_day' | 'end_day' | 'cursor_day'>(column: C) =>
  sql<string>`${sql.ref(column)}::text`.as(column);

export function createBackfill(deps: {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  log: Logger;
  providers: ProviderCatalog;
}) {
  const { db, clock, jobs, log } = deps;

  async function setStatus(trx: Db, job: BackfillJob, status: BackfillStatus, lastError: string | null) {
    await trx
      .updateTable('connector_backfills')
      .set({ status, last_error: lastError, updated_at: clock.now() })
      .where('user_id', '=', job.userId)
      .where('type', '=', job.type)
      .execute();
  }

  return {
    /** Plans the backfill of a connection that just became active (in its transaction). */
    async start(trx: Db, connection: { userId: string; provider: string }): Promise<void> {
      const provider = deps.providers.get(connection.provider);
      const api = provider?.connector?.api;
      if (!provider || !api) return;
      const end = dayNumberToIsoDate(Math.floor(clock.now().getTime() / MS_PER_DAY) + 1);
      const start = addDays(end, -api.backfillDays);
      for (const type of provider.declaration.dataTypes) {
        const chunks = type === 'athlete' ? 1 : Math.ceil(api.backfillDays / api.backfillChunkDays);
        const row = {
          start_day: start,
          end_day: end,
          cursor_day: end,
          chunk_days: api.backfillChunkDays,
          status: 'running' as const,
          chunks_done: 0,
          chunks_total: chunks,
          last_error: null,
          updated_at: clock.now(),
        };
        await trx
          .insertInto('connector_backfills')
          .values({ user_id: connection.userId, type, ...row })
          .onConflict((conflict) => conflict.columns(['user_id', 'type']).doUpdateSet(row))
          .execute();
        await jobs.send(BACKFILL_QUEUE, { userId: connection.userId, type }, { trx });
      }
    },

    /** One chunk of one type; schedules the next. */
    async runChunk(job: BackfillJob, sync: BackfillSync): Promise<void> {
      const row = await db
        .selectFrom('connector_backfills')
        .select(['status', 'chunk_days', day('start_day'), day('cursor_day')])
        .where('user_id', '=', job.userId)
        .where('type', '=', job.type)
        .executeTakeFirst();
      if (!row || row.status === 'done' || row.status === 'failed' || row.status === 'stopped') return;
      const user = await findConnectionById(db, job.userId);
      if (user?.status !== 'active') {
        if (user) await setStatus(db, job, 'stopped', `connection is ${user.status}`);
        return;
      }
      const chunkEnd = row.cursor_day;
      const stepped = addDays(chunkEnd, -row.chunk_days);
      // ISO dates compare as text.
      const chunkStart = stepped.localeCompare(row.start_day) > 0 ? stepped : row.start_day;
      try {
        if (job.type === 'athlete') await sync.syncAthlete(user);
        else await sync.syncDays(user, job.type, chunkStart, chunkEnd);
      } catch (error) {
        if (!(error instanceof ProviderDataError)) throw error;
        if (error.kind === 'rate_limited') {
          const startAfter = new Date(clock.now().getTime() + (error.retryAfterSeconds ?? 60) * 1000);
          await db.transaction().execute(async (trx) => {
            await setStatus(trx, job, 'waiting', error.message);
            await jobs.send(BACKFILL_QUEUE, job, { trx, startAfter });
          });
          log.info({ ...job, startAfter }, 'backfill waits for the provider rate limit');
          return;
        }
        if (error.kind === 'unauthorized') {
          await setStatus(db, job, 'failed', error.message);
          return;
        }
        // Unavailable: the job is retried with backoff; the cursor has not moved.
        await setStatus(db, job, 'running', error.message);
        throw error;
      }
      const done = job.type === 'athlete' || chunkStart <= row.start_day;
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('connector_backfills')
          .set((eb) => ({
            cursor_day: done ? row.start_day : chunkStart,
            chunks_done: eb('chunks_done', '+', 1),
            status: done ? 'done' : 'running',
            last_error: null,
            updated_at: clock.now(),
          }))
          .where('user_id', '=', job.userId)
          .where('type', '=', job.type)
          .execute();
        if (!done) await jobs.send(BACKFILL_QUEUE, job, { trx });
      });
      if (done) log.info({ ...job, from: row.start_day }, 'backfill finished');
    },

    async progress(userId: string): Promise<BackfillProgress[]> {
      const rows = await db
        .selectFrom('connector_backfills')
        .select(['type', 'status', 'chunks_done', 'chunks_total', 'last_error'])
        .select([day('start_day'), day('end_day'), day('cursor_day')])
        .where('user_id', '=', userId)
        .orderBy('type')
        .execute();
      return rows.map((row) => ({
        type: row.type,
        status: row.status,
        startDay: row.start_day,
        endDay: row.end_day,
        cursorDay: row.cursor_day,
        chunksDone: row.chunks_done,
        chunksTotal: row.chunks_total,
        lastError: row.last_error,
      }));
    },
  };
}

export type Backfill = ReturnType<typeof createBackfill>;

// The queues this module owns, with their payloads (see jobs/queues.ts).
declare module '../../jobs/queues.ts' {
  interface QueuePayloads {
    [BACKFILL_QUEUE]: BackfillJob;
  }
}
