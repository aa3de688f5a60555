import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, field, type Guards, sendPage } from './guard.ts';
import { confirmButton, postButton, renderDashboardPage, statusPill, when } from './layout.ts';
import { html } from '../safe-html.ts';

/** The keys as the CLI manages them (developers service): list, create (shown once), revoke. */
export function registerKeyPages(scope: App, ctx: AppContext, guards: Guards) {
  scope.get(
    '/dashboard/keys',
    DASHBOARD_ROUTE,
    guards.developerPage(async (_request, reply, session, flash) => {
      const keys = await ctx.developers.listKeys(session.developer.id);
      const rows = keys.map(
        (key) =>
          html`<tr><td class="mono">${key.id}</td><td class="mono">${key.display_prefix}</td><td>${when(key.created_at)}</td><td>${key.revoked_at ? html`${statusPill('revoked', 'bad')} ${when(key.revoked_at)}` : statusPill('live', 'ok')}${key.id === session.keyId ? html` <span class="muted">(this session)</span>` : ''}</td><td>${key.revoked_at ? '' : confirmButton(session, '/dashboard/keys/revoke', `Revoke ${key.id}`, key.id === session.keyId ? 'This session was signed in with this key: revoking it signs you out.' : 'Requests with this key will be refused at once.', { key_id: key.id })}</td></tr>`,
      );
      const body = html`<section class="card">${postButton(session, '/dashboard/keys/create', 'Create API key', { style: 'primary' })}</section>
<section class="card"><table><thead><tr><th>Key id</th><th>Starts with</th><th>Created</th><th>State</th><th></th></tr></thead><tbody>${rows}</tbody></table></section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'keys', title: 'API keys', body, flash }),
      );
    }),
  );

  scope.post(
    '/dashboard/keys/create',
    DASHBOARD_ROUTE,
    guards.developerAction('/dashboard/keys', async (_request, session) => {
      const created = await ctx.developers.createKey(session.developer.id);
      await ctx.dashboard.audit(session, { action: 'key.create', target: created.id });
      const body = html`<section class="card"><h2>New API key ${created.id}</h2><p>Copy it now: it will not be shown again.</p>
<p class="secret"><code id="new-key">${created.apiKey}</code></p><p><a href="/dashboard/keys">Back to API keys</a></p></section>`;
      return { html: renderDashboardPage({ session, page: 'keys', title: 'API key created', body }) };
    }),
  );

  scope.post(
    '/dashboard/keys/revoke',
    DASHBOARD_ROUTE,
    guards.developerAction('/dashboard/keys', async (_request, session, form) => {
      const keyId = field(form, 'key_id');
      await ctx.developers.revokeKey(session.developer.id, keyId);
      await ctx.dashboard.audit(session, { action: 'key.revoke', target: keyId });
      return { redirect: '/dashboard/keys', notice: `Key ${keyId} revoked.` };
    }),
  );
}
