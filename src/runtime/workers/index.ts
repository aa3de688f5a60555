// Every queue and recurring job of the service. Queues are declared in every process (an API
// process sends jobs too); handlers run only where `jobs.start({ work: true })` was called; recurring
// jobs are scheduled by processes that run workers. pg-boss keeps schedules in the database and
// sends each due job once, however many workers registered the schedule.
import type { AppContext } from '../../features/context.ts';
import { defineConnectionJobs } from './connections.ts';
import { defineDataJobs, scheduleDataJobs } from './data.ts';
import { defineOrderJobs } from './orders.ts';
import { defineSyncJobs, scheduleSyncJobs } from './sync.ts';
import { defineWebhookJobs } from './webhooks.ts';

/** Declares every queue and its handler; call before `jobs.start`. */
export function defineJobs(ctx: AppContext): void {
  defineWebhookJobs(ctx);
  defineConnectionJobs(ctx);
  defineOrderJobs(ctx);
  defineDataJobs(ctx);
  defineSyncJobs(ctx);
}

/** Registers the recurring jobs; call after `jobs.start`, in processes that run workers. */
export async function scheduleRecurringJobs(ctx: AppContext): Promise<void> {
  await scheduleDataJobs(ctx);
  await scheduleSyncJobs(ctx);
}
