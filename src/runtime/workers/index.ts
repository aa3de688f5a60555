// Every queue and recurring job of the service. Queues are declared in every process (an API
// process sends jobs too); handlers run only where `jobs.start({ work: true })` was called; recurring
// jobs are scheduled by processes that run workers. pg-boss keeps schedules in the database and
// sends each due job once, however many workers registered the schedule (see recurring.ts).
import type { Config } from '../../core/config.ts';
import type { AppContext } from '../../features/context.ts';
import { webhookSettings } from '../../features/delivery/settings.ts';
import { defineConnectingJobs } from './connecting.ts';
import { dataRecurringJobs, defineDataJobs } from './data.ts';
import { defineLabReportJobs, labReportRecurringJobs } from './lab-reports.ts';
import { defineLimitJobs, limitRecurringJobs } from './limits.ts';
import { defineMergeJobs } from './merge.ts';
import { defineFhirExportJobs, fhirExportRecurringJobs } from './fhir-export.ts';
import { defineMobileJobs } from './mobile.ts';
import { defineMobileSpoolJobs, mobileSpoolRecurringJobs } from './mobile-spool.ts';
import { defineOrderJobs, orderRecurringJobs } from './orders.ts';
import { type RecurringJob, registerSchedules } from './recurring.ts';
import { defineConnectorJobs, connectorRecurringJobs } from './connectors.ts';
import { defineWebhookJobs, webhookRecurringJobs } from './delivery.ts';

/** Declares every queue and its handler; call before `jobs.start`. */
export function defineJobs(ctx: AppContext): void {
  defineWebhookJobs(ctx);
  defineConnectingJobs(ctx);
  defineOrderJobs(ctx);
  defineDataJobs(ctx);
  defineConnectorJobs(ctx);
  defineLimitJobs(ctx);
  defineLabReportJobs(ctx);
  defineMobileJobs(ctx);
  defineMobileSpoolJobs(ctx);
  defineMergeJobs(ctx);
  defineFhirExportJobs(ctx);
}

/**
 * Schedules earlier releases registered for queues that are gone: removed where still stored.
 * `store.maintenance` vacuumed embedded PGlite, which had no autovacuum; the embedded PostgreSQL
 * has its own (its schedule comes along when an old data directory is moved over).
 */
const RETIRED_SCHEDULES: RecurringJob[] = [{ queue: 'store.maintenance', schedule: null }];

/** Every recurring job this deployment runs, as its settings configure them. */
export function recurringJobs(ctx: { config: Config }): RecurringJob[] {
  return [
    ...dataRecurringJobs(ctx.config),
    ...connectorRecurringJobs(),
    ...orderRecurringJobs(),
    ...webhookRecurringJobs(ctx.config.settings.get(webhookSettings)),
    ...limitRecurringJobs(),
    ...mobileSpoolRecurringJobs(),
    ...labReportRecurringJobs(),
    ...fhirExportRecurringJobs(),
    ...RETIRED_SCHEDULES,
  ];
}

/** Registers the recurring jobs; call after `jobs.start`, in processes that run workers. */
export async function scheduleRecurringJobs(ctx: AppContext): Promise<void> {
  await registerSchedules(ctx.jobs.boss(), recurringJobs(ctx), ctx.log);
}
