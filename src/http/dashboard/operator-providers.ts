import type { AppContext } from '../../features/context.ts';
import { oauthCallbackUrl } from '../../provider-kit/callback-url.ts';
import type { StoredSettingsChange, StoredSettingView } from '../../provider-access/stored-settings.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, field, fields, type Guards, sendPage } from './guard.ts';
import { csrfField, renderDashboardPage, statusPill } from './layout.ts';
import { html } from '../safe-html.ts';

export const OPERATOR_PROVIDERS = '/dashboard/operator/providers';

const SETUP_TEXT: Record<string, [string, 'ok' | 'warn' | 'bad']> = {
  BUILT_IN: ['built in', 'ok'],
  SDK: ['mobile SDK', 'ok'],
  API_KEYS_MANAGED: ['credentials present: enabled', 'ok'],
  NOT_CONFIGURED: ['no credentials: not offered', 'warn'],
  DISABLED: ['disabled', 'bad'],
};

function sourceText(setting: StoredSettingView) {
  if (setting.source === 'environment')
    return html`${statusPill('environment', 'ok')} <span class="muted">${setting.variable} is set in the environment and wins${setting.stored ? ' over the stored value' : ''}</span>`;
  if (setting.source === 'stored')
    return html`${statusPill('stored', 'ok')} <span class="muted">encrypted in the database</span>`;
  if (setting.ignored !== null)
    return html`${statusPill('stored, not in effect', 'bad')} <span class="muted">${setting.ignored}</span>`;
  return html`${statusPill('not set', 'warn')}`;
}

/**
 * The operator's provider settings: each provider's OAuth client id and secret (and the further
 * settings its declaration names), stored encrypted; a variable set in the environment wins and
 * the page says so. Only the operator reaches these pages (`operatorPage`/`operatorAction`).
 */
export function registerOperatorProviderPages(scope: App, ctx: AppContext, guards: Guards) {
  scope.get(
    OPERATOR_PROVIDERS,
    DASHBOARD_ROUTE,
    guards.operatorPage(async (_request, reply, session, flash) => {
      const cards = ctx.providerSettings.list().map(({ provider, fields: settings }) => {
        const [setupText, tone] = SETUP_TEXT[provider.setup] ?? [provider.setup, 'warn'];
        const rows = settings.map((setting) => {
          const id = `${provider.id}-${setting.key}`;
          return html`<tr><td><label for="${id}">${setting.label}</label><br><code>${setting.variable}</code></td><td>${sourceText(setting)}${setting.shown === null ? '' : html`<br><code>${setting.shown}</code>`}</td><td><input id="${id}" name="${setting.key}" type="${setting.secret ? 'password' : 'text'}" autocomplete="off" placeholder="${setting.stored ? 'leave empty to keep the stored value' : 'new value'}"></td><td>${setting.stored ? html`<label><input type="checkbox" name="clear" value="${setting.key}"> remove stored</label>` : ''}</td></tr>`;
        });
        const redirect = provider.oauth
          ? html`<p class="muted">Redirect URI to register with the provider: <code>${oauthCallbackUrl(ctx.config.publicUrl, provider.id)}</code></p>`
          : '';
        return html`<section class="card" id="provider-${provider.id}"><h2>${provider.declaration.name} <span class="muted mono">${provider.id}</span> ${statusPill(setupText, tone)}</h2>${redirect}
<form method="post" action="${OPERATOR_PROVIDERS}/${provider.id}">${csrfField(session)}
<table><thead><tr><th>Setting</th><th>In effect</th><th>Store a new value</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<p><button type="submit" class="primary">Save ${provider.id} settings</button></p></form></section>`;
      });
      const body = html`<section class="card"><h2>Provider settings</h2>
<p class="muted">A provider with its OAuth client id and secret is offered to developers. Values saved here are stored encrypted with the service key. An environment variable of the same name always wins over a stored value: remove it from the environment (and restart) to use the stored one.</p></section>
${cards}`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'provider-settings', title: 'Provider settings', body, flash }),
      );
    }),
  );

  scope.post(
    `${OPERATOR_PROVIDERS}/:provider`,
    DASHBOARD_ROUTE,
    guards.operatorAction(OPERATOR_PROVIDERS, async (request, session, form) => {
      const { provider: providerId } = request.params as { provider: string };
      const known = ctx.providerSettings.fieldsOf(providerId);
      const cleared = new Set(fields(form, 'clear'));
      const change: Record<string, string | null> = {};
      for (const setting of known) {
        const value = field(form, setting.key);
        if (value.trim() !== '') change[setting.key] = value;
        else if (cleared.has(setting.key)) change[setting.key] = null;
      }
      const id = providerId.toUpperCase();
      if (Object.keys(change).length === 0)
        return { redirect: `${OPERATOR_PROVIDERS}#provider-${id}`, notice: `Nothing to change for ${id}.` };
      const { overridden } = await ctx.providerSettings.save(id, change as StoredSettingsChange);
      await ctx.dashboard.audit(session, {
        action: 'provider.settings',
        // Names only: a value (a secret) never reaches the audit log.
        target: `${id} ${Object.entries(change)
          .map(([key, value]) => `${value === null ? '-' : '+'}${key}`)
          .join(' ')}`,
      });
      const provider = ctx.providers.get(id);
      const state = provider?.enabled ? 'it is enabled' : 'it is not enabled';
      return {
        redirect: `${OPERATOR_PROVIDERS}#provider-${id}`,
        notice:
          overridden.length > 0
            ? `${id} settings saved; ${overridden.join(', ')} ${overridden.length === 1 ? 'is' : 'are'} set in the environment, which wins over the stored value (${state}).`
            : `${id} settings saved (${state}).`,
      };
    }),
  );
}
