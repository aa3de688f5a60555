// The operator's quarantined jobs (jobs/crash-guard.ts): jobs that ended their process
// JOB_CRASH_LIMIT times, set aside instead of run into the same crash again. Each shows its queue,
// id, a payload summary without secrets, the reason and when; the operator releases one (its
// payload goes to its queue again as a new job) or discards it.
import { notFound } from '../../core/errors.ts';
import type { AppContext } from '../../features/context.ts';
import { payloadSummary } from '../../jobs/crash-guard.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, field, type Guards, sendPage } from './guard.ts';
import { confirmButton, postButton, renderDashboardPage, when } from './layout.ts';
import { html } from '../safe-html.ts';

const PAGE = '/dashboard/operator/jobs';

export function registerOperatorJobPages(scope: App, ctx: AppContext, guards: Guards) {
  scope.get(
    PAGE,
    DASHBOARD_ROUTE,
    guards.operatorPage(async (_request, reply, session, flash) => {
      const quarantined = await ctx.jobs.quarantine.list();
      const rows = quarantined.map(
        (job) =>
          html`<tr><td class="mono">${job.queue}</td><td class="mono">${job.jobId}</td><td class="mono">${payloadSummary(job.payload)}</td><td>${job.reason}</td><td>${when(job.quarantinedAt)}</td><td class="row">${postButton(session, `${PAGE}/release`, 'Release', { fields: { job_id: job.jobId }, style: 'primary' })}${confirmButton(session, `${PAGE}/discard`, 'Discard', 'The job is dropped for good: what it was for will not happen.', { job_id: job.jobId })}</td></tr>`,
      );
      const body = html`<section class="card"><h2>Quarantined jobs</h2>
<p class="muted">Jobs that ended the process while running (a crash, running out of memory, a kill) JOB_CRASH_LIMIT times are set aside here instead of run into the same crash again; each was logged at error level. Release one once its cause is fixed (it runs again as a new job), or discard it.</p>
${
  quarantined.length === 0
    ? html`<p>No job is quarantined.</p>`
    : html`<table><thead><tr><th>Queue</th><th>Job</th><th>Payload</th><th>Reason</th><th>Quarantined</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
}</section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'quarantine', title: 'Quarantined jobs', body, flash }),
      );
    }),
  );

  scope.post(
    `${PAGE}/release`,
    DASHBOARD_ROUTE,
    guards.operatorAction(PAGE, async (_request, session, form) => {
      const jobId = field(form, 'job_id');
      const released = await ctx.jobs.quarantine.release(jobId);
      if (!released) throw notFound(`no quarantined job ${jobId}`);
      await ctx.dashboard.audit(session, { action: 'job.release', target: `${released.queue} ${jobId}` });
      return { redirect: PAGE, notice: `Job ${jobId} released to ${released.queue}.` };
    }),
  );

  scope.post(
    `${PAGE}/discard`,
    DASHBOARD_ROUTE,
    guards.operatorAction(PAGE, async (_request, session, form) => {
      const jobId = field(form, 'job_id');
      const discarded = await ctx.jobs.quarantine.discard(jobId);
      if (!discarded) throw notFound(`no quarantined job ${jobId}`);
      await ctx.dashboard.audit(session, { action: 'job.discard', target: `${discarded.queue} ${jobId}` });
      return { redirect: PAGE, notice: `Job ${jobId} discarded.` };
    }),
  );
}
