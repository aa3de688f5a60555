import type { AppContext } from '../../features/context.ts';
import { oauthCallbackUrl } from '../../provider-kit/callback-url.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, field, fields, type Guards, sendPage } from './guard.ts';
import { csrfField, postButton, renderDashboardPage, statusPill } from './layout.ts';
import { html } from '../safe-html.ts';
import { defaultOrder, MERGE_FAMILIES } from '../../features/merge/engine/sources.ts';

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
      const [states, selection, merge] = await Promise.all([
        ctx.integrations.forDeveloper(devId),
        ctx.widget.providerSelection(devId),
        ctx.merge.settings(devId),
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
${mergeCard(session, merge)}
<section class="card"><h2>Status</h2><table><thead><tr><th>Provider</th><th>Deployment</th><th>For you</th><th>New data</th><th>Redirect URI to register</th></tr></thead><tbody>${rows}</tbody></table></section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'providers', title: 'Providers', body, flash }),
      );
    }),
  );

  scope.post(
    '/dashboard/providers/merge',
    DASHBOARD_ROUTE,
    guards.developerAction('/dashboard/providers', async (_request, session, form) => {
      const priorities = Object.fromEntries(
        MERGE_FAMILIES.map((family) => [family, orderOf(field(form, `order-${family}`))]),
      );
      await ctx.merge.updateSettings(session.developer.id, {
        priorities,
        merged_events: field(form, 'merged_events') === 'on',
      });
      await ctx.dashboard.audit(session, { action: 'merge.settings', target: 'merge priorities' });
      return { redirect: '/dashboard/providers', notice: 'Merge settings saved.' };
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

/** "PROVIDER_ID, watch" (comma separated) as an order; an empty field gives the family back its default. */
const orderOf = (text: string) =>
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** The merged view's settings: each family's order (the default shown as the placeholder) and the events switch. */
function mergeCard(
  session: Parameters<typeof csrfField>[0],
  merge: { priorities: Record<string, string[]>; merged_events: boolean },
) {
  const rows = MERGE_FAMILIES.map(
    (family) =>
      html`<tr><td><label for="order-${family}">${family}</label></td><td><input id="order-${family}" name="order-${family}" value="${(merge.priorities[family] ?? []).join(', ')}" placeholder="${defaultOrder(family).join(', ')}" style="width:100%"></td></tr>`,
  );
  return html`<section class="card"><h2>Merged view</h2>
<p class="muted">How <code>/v3/people</code> chooses between a person's sources, per metric family: provider ids (as in the Status table below) and device kinds (<code>ring</code>), best first. An empty field keeps the default order, shown greyed. See docs/merge.md.</p>
<form method="post" action="/dashboard/providers/merge">${csrfField(session)}
<table><thead><tr><th>Family</th><th>Order</th></tr></thead><tbody>${rows}</tbody></table>
<p><label><input type="checkbox" name="merged_events"${merge.merged_events ? ' checked' : ''}> Send a <code>merged</code> webhook event when a person's day changes</label></p>
<p><button type="submit" class="primary">Save merge settings</button></p></form></section>`;
}
