import type { AppContext } from '../../features/context.ts';
import { oauthCallbackUrl } from '../../provider-kit/callback-url.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, fields, type Guards, sendPage } from './guard.ts';
import { csrfField, postButton, renderDashboardPage, statusPill } from './layout.ts';
import { html } from '../safe-html.ts';

const SETUP_TEXT: Record<string, string> = {
  BUILT_IN: 'built in',
  SDK: 'mobile SDK',
  API_KEYS_MANAGED: 'credentials present',
  NOT_CONFIGURED: 'no credentials',
  DISABLED: 'disabled by the operator',
};

export function registerProviderPages(scope: App, ctx: AppContext, guards: Guards) {
  scope.get(
    '/dashboard/providers',
    DASHBOARD_ROUTE,
    guards.developerPage(async (_request, reply, session, flash) => {
      const devId = session.developer.id;
      const [states, selection] = await Promise.all([
        ctx.integrations.forDeveloper(devId),
        ctx.widget.providerSelection(devId),
      ]);
      const offerable = states.filter(
        (state) => state.enabled && ctx.providers.get(state.provider)?.declaration.authKind !== 'sdk',
      );
      const checked = (id: string) => (selection === null || selection.includes(id) ? ' checked' : '');
      const choices = offerable.map(
        (state) =>
          html`<li><label><input type="checkbox" name="providers" value="${state.provider}"${checked(state.provider)}> ${ctx.providers.get(state.provider)?.declaration.name ?? state.provider} <span class="muted mono">${state.provider}</span></label></li>`,
      );
      const rows = states.map((state) => {
        const provider = ctx.providers.get(state.provider);
        const notifications =
          provider?.declaration.authKind === 'sdk'
            ? 'sent by the app'
            : provider?.connector?.notifications
              ? 'push notifications'
              : provider?.connector?.api
                ? 'polled'
                : 'fetched on read';
        const redirect = provider?.oauth
          ? html`<code>${oauthCallbackUrl(ctx.config.publicUrl, state.provider)}</code>`
          : html`<span class="muted">none needed</span>`;
        return html`<tr><td>${provider?.declaration.name ?? state.provider} <span class="muted mono">${state.provider}</span></td><td>${statusPill(SETUP_TEXT[state.setup] ?? state.setup, state.deployment_enabled ? 'ok' : 'bad')}</td><td>${state.enabled ? statusPill('enabled', 'ok') : statusPill(state.developer_choice === false ? 'switched off' : 'unavailable', 'bad')}</td><td>${notifications}</td><td>${redirect}</td></tr>`;
      });
      const body = html`<section class="card"><h2>Offered in the widget</h2>
<p class="muted">The providers a widget session offers when it names none (a session's own <code>providers</code> overrides this). ${selection === null ? 'Now: every enabled provider.' : `Now: ${selection.join(', ')}.`}</p>
<form method="post" action="/dashboard/providers/selection">${csrfField(session)}
<fieldset><legend>Widget providers</legend><ul style="list-style:none;padding:0">${choices}</ul></fieldset>
<p><button type="submit" class="primary">Save selection</button></p></form>
${selection === null ? '' : postButton(session, '/dashboard/providers/selection', 'Offer every enabled provider')}</section>
<section class="card"><h2>Status</h2><table><thead><tr><th>Provider</th><th>Deployment</th><th>For you</th><th>New data</th><th>Redirect URI to register</th></tr></thead><tbody>${rows}</tbody></table></section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'providers', title: 'Providers', body, flash }),
      );
    }),
  );

  scope.post(
    '/dashboard/providers/selection',
    DASHBOARD_ROUTE,
    guards.developerAction('/dashboard/providers', async (_request, session, form) => {
      const saved = await ctx.widget.setProviderSelection(session.developer.id, fields(form, 'providers'));
      await ctx.dashboard.audit(session, {
        action: 'widget.provider-selection',
        target: saved ? saved.join(',') : 'all enabled',
      });
      return {
        redirect: '/dashboard/providers',
        notice: saved
          ? `The widget now offers ${saved.join(', ')}.`
          : 'The widget now offers every enabled provider.',
      };
    }),
  );
}
