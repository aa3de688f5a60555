import { sql } from 'kysely';
import type { JobWithMetadata } from 'pg-boss';
import type { AppContext } from '../../src/runtime/context.ts';
import { until } from './until.ts';

/**
 * Waiting on the job queue's own record instead of on the clock: a test that needs "the timer
 * fired" or "the superseded job ran and did nothing" waits until pg-boss says the job reached a
 * terminal state. Every wait is bounded and says what it waited for.
 */
export const TERMINAL_JOB_STATES = ['completed', 'failed', 'cancelled'] as const;

/** The pg-boss schema of this store (mirrors src/jobs/queue.ts). */
function jobSchema(ctx: AppContext): string {
  const schema = ctx.store.postgres?.schema;
  return schema === undefined || schema === 'public' ? 'pgboss' : `${schema}_jobs`;
}

export async function findJobs<T extends object>(
  ctx: AppContext,
  queue: string,
  filter: { id?: string; data?: Partial<T> } = {},
): Promise<JobWithMetadata<T>[]> {
  return ctx.jobs.boss().findJobs<T>(queue, filter);
}

/** Jobs of `queue` still waiting (deferred ones included) or running. */
export async function unsettledJobs(ctx: AppContext, queue: string): Promise<JobWithMetadata[]> {
  const jobs = await findJobs(ctx, queue);
  return jobs.filter((job) => !(TERMINAL_JOB_STATES as readonly string[]).includes(job.state));
}

/** Waits until every job of `queue` matching `filter` (at least one) is in a terminal state. */
export async function waitForJobsSettled<T extends object>(
  ctx: AppContext,
  queue: string,
  filter: { id?: string; data?: Partial<T> },
  timeoutMs?: number,
): Promise<JobWithMetadata<T>[]> {
  return until(`${queue} jobs ${JSON.stringify(filter)} to settle`, () => findJobs<T>(ctx, queue, filter), {
    done: (jobs) =>
      jobs.length > 0 && jobs.every((job) => (TERMINAL_JOB_STATES as readonly string[]).includes(job.state)),
    show: (jobs) => JSON.stringify(jobs.map((job) => [job.id, job.state])),
    betweenReads: () => ctx.jobs.wake(queue),
    timeoutMs,
  });
}

/**
 * Makes a deferred job due now, as if its time had come: the queue compares `start_after` with
 * the database's own clock, which a test cannot move.
 */
export async function makeJobDue(ctx: AppContext, jobId: string): Promise<void> {
  await sql`UPDATE ${sql.table(`${jobSchema(ctx)}.job`)} SET start_after = now() WHERE id = ${jobId}`.execute(
    ctx.db,
  );
}

/** Puts a waiting job off by `seconds` (the database's clock), so that only other jobs can run meanwhile. */
export async function deferJob(ctx: AppContext, jobId: string, seconds: number): Promise<void> {
  await sql`UPDATE ${sql.table(`${jobSchema(ctx)}.job`)}
    SET start_after = now() + ${seconds} * interval '1 second' WHERE id = ${jobId}`.execute(ctx.db);
}
