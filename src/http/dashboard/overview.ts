import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../features/context.ts';
import type { AuditEntry } from '../../features/dashboard/service.ts';
import { hourlyColumns, horizontalBars } from './charts.ts';
import { type DeveloperSession, sendPage } from './guard.ts';
import { type Flash, renderDashboardPage, statusPill, when } from './layout.ts';
import { html, type SafeHtml } from '../safe-html.ts';

const HOUR_MS = 3_600_000;
const FAILING = new Set(['failed', 'rejected']);

export function auditTable(entries: AuditEntry[], withDeveloper = false): SafeHtml {
  if (entries.length === 0) return html`<p class="muted">No dashboard actions yet.</p>`;
  const rows = entries.map(
    (entry) =>
      html`<tr><td>${when(entry.at)}</td><td>${entry.actor}</td>${withDeveloper ? html`<td class="mono">${entry.developerId ?? '—'}</td>` : ''}<td class="mono">${entry.sessionRef}</td><td>${entry.action}</td><td class="mono">${entry.target ?? ''}</td></tr>`,
  );
  return html`<table><thead><tr><th>Time</th><th>Who</th>${withDeveloper ? html`<th>Developer</th>` : ''}<th>Session</th><th>Action</th><th>Target</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Connected users, deliveries of the last 24 h, read budget use, provider errors, the audit log. */
export function overviewPage(ctx: AppContext) {
  return async (_request: FastifyRequest, reply: FastifyReply, session: DeveloperSession, flash: Flash) => {
    const developer = session.developer;
    const now = ctx.clock.now();
    const since = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - 23 * HOUR_MS);
    const [userCounts, events, budget, destination, audit] = await Promise.all([
      ctx.connections.countByProviderAndStatus(developer.id),
      ctx.webhooks.countEventsByHour(developer.id, since),
      ctx.data.budgetUse(developer),
      ctx.webhooks.getDestination(developer.id),
      ctx.dashboard.auditLog({ developerId: developer.id }, 30),
    ]);

    const connected = new Map<string, number>();
    const broken = new Map<string, number>();
    for (const row of userCounts) {
      if (row.status === 'active') connected.set(row.provider, (connected.get(row.provider) ?? 0) + row.n);
      if (row.status === 'broken' || row.status === 'revoked')
        broken.set(row.provider, (broken.get(row.provider) ?? 0) + row.n);
    }
    const hours = Array.from({ length: 24 }, (_, index) => {
      const start = since.getTime() + index * HOUR_MS;
      const inHour = events.filter((row) => row.hour.getTime() === start);
      return {
        label: new Date(start).toISOString().slice(11, 16),
        ok: inHour.filter((row) => row.status === 'delivered').reduce((sum, row) => sum + row.n, 0),
        bad: inHour.filter((row) => FAILING.has(row.status)).reduce((sum, row) => sum + row.n, 0),
      };
    });
    const delivered = hours.reduce((sum, hour) => sum + hour.ok, 0);
    const failing = hours.reduce((sum, hour) => sum + hour.bad, 0);
    const waiting = events
      .filter((row) => row.status === 'pending' || row.status === 'held')
      .reduce((sum, row) => sum + row.n, 0);

    const budgetRows = budget.users.length
      ? html`<table><thead><tr><th>User</th><th>Days read this hour</th><th>Of</th></tr></thead><tbody>${budget.users.map(
          (row) =>
            html`<tr><td class="mono"><a href="/dashboard/users/${row.userId}">${row.userId}</a></td><td>${row.used}</td><td>${budget.limit}</td></tr>`,
        )}</tbody></table>`
      : html`<p class="muted">No historical reads this hour (limit: ${budget.limit} days per user per hour).</p>`;
    const errors = [...broken.entries()];
    const destinationTone =
      destination.status === 'active' ? 'ok' : destination.status === 'failing' ? 'warn' : 'bad';

    const body = html`<div class="grid">
<section class="card" aria-labelledby="users-h"><h2 id="users-h">Connected users by provider</h2>
${horizontalBars(
  'Connected users by provider',
  [...connected.entries()].map(([label, value]) => ({ label, value })),
)}
<p class="muted">${[...connected.values()].reduce((a, b) => a + b, 0)} connected in total.</p></section>
<section class="card" aria-labelledby="events-h"><h2 id="events-h">Webhook events, last 24 h</h2>
${hourlyColumns('Webhook events per hour, delivered and failing', hours)}
<p><span class="stat">${delivered}</span> delivered \u00b7 <span class="stat">${failing}</span> failing \u00b7 ${waiting} waiting</p>
<p>Destination: ${statusPill(destination.status, destinationTone)} <a href="/dashboard/webhooks">Webhooks</a></p></section>
<section class="card" aria-labelledby="budget-h"><h2 id="budget-h">Read budget use</h2>${budgetRows}</section>
<section class="card" aria-labelledby="errors-h"><h2 id="errors-h">Provider errors</h2>
${errors.length ? html`<table><thead><tr><th>Provider</th><th>Broken or revoked connections</th></tr></thead><tbody>${errors.map(([provider, n]) => html`<tr><td>${provider}</td><td>${n}</td></tr>`)}</tbody></table>` : html`<p class="muted">No broken or revoked connections.</p>`}</section>
</div>
<section class="card" aria-labelledby="audit-h"><h2 id="audit-h">Audit log</h2>${auditTable(audit)}</section>`;
    return sendPage(
      reply,
      200,
      renderDashboardPage({ session, page: 'overview', title: 'Overview', body, flash }),
    );
  };
}
