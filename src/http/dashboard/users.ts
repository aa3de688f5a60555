import { isUuid } from '../../features/connections/service.ts';
import type { DetailedWireUser, WireUser } from '../../features/connections/service.ts';
import type { AppContext } from '../../features/context.ts';
import { AppError, invalidParameter, notFound } from '../../core/errors.ts';
import { type DataTypeName, dataTypeNames } from '../../model/index.ts';
import type { App } from '../app-type.ts';
import { deliveryTable } from './destinations.ts';
import { LAB_REPORTS_ON_USER_PAGE, labReportsCard } from './lab-reports.ts';
import { DASHBOARD_ROUTE, field, type Guards, queryField, sendPage } from './guard.ts';
import { confirmButton, csrfField, renderDashboardPage, statusPill, when } from './layout.ts';
import { html, type SafeHtml } from '../safe-html.ts';

const DATA_TYPES: readonly string[] = dataTypeNames;

const orDash = (value: string | null) => value || '—';

/** What to do when a developer has no user yet: the ways a connection is made. */
const NO_USERS_YET = html`No users yet. A user appears when a person connects an account: open the hosted connect widget (<code>POST /v2/auth/generateWidgetSession</code>) or send them an auth link (<code>POST /v2/auth/authenticateUser</code>). On a sandbox developer, <code>npx tributary sandbox connect --dev-id &lt;your dev-id&gt;</code> connects one at once.`;

function userRows(users: (WireUser | DetailedWireUser)[], empty: SafeHtml = NO_USERS_YET): SafeHtml {
  if (users.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<table><thead><tr><th>User id</th><th>Reference id</th><th>Provider</th><th>Active</th><th>Created</th><th>Last webhook update</th></tr></thead><tbody>${users.map(
    (user) =>
      html`<tr><td class="mono"><a href="/dashboard/users/${user.user_id}">${user.user_id}</a></td><td>${orDash(user.reference_id)}</td><td>${user.provider}</td><td>${user.active ? 'yes' : 'no'}</td><td>${when(user.created_at)}</td><td>${when(user.last_webhook_update)}</td></tr>`,
  )}</tbody></table>`;
}

export function registerUserPages(scope: App, ctx: AppContext, guards: Guards) {
  scope.get(
    '/dashboard/users',
    DASHBOARD_ROUTE,
    guards.developerPage(async (request, reply, session, flash) => {
      const q = queryField(request, 'q').trim().slice(0, 255);
      const devId = session.developer.id;
      let heading = 'Newest users';
      let users: (WireUser | DetailedWireUser)[];
      if (q === '') {
        users = await ctx.connections.recent(devId, 25);
      } else {
        heading = `Users matching “${q}”`;
        // A UUID is tried as a user id first, then as a reference id (references are free text).
        users = [];
        if (isUuid(q)) {
          try {
            const found = await ctx.connections.userInfo(devId, { user_id: q });
            if (found.kind === 'one') users = [found.user];
          } catch (error) {
            if (!(error instanceof AppError && error.kind === 'not_found')) throw error;
          }
        }
        if (users.length === 0) {
          const found = await ctx.connections.userInfo(devId, { reference_id: q });
          users = found.kind === 'many' ? found.users : [found.user];
        }
      }
      const body = html`<section class="card"><form method="get" action="/dashboard/users" role="search" class="row">
<div><label for="q">User id or reference id</label><input id="q" name="q" type="text" value="${q}" size="40"></div>
<button type="submit" class="primary">Search</button></form></section>
<section class="card"><h2>${heading}</h2>${userRows(users, q === '' ? NO_USERS_YET : html`No user has this user id or reference id. Search by a whole user id (a UUID) or by your own reference id exactly as your app sent it. <a href="/dashboard/users">Show the newest users</a>.`)}</section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'users', title: 'Users', body, flash }),
      );
    }),
  );

  scope.get(
    '/dashboard/users/:user_id',
    DASHBOARD_ROUTE,
    guards.developerPage(async (request, reply, session, flash) => {
      const { user_id: userId } = request.params as { user_id: string };
      const devId = session.developer.id;
      // The same lookup as GET /v2/userInfo: another developer's user is simply not found.
      let info;
      try {
        info = await ctx.connections.userInfo(devId, { user_id: userId });
      } catch (error) {
        if (error instanceof AppError && error.status < 500) {
          return sendPage(
            reply,
            error.status,
            renderDashboardPage({
              session,
              page: 'users',
              title: 'User not found',
              body: html`<p>${error.message}</p><p><a href="/dashboard/users">Back to users</a></p>`,
            }),
          );
        }
        throw error;
      }
      if (info.kind !== 'one') throw notFound(`no user with user_id ${userId}`);
      const user = info.user;
      const [health, events, siblings, labReports, gaps] = await Promise.all([
        ctx.providerAccess.tokenHealth([user.user_id]),
        ctx.webhooks.listDeliveries(devId, { userId: user.user_id, limit: 20 }),
        // The end user's other connections: the same reference id, other providers.
        user.reference_id
          ? ctx.connections.userInfo(devId, { reference_id: user.reference_id })
          : Promise.resolve(undefined),
        // Lab reports are uploaded under a reference id, not a user: the end user's are theirs.
        user.reference_id
          ? ctx.labReports.withResultsFor(session.developer, user.reference_id, LAB_REPORTS_ON_USER_PAGE)
          : Promise.resolve([]),
        // Companion data the provider refused to serve for this connection: records lack it.
        ctx.data.unreadableCompanions(user.user_id),
      ]);
      const others =
        siblings?.kind === 'many' ? siblings.users.filter((other) => other.user_id !== user.user_id) : [];
      const tokenHealth = health.get(user.user_id);
      const healthText = !info.isAuthenticated
        ? statusPill('not authenticated', 'bad')
        : tokenHealth && tokenHealth.consecutiveFailures > 0
          ? html`${statusPill(`${tokenHealth.consecutiveFailures} refresh failures`, 'warn')} <span class="muted">${tokenHealth.lastError ?? ''}</span>`
          : statusPill('healthy', 'ok');
      const base = `/dashboard/users/${encodeURIComponent(user.user_id)}`;
      const today = ctx.clock.now().toISOString().slice(0, 10);
      const weekAgo = new Date(ctx.clock.now().getTime() - 7 * 86_400_000).toISOString().slice(0, 10);
      const body = html`<section class="card"><h2>Connection</h2><table><tbody>
<tr><th>User id</th><td class="mono">${user.user_id}</td></tr>
<tr><th>Reference id</th><td>${orDash(user.reference_id)}</td></tr>
<tr><th>Provider</th><td>${user.provider}</td></tr>
<tr><th>Created</th><td>${when(user.created_at)}</td></tr>
<tr><th>Last webhook update</th><td>${when(user.last_webhook_update)}</td></tr>
<tr><th>Scopes</th><td>${orDash(user.scopes)}</td></tr>
<tr><th>Active</th><td>${user.active ? 'yes' : 'no (data events are held back)'}</td></tr>
<tr><th>Token health</th><td>${healthText}</td></tr>
<tr><th>Most recent data</th><td>${when(user.most_recent_data_at)}</td></tr>
<tr><th>Not served by the provider</th><td>${
        gaps.length === 0
          ? html`<span class="muted">nothing</span>`
          : html`<ul class="plain">${gaps.map(
              (gap) =>
                html`<li>${statusPill(gap.kind, 'warn')} ${gap.type} records come without it: ${user.provider} answered ${String(gap.status)} (since ${when(gap.recorded_at)})</li>`,
            )}</ul>`
      }</td></tr>
</tbody></table></section>
${others.length ? html`<section class="card"><h2>Other connections of this reference id</h2>${userRows(others)}</section>` : ''}
<section class="card"><h2>Request a historical read</h2><p class="muted">Reads the range from the provider and sends it to your webhook (the same as GET /v2/{type}?to_webhook=true).</p>
<form method="post" action="${base}/historical-read" class="row">${csrfField(session)}
<div><label for="type">Data type</label><select id="type" name="type">${DATA_TYPES.map((type) => html`<option>${type}</option>`)}</select></div>
<div><label for="start_date">Start date</label><input id="start_date" name="start_date" type="text" value="${weekAgo}" size="11"></div>
<div><label for="end_date">End date</label><input id="end_date" name="end_date" type="text" value="${today}" size="11"></div>
<button type="submit" class="primary">Request historical read</button></form></section>
<section class="card"><h2>Deauthenticate</h2><p class="muted">Revokes access at the provider, deletes the user and its data, and sends the deauth webhook.</p>
${confirmButton(session, `${base}/deauthenticate`, 'Deauthenticate user', `Deauthenticate ${user.user_id}? This cannot be undone.`)}</section>
${labReportsCard(session, labReports, base)}
<section class="card"><h2>Recent data events</h2>${deliveryTable(session, events.deliveries, null, html`No data events for this user yet. They are sent as the provider's data arrives, or when you request a historical read below.`)}</section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'users', title: 'User', body, flash }),
      );
    }),
  );

  scope.post(
    '/dashboard/users/:user_id/historical-read',
    DASHBOARD_ROUTE,
    guards.developerAction('/dashboard/users', async (request, session, form) => {
      const { user_id: userId } = request.params as { user_id: string };
      const type = field(form, 'type');
      if (!DATA_TYPES.includes(type))
        throw invalidParameter('type', `expected one of ${DATA_TYPES.join(', ')}`);
      const result = await ctx.data.read(session.developer, {
        type: type as DataTypeName,
        userId,
        query: {
          start_date: field(form, 'start_date'),
          end_date: field(form, 'end_date'),
          to_webhook: 'true',
        },
        version: 'v2',
      });
      const reference = result.headers['service-reference'] ?? '';
      await ctx.dashboard.audit(session, { action: 'historical-read', target: `user ${userId} ${type}` });
      return {
        redirect: `/dashboard/users/${encodeURIComponent(userId)}`,
        notice: `Historical ${type} read requested (reference ${reference}); the data arrives on your webhook.`,
      };
    }),
  );

  scope.post(
    '/dashboard/users/:user_id/deauthenticate',
    DASHBOARD_ROUTE,
    guards.developerAction('/dashboard/users', async (request, session) => {
      const { user_id: userId } = request.params as { user_id: string };
      await ctx.connecting.deauthenticate(session.developer.id, userId);
      await ctx.dashboard.audit(session, { action: 'deauthenticate', target: `user ${userId}` });
      return { redirect: '/dashboard/users', notice: `User ${userId} was deauthenticated.` };
    }),
  );
}
