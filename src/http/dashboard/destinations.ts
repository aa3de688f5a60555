// The Destinations page: every destination of the developer (the webhook has its own page), its
// status, held events and recent failures, with the actions of /v2/destinations: add (a kind and
// its settings as JSON), enable/disable, test send, delete, and each destination's delivery log
// with replay. Secrets are never shown: settings appear as the API returns them.
import type { AppContext } from '../../features/context.ts';
import { invalidParameter } from '../../core/errors.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, field, type Guards, sendPage } from './guard.ts';
import { confirmButton, csrfField, postButton, renderDashboardPage, statusPill, when } from './layout.ts';
import { html } from '../safe-html.ts';

const KIND_HELP: Record<string, string> = {
  postgresql: '{"url": "postgres://user:password@host:5432/database", "schema": "tributary"}',
  s3: '{"bucket": "my-bucket", "access_key_id": "…", "secret_access_key": "…", "endpoint": "https://…", "prefix": "health/"}',
  nats: '{"url": "nats://user:password@host:4222", "subject": "tributary", "stream": "TRIBUTARY"}',
};

const tone = (status: string) => (status === 'active' ? 'ok' : status === 'failing' ? 'warn' : 'bad');
const eventTone = (status: string) =>
  status === 'delivered'
    ? 'ok'
    : status === 'failed' || status === 'rejected'
      ? 'bad'
      : status === 'pending' || status === 'held'
        ? 'warn'
        : 'plain';

export function registerDestinationPages(scope: App, ctx: AppContext, guards: Guards) {
  const destinations = ctx.webhooks.destinations;
  const back = '/dashboard/destinations';
  const idOf = (request: { params: unknown }) => (request.params as { id: string }).id;

  scope.get(
    back,
    DASHBOARD_ROUTE,
    guards.developerPage(async (_request, reply, session, flash) => {
      // The primary webhook has its own page; secondary webhooks are listed here with the other kinds.
      const list = (await destinations.list(session.developer.id)).filter((view) => !view.primary);
      const rows = list.map(
        (view) =>
          html`<tr><td><a href="/dashboard/destinations/${view.id}">${view.name ?? view.kind}</a></td><td>${view.kind}</td><td class="mono">${JSON.stringify(view.settings)}</td><td>${view.eventTypes?.join(', ') ?? 'all'}</td><td>${statusPill(view.status, tone(view.status))}</td><td>${view.heldEvents}</td><td>${view.recentFailures}</td><td>${when(view.lastSuccessAt)}</td><td class="row">${
            view.status === 'disabled'
              ? postButton(session, `/dashboard/destinations/${view.id}/enable`, 'Enable', {
                  style: 'primary',
                })
              : postButton(session, `/dashboard/destinations/${view.id}/disable`, 'Disable')
          }${postButton(session, `/dashboard/destinations/${view.id}/test`, 'Send test event')}${confirmButton(
            session,
            `/dashboard/destinations/${view.id}/delete`,
            'Delete',
            'Delete this destination and its delivery log?',
          )}</td></tr>`,
      );
      const body = html`<section class="card"><h2>Destinations</h2>
<p class="muted">Besides the <a href="/dashboard/webhooks">webhook</a>, every event can go straight into your PostgreSQL, S3-compatible storage or a NATS JetStream stream, with the same retries, holds and replay (docs/destinations.md).</p>
${list.length === 0 ? html`<p class="muted">No destinations yet: add one below.</p>` : html`<table><thead><tr><th>Name</th><th>Kind</th><th>Settings</th><th>Event types</th><th>Status</th><th>Held</th><th>Failures 24 h</th><th>Last success</th><th></th></tr></thead><tbody>${rows}</tbody></table>`}</section>
<section class="card"><h2>Add a destination</h2>
<form method="post" action="/dashboard/destinations/add">${csrfField(session)}
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

  scope.get(
    `${back}/:id`,
    DASHBOARD_ROUTE,
    guards.developerPage(async (request, reply, session, flash) => {
      const id = idOf(request);
      const [view, page] = await Promise.all([
        destinations.get(session.developer.id, id),
        destinations.deliveries(session.developer.id, id, { limit: 50 }),
      ]);
      const rows = page.deliveries.map(
        (record) =>
          html`<tr><td>${when(record.createdAt)}</td><td>${record.type}</td><td class="mono">${record.eventId}</td><td>${statusPill(record.status, eventTone(record.status))}</td><td>${record.attemptCount}</td><td>${record.lastError ?? ''}</td><td>${postButton(session, `/dashboard/destinations/${id}/replay`, 'Replay', { fields: { event_id: record.eventId } })}</td></tr>`,
      );
      const body = html`<section class="card"><h2>${view.name ?? view.kind} ${statusPill(view.status, tone(view.status))}</h2>
<p class="mono">${view.kind} ${JSON.stringify(view.settings)}</p>
<p>${view.recentFailures} failed attempts in 24 h · ${view.heldEvents} held events · last success ${when(view.lastSuccessAt)}</p>
<h3>Delivery log</h3>${page.deliveries.length === 0 ? html`<p class="muted">No events yet.</p>` : html`<table><thead><tr><th>Created</th><th>Type</th><th>Event id</th><th>Status</th><th>Attempts</th><th>Last error</th><th></th></tr></thead><tbody>${rows}</tbody></table>`}
<p><a href="${back}">Back to destinations</a></p></section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'destinations', title: 'Destination', body, flash }),
      );
    }),
  );

  scope.post(
    `${back}/add`,
    DASHBOARD_ROUTE,
    guards.developerAction(back, async (_request, session, form) => {
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
      return { redirect: back, notice: `Destination ${created.name ?? created.kind} added.` };
    }),
  );

  for (const [path, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    scope.post(
      `${back}/:id/${path}`,
      DASHBOARD_ROUTE,
      guards.developerAction(back, async (request, session) => {
        const result = await destinations.update(session.developer.id, idOf(request), { enabled });
        await ctx.dashboard.audit(session, { action: `destination.${path}`, target: result.id });
        return {
          redirect: back,
          notice: enabled
            ? `Destination enabled${result.replayed ? `; ${result.replayed} held events are being delivered` : ''}.`
            : 'Destination disabled; its events are held.',
        };
      }),
    );
  }

  scope.post(
    `${back}/:id/test`,
    DASHBOARD_ROUTE,
    guards.developerAction(back, async (request, session) => {
      const { eventId } = await destinations.sendTest(session.developer.id, idOf(request));
      await ctx.dashboard.audit(session, { action: 'destination.test', target: eventId });
      return { redirect: back, notice: `Test event ${eventId} queued.` };
    }),
  );

  scope.post(
    `${back}/:id/delete`,
    DASHBOARD_ROUTE,
    guards.developerAction(back, async (request, session) => {
      await destinations.remove(session.developer.id, idOf(request));
      await ctx.dashboard.audit(session, { action: 'destination.delete', target: idOf(request) });
      return { redirect: back, notice: 'Destination deleted.' };
    }),
  );

  scope.post(
    `${back}/:id/replay`,
    DASHBOARD_ROUTE,
    guards.developerAction(back, async (request, session, form) => {
      const id = idOf(request);
      const eventId = field(form, 'event_id');
      await destinations.replay(session.developer.id, id, eventId);
      await ctx.dashboard.audit(session, { action: 'destination.replay', target: eventId });
      return { redirect: `${back}/${id}`, notice: `Event ${eventId} queued again.` };
    }),
  );
}
