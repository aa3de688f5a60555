import type { AppContext } from '../../features/context.ts';
import type { DeliveryRecord } from '../../features/delivery/deliveries.ts';
import { WEBHOOK_EVENT_STATUSES } from '../../features/delivery/tables.ts';
import { invalidParameter } from '../../core/errors.ts';
import type { App } from '../app-type.ts';
import {
  DASHBOARD_ROUTE,
  type DeveloperSession,
  field,
  fields,
  type Guards,
  queryField,
  sendPage,
} from './guard.ts';
import { confirmButton, csrfField, postButton, renderDashboardPage, statusPill, when } from './layout.ts';
import { html, type SafeHtml } from '../safe-html.ts';

const MAX_REPLAY = 50;
const PERIODS: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 };

function tone(status: string): 'ok' | 'warn' | 'bad' | 'plain' {
  if (status === 'delivered') return 'ok';
  if (status === 'failed' || status === 'rejected') return 'bad';
  if (status === 'pending' || status === 'held') return 'warn';
  return 'plain';
}

function attemptsHtml(record: DeliveryRecord): SafeHtml {
  if (record.attempts.length === 0) return html`<p class="muted">No attempt yet.</p>`;
  return html`<table><thead><tr><th>#</th><th>At</th><th>Request</th><th>Response</th><th>Took</th><th>Outcome</th><th>Next attempt</th></tr></thead><tbody>${record.attempts.map(
    (attempt) =>
      html`<tr><td>${attempt.attempt}</td><td>${when(attempt.attemptedAt)}</td><td class="mono">POST ${attempt.url}</td><td>${attempt.statusCode === null ? '' : `HTTP ${attempt.statusCode}`} ${attempt.error ?? ''}</td><td>${attempt.durationMs} ms</td><td>${attempt.outcome}</td><td>${when(attempt.nextAttemptAt)}</td></tr>`,
  )}</tbody></table>`;
}

/**
 * The delivery log as a table; with `replay`, one form around it: a checkbox per event for
 * "replay selected" and a button per row for one (a button's own name/value is sent only when
 * it is the one pressed).
 */
export function deliveryTable(
  session: DeveloperSession,
  deliveries: DeliveryRecord[],
  replay: boolean,
  empty: SafeHtml = html`No events.`,
): SafeHtml {
  if (deliveries.length === 0) return html`<p class="muted">${empty}</p>`;
  const rows = deliveries.map(
    (record) =>
      html`<tr>${replay ? html`<td><input type="checkbox" name="selected" value="${record.eventId}" aria-label="Select ${record.eventId}"></td>` : ''}<td>${when(record.createdAt)}</td><td>${record.type}</td><td>${statusPill(record.status, tone(record.status))}</td><td class="mono">${record.userId ? html`<a href="/dashboard/users/${record.userId}">${record.userId.slice(0, 8)}…</a>` : '—'}</td><td>${record.attemptCount}</td><td>${record.lastStatusCode ?? ''} ${record.lastError ?? ''}</td><td><details><summary>Attempts</summary><p class="mono">webhook-id ${record.eventId}</p>${attemptsHtml(record)}<p><a href="/dashboard/webhooks/events/${encodeURIComponent(record.eventId)}">Request body and headers</a></p></details></td>${replay ? html`<td><button type="submit" class="secondary" name="one" value="${record.eventId}">Replay</button></td>` : ''}</tr>`,
  );
  const table = html`<table><thead><tr>${replay ? html`<th><span class="muted">Pick</span></th>` : ''}<th>Created</th><th>Type</th><th>Status</th><th>User</th><th>Attempts</th><th>Last response</th><th>Details</th>${replay ? html`<th></th>` : ''}</tr></thead><tbody>${rows}</tbody></table>`;
  if (!replay) return table;
  return html`<form method="post" action="/dashboard/webhooks/replay">${csrfField(session)}${table}<p><button type="submit" class="primary">Replay selected</button></p></form>`;
}

function recovery(status: string): string {
  if (status === 'failing')
    return 'Deliveries are failing and are being retried. Fix your endpoint; the next success clears the streak. Replay failed events below once it answers 2xx.';
  if (status === 'disabled')
    return 'The destination is disabled: events are held. Enable it (or save a working URL) to deliver every held event.';
  return '';
}

export function registerWebhookPages(scope: App, ctx: AppContext, guards: Guards) {
  const { webhooks } = ctx;

  scope.get(
    '/dashboard/webhooks',
    DASHBOARD_ROUTE,
    guards.developerPage(async (request, reply, session, flash) => {
      const status = (WEBHOOK_EVENT_STATUSES as readonly string[]).includes(queryField(request, 'status'))
        ? queryField(request, 'status')
        : '';
      const type = queryField(request, 'type').trim().slice(0, 100);
      const userId = queryField(request, 'user_id').trim().slice(0, 100);
      const period = Object.hasOwn(PERIODS, queryField(request, 'period'))
        ? queryField(request, 'period')
        : '';
      const since = period ? new Date(ctx.clock.now().getTime() - PERIODS[period]!).toISOString() : undefined;
      const devId = session.developer.id;
      const [destination, page] = await Promise.all([
        webhooks.getDestination(devId),
        webhooks.listDeliveries(devId, {
          ...(status ? { status } : {}),
          ...(type ? { type } : {}),
          ...(userId ? { userId } : {}),
          ...(since ? { since } : {}),
          limit: 50,
        }),
      ]);
      const statusTone =
        destination.status === 'active' ? 'ok' : destination.status === 'failing' ? 'warn' : 'bad';
      const option = (value: string, label: string, current: string) =>
        html`<option value="${value}"${value === current ? ' selected' : ''}>${label}</option>`;
      const body = html`<section class="card"><h2>Destination</h2>
<p>Status: ${statusPill(destination.status, statusTone)} · ${destination.recentFailures} failed attempts in 24 h · ${destination.heldEvents} held events · last success ${when(destination.lastSuccessAt)}</p>
${recovery(destination.status) ? html`<p class="error">${recovery(destination.status)}</p>` : ''}
<form method="post" action="/dashboard/webhooks/destination" class="row">${csrfField(session)}
<div><label for="url">Destination URL</label><input id="url" name="url" type="url" size="50" value="${destination.url ?? ''}" required></div>
<button type="submit" class="primary">Save URL</button></form>
<p class="row">${destination.status === 'disabled' ? postButton(session, '/dashboard/webhooks/enable', 'Enable destination', { style: 'primary' }) : postButton(session, '/dashboard/webhooks/disable', 'Disable destination')}
${postButton(session, '/dashboard/webhooks/test', 'Send test event', { style: 'primary' })}</p>
<p>Events go out in your <a href="/dashboard/output-format">output format</a> (JSON unless you chose FHIR or FIT).</p></section>
<section class="card"><h2>Signing secret</h2><p class="muted">The secret is shown once: when your account was created and after each rotation. Rotating keeps the previous secret signing for 24 hours${destination.previousSecretExpiresAt ? html` (current overlap ends ${when(destination.previousSecretExpiresAt)})` : ''}.</p>
${confirmButton(session, '/dashboard/webhooks/rotate-secret', 'Rotate secret', 'Make a new signing secret? It is shown only once.')}</section>
<section class="card"><h2>Delivery log</h2>
<form method="get" action="/dashboard/webhooks" class="row">
<div><label for="f-type">Event type</label><input id="f-type" name="type" type="text" value="${type}" size="16"></div>
<div><label for="f-status">Status</label><select id="f-status" name="status">${option('', 'any', status)}${WEBHOOK_EVENT_STATUSES.map((value) => option(value, value, status))}</select></div>
<div><label for="f-user">User id</label><input id="f-user" name="user_id" type="text" value="${userId}" size="24"></div>
<div><label for="f-period">Time</label><select id="f-period" name="period">${option('', 'any time', period)}${option('1h', 'last hour', period)}${option('24h', 'last 24 hours', period)}${option('7d', 'last 7 days', period)}</select></div>
<button type="submit" class="secondary">Filter</button></form>
${deliveryTable(
  session,
  page.deliveries,
  true,
  status || type || userId || period
    ? html`No events match these filters. <a href="/dashboard/webhooks">Show every event</a>.`
    : html`No events yet. ${destination.url ? html`Press <strong>Send test event</strong> above` : html`Set a destination URL above, then press <strong>Send test event</strong>`}, or run <code>npx tributary listen</code> on your machine to receive them there. Data events follow once a user connects.`,
)}</section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'webhooks', title: 'Webhooks', body, flash }),
      );
    }),
  );

  // One event: the exact body it is signed and delivered with, the headers that go with it, its attempts.
  scope.get(
    '/dashboard/webhooks/events/:event_id',
    DASHBOARD_ROUTE,
    guards.developerPage(async (request, reply, session, flash) => {
      const { event_id: eventId } = request.params as { event_id: string };
      const { record, body } = await webhooks.delivery(session.developer.id, eventId);
      let pretty = body;
      try {
        pretty = JSON.stringify(JSON.parse(body), null, 2);
      } catch {
        // Shown as stored: the bytes are what was signed.
      }
      const page = html`<section class="card"><h2>${record.type} ${statusPill(record.status, tone(record.status))}</h2>
<h3>Request</h3><p class="mono">POST ${record.attempts.at(-1)?.url ?? '(no attempt yet)'}<br>content-type: application/json<br>webhook-id: ${record.eventId}<br>webhook-timestamp, webhook-signature, service-signature: signed afresh at each attempt</p>
<pre class="mono" style="white-space:pre-wrap;max-height:32rem;overflow:auto">${pretty}</pre>
<h3>Attempts and responses</h3>${attemptsHtml(record)}
<form method="post" action="/dashboard/webhooks/replay">${csrfField(session)}<button type="submit" class="primary" name="one" value="${record.eventId}">Replay</button></form>
<p><a href="/dashboard/webhooks">Back to the delivery log</a></p></section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'webhooks', title: 'Webhook event', body: page, flash }),
      );
    }),
  );

  const back = '/dashboard/webhooks';

  scope.post(
    '/dashboard/webhooks/destination',
    DASHBOARD_ROUTE,
    guards.developerAction(back, async (_request, session, form) => {
      const url = field(form, 'url').trim();
      const result = await webhooks.setDestination(session.developer.id, { url });
      await ctx.dashboard.audit(session, { action: 'webhook.set-url', target: url });
      return {
        redirect: back,
        notice: `Destination saved${result.replayed ? `; ${result.replayed} held events are being delivered` : ''}.`,
      };
    }),
  );

  for (const [path, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    scope.post(
      `/dashboard/webhooks/${path}`,
      DASHBOARD_ROUTE,
      guards.developerAction(back, async (_request, session) => {
        await webhooks.setDestination(session.developer.id, { enabled });
        await ctx.dashboard.audit(session, { action: `webhook.${path}` });
        return {
          redirect: back,
          notice: enabled ? 'Destination enabled.' : 'Destination disabled; events are held.',
        };
      }),
    );
  }

  scope.post(
    '/dashboard/webhooks/test',
    DASHBOARD_ROUTE,
    guards.developerAction(back, async (_request, session) => {
      const { eventId } = await webhooks.sendTest(session.developer.id);
      await ctx.dashboard.audit(session, { action: 'webhook.test', target: eventId });
      return { redirect: back, notice: `Test event ${eventId} queued.` };
    }),
  );

  // The new secret is in this response only: never in a redirect, a cookie or the log.
  scope.post(
    '/dashboard/webhooks/rotate-secret',
    DASHBOARD_ROUTE,
    guards.developerAction(back, async (_request, session) => {
      const rotated = await webhooks.rotateSecret(session.developer.id);
      await ctx.dashboard.audit(session, { action: 'webhook.rotate-secret' });
      const body = html`<section class="card"><h2>New signing secret</h2><p>Copy it now: it will not be shown again.</p>
<p class="secret"><code id="new-secret">${rotated.secret}</code></p>
<p class="muted">The previous secret keeps signing until ${when(rotated.previousSecretExpiresAt)}.</p>
<p><a href="${back}">Back to webhooks</a></p></section>`;
      return { html: renderDashboardPage({ session, page: 'webhooks', title: 'Secret rotated', body }) };
    }),
  );

  scope.post(
    '/dashboard/webhooks/replay',
    DASHBOARD_ROUTE,
    guards.developerAction(back, async (_request, session, form) => {
      const one = field(form, 'one');
      const ids = one ? [one] : [...new Set(fields(form, 'selected'))];
      if (ids.length === 0) throw invalidParameter('selected', 'pick at least one event to replay');
      if (ids.length > MAX_REPLAY)
        throw invalidParameter('selected', `replay at most ${MAX_REPLAY} events at once`);
      for (const id of ids) {
        await webhooks.replay(session.developer.id, id);
        await ctx.dashboard.audit(session, { action: 'webhook.replay', target: id });
      }
      return { redirect: back, notice: `${ids.length} event${ids.length === 1 ? '' : 's'} queued again.` };
    }),
  );
}
