// Poison work ends. pg-boss returns a job whose process died (missed heartbeats, expiry) to the
// queue, and the next worker runs it into the same crash: a job that exhausts the heap, or a hostile
// input that kills the process, took the service down again after every restart. Each job is marked
// running (`job_starts`) before its handler runs and settled after; a job fetched while still marked
// came back from a process that ended in the middle of it. After `crashLimit` such ends it is
// quarantined (`job_quarantine`, an error log line naming it) instead of run, and the operator
// releases or discards it (dashboard: Quarantined jobs). A job with a crash behind it runs alone, so
// the jobs fetched with it are not taken down (and counted) with it again.
import { sql } from 'kysely';
import type { Job, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db } from '../store/db.ts';
import './tables.ts';

export type QuarantinedJob = {
  jobId: string;
  queue: string;
  payload: unknown;
  reason: string;
  crashes: number;
  quarantinedAt: Date;
};

/** Why a job was quarantined: what the process did, as far as the next process can tell. */
export const crashReason = (crashes: number) =>
  `crashed the process ${crashes} time${crashes === 1 ? '' : 's'}: the process ended while running it ` +
  '(a crash, running out of memory, or a kill)';

/** Marks that outlive their job (a job pg-boss gave up on after a crash) are dropped after this long. */
const STALE_MARK_DAYS = 7;

// Field names whose values may be secret: shown as `…` in a payload summary.
const SECRET_NAME = /secret|token|password|passwd|key|auth|credential|signature|cookie|url/i;
const SUMMARY_VALUE_CHARS = 60;
const SUMMARY_FIELDS = 12;

/**
 * A payload as an operator may see it: its top-level fields, a value only where it is a short
 * scalar under a name that cannot hold a secret (ids, counts, kinds); everything else elided.
 */
export function payloadSummary(payload: unknown): string {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    return Array.isArray(payload) ? `[${payload.length} items]` : typeof payload;
  const entries = Object.entries(payload as Record<string, unknown>);
  const shown = entries.slice(0, SUMMARY_FIELDS).map(([name, value]) => {
    if (SECRET_NAME.test(name)) return `${name}: …`;
    if (typeof value === 'number' || typeof value === 'boolean') return `${name}: ${value}`;
    if (typeof value === 'string')
      return value.length <= SUMMARY_VALUE_CHARS ? `${name}: ${JSON.stringify(value)}` : `${name}: "…"`;
    if (Array.isArray(value)) return `${name}: [${value.length} items]`;
    return value === null ? `${name}: null` : `${name}: {…}`;
  });
  if (entries.length > SUMMARY_FIELDS) shown.push(`… ${entries.length - SUMMARY_FIELDS} more`);
  return `{ ${shown.join(', ')} }`;
}

type Attempt = Pick<Job, 'id' | 'retryCount' | 'data'>;

export type CrashGuard = {
  /**
   * Runs a fetched batch through `handler` with the bookkeeping above. A batch with no crash behind
   * any of its jobs runs as one call, as pg-boss gave it; otherwise quarantined jobs are completed
   * in pg-boss (they are the operator's now), the others run (the clean ones together, each
   * suspect alone) and are completed as each part succeeds; a part that threw makes the whole call
   * throw, which fails in pg-boss only what is still active: the parts that threw.
   */
  run<J extends Attempt>(queue: string, jobs: J[], handler: (jobs: J[]) => Promise<void>): Promise<void>;
  list(limit?: number): Promise<QuarantinedJob[]>;
  /** Takes a job out of quarantine and sends its payload to its queue again (a new job), in one transaction. */
  release(
    jobId: string,
    send: (queue: string, payload: unknown, trx: Db) => Promise<unknown>,
  ): Promise<QuarantinedJob | undefined>;
  discard(jobId: string): Promise<QuarantinedJob | undefined>;
  /** Drops marks older than a week (a job pg-boss gave up on after a crash leaves one). */
  prune(): Promise<void>;
  /**
   * After a graceful stop: unmarks the jobs this process still runs (their handlers outlived the
   * stop's wait), so that a restart, a deploy, is not counted as a crash against them.
   */
  stopped(): Promise<void>;
};

const toQuarantined = (row: {
  job_id: string;
  queue: string;
  payload: unknown;
  reason: string;
  crashes: number;
  quarantined_at: Date;
}): QuarantinedJob => ({
  jobId: row.job_id,
  queue: row.queue,
  payload: typeof row.payload === 'string' ? (JSON.parse(row.payload) as unknown) : row.payload,
  reason: row.reason,
  crashes: row.crashes,
  quarantinedAt: new Date(row.quarantined_at),
});

export function createCrashGuard(deps: {
  db: Db;
  boss: () => PgBoss;
  log: Logger;
  crashLimit: number;
  /** The payload as its handler sees it (without transport keys), for the quarantine row. */
  plainData: (data: unknown) => unknown;
}): CrashGuard {
  const { db, log, crashLimit } = deps;
  /** Jobs this process has marked running and not yet settled. */
  const inFlight = new Set<string>();

  async function mark(queue: string, jobs: Attempt[]) {
    const now = new Date();
    for (const job of jobs) inFlight.add(job.id);
    await db
      .insertInto('job_starts')
      .values(jobs.map((job) => ({ job_id: job.id, queue, crashes: 0, running: true, started_at: now })))
      .onConflict((conflict) =>
        conflict.column('job_id').doUpdateSet({
          crashes: sql<number>`job_starts.crashes + job_starts.running::int`,
          running: true,
          started_at: now,
        }),
      )
      .execute();
  }

  async function settle(jobs: Attempt[], succeeded: boolean) {
    const ids = jobs.map((job) => job.id);
    for (const id of ids) inFlight.delete(id);
    if (succeeded) await db.deleteFrom('job_starts').where('job_id', 'in', ids).execute();
    else await db.updateTable('job_starts').set({ running: false }).where('job_id', 'in', ids).execute();
  }

  async function quarantine(queue: string, job: Attempt, crashes: number) {
    const reason = crashReason(crashes);
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('job_quarantine')
        .values({
          job_id: job.id,
          queue,
          payload: JSON.stringify(deps.plainData(job.data) ?? null),
          reason,
          crashes,
          quarantined_at: new Date(),
        })
        .onConflict((conflict) => conflict.column('job_id').doNothing())
        .execute();
      await trx.deleteFrom('job_starts').where('job_id', '=', job.id).execute();
    });
    log.error(
      { queue, jobId: job.id, crashes, payload: payloadSummary(deps.plainData(job.data)) },
      `job quarantined: ${queue} job ${job.id} ${reason}; release or discard it on the operator dashboard (Quarantined jobs)`,
    );
  }

  const attempts = (jobs: Attempt[]) => jobs.map((job) => ({ id: job.id, retryCount: job.retryCount }));

  return {
    async run(queue, jobs, handler) {
      if (jobs.length === 0) return handler(jobs);
      const seen = await db
        .selectFrom('job_starts')
        .select(['job_id', 'crashes', 'running'])
        .where(
          'job_id',
          'in',
          jobs.map((job) => job.id),
        )
        .execute();
      const crashesOf = new Map(seen.map((row) => [row.job_id, row.crashes + (row.running ? 1 : 0)]));
      const crashes = (job: Attempt) => crashesOf.get(job.id) ?? 0;

      if (jobs.every((job) => crashes(job) === 0)) {
        await mark(queue, jobs);
        try {
          await handler(jobs);
        } catch (error) {
          await settle(jobs, false);
          throw error;
        }
        await settle(jobs, true);
        return;
      }

      const poison = jobs.filter((job) => crashes(job) >= crashLimit);
      for (const job of poison) await quarantine(queue, job, crashes(job));
      if (poison.length > 0) await deps.boss().complete(queue, attempts(poison));
      const clean = jobs.filter((job) => crashes(job) === 0);
      const suspects = jobs.filter((job) => crashes(job) > 0 && crashes(job) < crashLimit);
      let failure: unknown;
      for (const part of [clean, ...suspects.map((job) => [job])]) {
        if (part.length === 0) continue;
        await mark(queue, part);
        try {
          await handler(part);
        } catch (error) {
          await settle(part, false);
          failure ??= error;
          continue;
        }
        await settle(part, true);
        await deps.boss().complete(queue, attempts(part));
      }
      if (failure !== undefined) throw failure;
    },

    async list(limit = 200) {
      const rows = await db
        .selectFrom('job_quarantine')
        .selectAll()
        .orderBy('quarantined_at', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toQuarantined);
    },

    async release(jobId, send) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .deleteFrom('job_quarantine')
          .where('job_id', '=', jobId)
          .returningAll()
          .executeTakeFirst();
        if (!row) return undefined;
        const released = toQuarantined(row);
        await send(released.queue, released.payload, trx);
        return released;
      });
    },

    async discard(jobId) {
      const row = await db
        .deleteFrom('job_quarantine')
        .where('job_id', '=', jobId)
        .returningAll()
        .executeTakeFirst();
      return row && toQuarantined(row);
    },

    async stopped() {
      if (inFlight.size === 0) return;
      const ids = [...inFlight];
      inFlight.clear();
      await db.updateTable('job_starts').set({ running: false }).where('job_id', 'in', ids).execute();
    },

    async prune() {
      await db
        .deleteFrom('job_starts')
        .where('started_at', '<', new Date(Date.now() - STALE_MARK_DAYS * 86_400_000))
        .execute();
    },
  };
}
