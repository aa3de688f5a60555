// The destinations pages: the list of every destination of the developer (the primary webhook
// first) with a form to add one, and one page per destination (`/dashboard/destinations/{id}`):
// its status, held events and recent failures, its URL (a webhook's) and signing secret, enable,
// disable, test send, delete, and its delivery log with filters, replay and each event's body and
// attempts. `/dashboard/webhooks` is that page for the primary webhook, as `/v2/webhook` is the
// API's alias for it: the same page and actions, the destination found from the developer.
// Secrets are never shown: settings appear as the API returns them, a new secret once. The
// page's POST actions are in destination-actions.ts.
import type { AppContext } from '../../features/context.ts';
import type { DeliveryRecord } from '../../features/delivery/deliveries.ts';
import type { DestinationView } from '../../features/delivery/destination-management.ts';
import { settingsOfKind } from '../../features/delivery/destination-kinds.ts';
import { WEBHOOK_EVENT_STATUSES } from '../../features/delivery/tables.ts';
import { invalidParameter } from '../../core/errors.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, type DeveloperSession, field, type Guards, queryField, sendPage } from './guard.ts';
import { confirmButton, csrfField, postButton, renderDashboardPage, statusPill, when } from './layout.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { type DestinationPlace, registerDestinationActions, secretPage } from './destination-actions.ts';

const PERIODS: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 };
const LIST = '/dashboard/destinations';
const PRIMARY = '/dashboard/webhooks';

const KIND_HELP: Record<string, string> = {
  webhook: '{"url": "https://example.com/hooks"} (a second webhook, with a signing secret of its own)',
  postgresql: '{"url": "postgres://user:password@host:5432/database", "schema": "tributary"}',
  s3: '{"bucket": "my-bucket", "access_key_id": "…", "secret_access_key": "…", "endpoint": "https://…", "prefix": "health/"}',
  nats: '{"url": "nats://user:password@host:4222", "subject": "tributary", "stream": "TRIBUTARY"}',
};

const destinationTone = (status: string) =>
  status === 'active' ? 'ok' : status === 'failing' ? 'warn' : 'bad';

function tone(status: string): 'ok' | 'warn' | 'bad' | 'plain' {
  if (status === 'delivered') return 'ok';
  if (status === 'failed' || status === 'rejected') return 'bad';
  if (status === 'pending' || status === 'held') return 'warn';
  return 'plain';
}

/** A kind with signing secrets (a webhook): its URL is set on its page, and its secret rotated there. */
const signed = (view: DestinationView) => settingsOfKind(view.kind).signed === true;

function attemptsHtml(record: DeliveryRecord): SafeHtml {
  if (record.attempts.length === 0) return html`<p class="muted">No attempt yet.</p>`;
  return html`<table><thead><tr><th>#</th><th>At</th><th>Request</th><th>Response</th><th>Took</th><th>Outcome</th><th>Next attempt</th></tr></thead><tbody>${record.attempts.map(
    (attempt) =>
      html`<tr><td>${attempt.attempt}</td><td>${when(attempt.attemptedAt)}</td><td class="mono">POST ${attempt.url}</td><td>${attempt.statusCode === null ? '' : `HTTP ${attempt.statusCode}`} ${attempt.error ?? ''}</td><td>${attempt.durationMs} ms</td><td>${attempt.outcome}</td><td>${when(attempt.nextAttemptAt)}</td></tr>`,
  )}</tbody></table>`;
}

/**
 * A delivery log as a table; with `replayTo` (a destination page's path), one form around it: a
 * checkbox per event for "replay selected" and a button per row for one (a button's own
 * name/value is sent only when it is the one pressed).
 */
export function deliveryTable(
  session: DeveloperSession,
  deliveries: DeliveryRecord[],
  replayTo: string | null,
  empty: SafeHtml = html`No events.`,
  base: string = PRIMARY,
): SafeHtml {
  if (deliveries.length === 0) return html`<p class="muted">${empty}</p>`;
  const replay = replayTo !== null;
  const rows = deliveries.map(
    (record) =>
      html`<tr>${replay ? html`<td><input type="checkbox" name="selected" value="${record.eventId}" aria-label="Select ${record.eventId}"></td>` : ''}<td>${when(record.createdAt)}</td><td>${record.type}</td><td>${statusPill(record.status, tone(record.status))}</td><td class="mono">${record.userId ? html`<a href="/dashboard/users/${record.userId}">${record.userId.slice(0, 8)}\u2026</a>` : '—'}</td><td>${record.attemptCount}</td><td>${record.lastStatusCode ?? ''} ${record.lastError ?? ''}</td><td><details><summary>Attempts</summary><p class="mono">webhook-id ${record.eventId}</p>${attemptsHtml(record)}<p><a href="${base}/events/${encodeURIComponent(record.eventId)}">Request body and headers</a></p></details></td>${replay ? html`<td><button type="submit" class="secondary" name="one" value="${record.eventId}">Replay</button></td>` : ''}</tr>`,
  );
  const table = html`<table><thead><tr>${replay ? html`<th><span class="muted">Pick</span></th>` : ''}<th>Created</th><th>Type</th><th>Status</th><th>User</th><th>Attempts</th><th>Last response</th><th>Details</th>${replay ? html`<th></th>` : ''}</tr></thead><tbody>${rows}</tbody></table>`;
  if (!replay) return table;
  return html`<form method="post" action="${replayTo}/replay">${csrfField(session)}${table}<p><button type="submit" class="primary">Replay selected</button></p></form>`;
}

function recovery(status: string): string {
  if (status === 'failing')
    return 'Deliveries are failing and are being retried. Fix your endpoint; the next success clears the streak. Replay failed events below once it answers 2xx.';
  if (status === 'disabled')
    return 'The destination is disabled: events are held. Enable it (or save a working URL) to deliver every held event.';
  return '';
}

export function registerDestinationPages(scope: App, ctx: AppContext, guards: Guards) {
  const { destinations } = ctx.webhooks;
  const places: DestinationPlace[] = [
    {
      route: `${LIST}/:id`,
      nav: 'destinations',
      title: 'Destination',
      idOf: (request) => (request.params as { id: string }).id,
      path: (id) => `${LIST}/${id}`,
      home: LIST,
      audit: 'destination',
      setUrl: (developerId, id, url) =>
        destinations.update(developerId, id, { settings: { url }, enabled: true }),
    },
    {
      route: PRIMARY,
      nav: 'webhooks',
      title: 'Webhooks',
      idOf: (_request, developerId) => destinations.primaryId(developerId),
      path: () => PRIMARY,
      home: PRIMARY,
      audit: 'webhook',
      setUrl: (developerId, _id, url) => ctx.webhooks.setDestination(developerId, { url }),
    },
  ];

  scope.get(
    LIST,
    DASHBOARD_ROUTE,
    guards.developerPage(async (_request, reply, session, flash) => {
      const list = await destinations.list(session.developer.id);
      const rows = list.map(
        (view) =>
          html`<tr><td><a href="${view.primary ? PRIMARY : `${LIST}/${view.id}`}">${view.name ?? (view.primary ? 'webhook (primary)' : view.kind)}</a></td><td>${view.kind}</td><td class="mono">${JSON.stringify(view.settings)}</td><td>${view.eventTypes?.join(', ') ?? 'all'}</td><td>${statusPill(view.status, destinationTone(view.status))}</td><td>${view.heldEvents}</td><td>${view.recentFailures}</td><td>${when(view.lastSuccessAt)}</td></tr>`,
      );
      const others = list.filter((view) => !view.primary).length;
      const body = html`<section class="card"><h2>Destinations</h2>
<p class="muted">Every event goes to your <a href="${PRIMARY}">webhook</a>, and can go to more: other webhooks, your PostgreSQL, S3-compatible storage or a NATS JetStream stream, with the same retries, holds and replay, each optionally for some event types only (docs/destinations.md).</p>
<table><thead><tr><th>Name</th><th>Kind</th><th>Settings</th><th>Event types</th><th>Status</th><th>Held</th><th>Failures 24 h</th><th>Last success</th></tr></thead><tbody>${rows}</tbody></table>
${others === 0 ? html`<p class="muted">No destinations yet besides the webhook: add one below.</p>` : ''}</section>
<section class="card"><h2>Add a destination</h2>
<form method="post" action="${LIST}/add">${csrfField(session)}
<p><label for="kind">Kind</label><select id="kind" name="kind">${Object.keys(KIND_HELP).map((kind) => html`<option value="${kind}">${kind}</option>`)}</select></p>
<p><label for="name">Name</label><input id="name" name="name" type="text" size="30" maxlength="200"></p>
<p><label for="settings">Settings (JSON)</label><textarea id="settings" name="settings" rows="4" cols="70" required></textarea></p>
<ul class="muted">${Object.entries(KIND_HELP).map(([kind, help]) => html`<li>${kind}: <code>${help}</code></li>`)}</ul>
<button type="submit" class="primary">Add destination</button></form></section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'destinations', title: 'Destinations', body, flash }),
      );
    }),
  );

  scope.post(
    `${LIST}/add`,
    DASHBOARD_ROUTE,
    guards.developerAction(LIST, async (_request, session, form) => {
      let settings: unknown;
      try {
        settings = JSON.parse(field(form, 'settings'));
      } catch {
        throw invalidParameter('settings', 'expected a JSON object');
      }
      const name = field(form, 'name').trim();
      const created = await destinations.create(session.developer.id, {
        kind: field(form, 'kind'),
        settings,
        ...(name ? { name } : {}),
      });
      await ctx.dashboard.audit(session, { action: 'destination.add', target: created.id });
      if (created.secret === undefined)
        return { redirect: LIST, notice: `Destination ${created.name ?? created.kind} added.` };
      return { html: secretPage(session, 'New webhook', created.secret, null, `${LIST}/${created.id}`) };
    }),
  );

  for (const place of places) registerDestinationPage(place);

  function registerDestinationPage(place: DestinationPlace) {
    scope.get(
      place.route,
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
        const since = period
          ? new Date(ctx.clock.now().getTime() - PERIODS[period]!).toISOString()
          : undefined;
        const devId = session.developer.id;
        const id = await place.idOf(request, devId);
        const [view, page] = await Promise.all([
          destinations.get(devId, id),
          destinations.deliveries(devId, id, {
            ...(status ? { status } : {}),
            ...(type ? { type } : {}),
            ...(userId ? { userId } : {}),
            ...(since ? { since } : {}),
            limit: 50,
          }),
        ]);
        const here = place.path(id);
        const option = (value: string, label: string, current: string) =>
          html`<option value="${value}"${value === current ? ' selected' : ''}>${label}</option>`;
        const webhook = signed(view);
        const url = typeof view.settings.url === 'string' ? view.settings.url : null;
        const body = html`<section class="card"><h2>${view.primary ? 'Destination' : (view.name ?? view.kind)}</h2>
<p>Status: ${statusPill(view.status, destinationTone(view.status))} \u00b7 ${view.recentFailures} failed attempts in 24 h \u00b7 ${view.heldEvents} held events \u00b7 last success ${when(view.lastSuccessAt)}</p>
${recovery(view.status) ? html`<p class="error">${recovery(view.status)}</p>` : ''}
${
  webhook
    ? html`<form method="post" action="${here}/destination" class="row">${csrfField(session)}
<div><label for="url">Destination URL</label><input id="url" name="url" type="url" size="50" value="${url ?? ''}" required></div>
<button type="submit" class="primary">Save URL</button></form>`
    : html`<p class="mono">${view.kind} ${JSON.stringify(view.settings)}</p>`
}
<p>Event types: ${view.eventTypes?.join(', ') ?? 'all'}</p>
<p class="row">${view.status === 'disabled' ? postButton(session, `${here}/enable`, 'Enable destination', { style: 'primary' }) : postButton(session, `${here}/disable`, 'Disable destination')}
${postButton(session, `${here}/test`, 'Send test event', { style: 'primary' })}${view.primary ? '' : confirmButton(session, `${here}/delete`, 'Delete', 'Delete this destination and its delivery log?')}</p>
${webhook ? html`<p>Events go out in your <a href="/dashboard/output-format">output format</a> (JSON unless you chose FHIR or FIT).</p>` : ''}</section>
${
  webhook
    ? html`<section class="card"><h2>Signing secret</h2><p class="muted">The secret is shown once: when it was made and after each rotation. Rotating keeps the previous secret signing for 24 hours${view.previousSecretExpiresAt ? html` (current overlap ends ${when(view.previousSecretExpiresAt)})` : ''}.</p>
${confirmButton(session, `${here}/rotate-secret`, 'Rotate secret', 'Make a new signing secret? It is shown only once.')}</section>`
    : ''
}
<section class="card"><h2>Delivery log</h2>
<form method="get" action="${here}" class="row">
<div><label for="f-type">Event type</label><input id="f-type" name="type" type="text" value="${type}" size="16"></div>
<div><label for="f-status">Status</label><select id="f-status" name="status">${option('', 'any', status)}${WEBHOOK_EVENT_STATUSES.map((value) => option(value, value, status))}</select></div>
<div><label for="f-user">User id</label><input id="f-user" name="user_id" type="text" value="${userId}" size="24"></div>
<div><label for="f-period">Time</label><select id="f-period" name="period">${option('', 'any time', period)}${option('1h', 'last hour', period)}${option('24h', 'last 24 hours', period)}${option('7d', 'last 7 days', period)}</select></div>
<button type="submit" class="secondary">Filter</button></form>
${deliveryTable(
  session,
  page.deliveries,
  here,
  status || type || userId || period
    ? html`No events match these filters. <a href="${here}">Show every event</a>.`
    : html`No events yet. ${url ? html`Press <strong>Send test event</strong> above` : html`Set a destination URL above, then press <strong>Send test event</strong>`}${view.primary ? html`, or run <code>npx tributary listen</code> on your machine to receive them there` : ''}. Data events follow once a user connects.`,
  here,
)}
${view.primary ? '' : html`<p><a href="${LIST}">Back to destinations</a></p>`}</section>`;
        return sendPage(
          reply,
          200,
          renderDashboardPage({ session, page: place.nav, title: place.title, body, flash }),
        );
      }),
    );

    // One event: the exact body it is signed and delivered with, the headers that go with it, its attempts.
    scope.get(
      `${place.route}/events/:event_id`,
      DASHBOARD_ROUTE,
      guards.developerPage(async (request, reply, session, flash) => {
        const { event_id: eventId } = request.params as { event_id: string };
        const id = await place.idOf(request, session.developer.id);
        const here = place.path(id);
        const { record, body } = await destinations.delivery(session.developer.id, id, eventId);
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
<form method="post" action="${here}/replay">${csrfField(session)}<button type="submit" class="primary" name="one" value="${record.eventId}">Replay</button></form>
<p><a href="${here}">Back to the delivery log</a></p></section>`;
        return sendPage(
          reply,
          200,
          renderDashboardPage({ session, page: place.nav, title: 'Webhook event', body: page, flash }),
        );
      }),
    );

    registerDestinationActions(scope, ctx, guards, place);
  }
}
