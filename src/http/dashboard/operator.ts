import { badRequest } from '../../core/errors.ts';
import type { AppContext } from '../../features/context.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, field, fields, type Guards, sendPage } from './guard.ts';
import { confirmButton, csrfField, postButton, renderDashboardPage, statusPill, when } from './layout.ts';
import { auditTable } from './overview.ts';
import { registerOperatorProviderPages } from './operator-providers.ts';
import { registerOperatorJobPages } from './operator-jobs.ts';
import { html } from '../safe-html.ts';

const HOME = '/dashboard/operator';
const developerPath = (id: string) => `${HOME}/developers/${encodeURIComponent(id)}`;

/** The operator's view (OPERATOR_TOKEN): every developer, with what the CLI does to them, through the same service. */
export function registerOperatorPages(scope: App, ctx: AppContext, guards: Guards) {
  const { developers } = ctx;
  registerOperatorProviderPages(scope, ctx, guards);
  registerOperatorJobPages(scope, ctx, guards);

  scope.get(
    HOME,
    DASHBOARD_ROUTE,
    guards.operatorPage(async (_request, reply, session, flash) => {
      const [all, audit] = await Promise.all([developers.list(), ctx.dashboard.auditLog({}, 30)]);
      const rows = all.map(
        (developer) =>
          html`<tr><td><a href="${developerPath(developer.id)}">${developer.name}</a></td><td class="mono">${developer.id}</td><td><span class="badge env-${developer.environment}">${developer.environment}</span></td><td>${statusPill(developer.status, developer.status === 'active' ? 'ok' : 'bad')}</td><td>${developer.orderApiAccess ? 'yes' : 'no'}</td><td>${developer.hourlyDaysLimit ?? 'default'}</td><td>${when(developer.createdAt)}</td></tr>`,
      );
      const body = html`<section class="card"><h2>Create a developer</h2>
<form method="post" action="${HOME}/developers" class="row">${csrfField(session)}
<div><label for="name">Name</label><input id="name" name="name" type="text" required></div>
<div><label for="environment">Environment</label><select id="environment" name="environment"><option>sandbox</option><option>production</option></select></div>
<div><label><input type="checkbox" name="order_api" value="true"> Order API access</label></div>
<button type="submit" class="primary">Create developer</button></form></section>
<section class="card"><h2>Developers</h2><table><thead><tr><th>Name</th><th>Developer ID</th><th>Environment</th><th>Status</th><th>Orders</th><th>Hourly days</th><th>Created</th></tr></thead><tbody>${rows}</tbody></table></section>
<section class="card"><h2>Audit log</h2>${auditTable(audit, true)}</section>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'developers', title: 'Developers', body, flash }),
      );
    }),
  );

  scope.get(
    `${HOME}/developers/:id`,
    DASHBOARD_ROUTE,
    guards.operatorPage(async (request, reply, session, flash) => {
      const { id } = request.params as { id: string };
      const developer = await developers.get(id);
      const [keys, providers] = await Promise.all([
        developers.listKeys(id),
        ctx.integrations.forDeveloper(id),
      ]);
      const base = developerPath(id);
      const keyRows = keys.map(
        (key) =>
          html`<tr><td class="mono">${key.id}</td><td class="mono">${key.display_prefix}</td><td>${when(key.created_at)}</td><td>${key.revoked_at ? statusPill('revoked', 'bad') : statusPill('live', 'ok')}</td><td>${key.revoked_at ? '' : confirmButton(session, `${base}/keys/revoke`, `Revoke ${key.id}`, 'Requests with this key will be refused at once.', { key_id: key.id })}</td></tr>`,
      );
      const body = html`<section class="card"><h2>${developer.name} <span class="badge env-${developer.environment}">${developer.environment}</span></h2>
<p class="mono">${developer.id}</p><p>Status: ${statusPill(developer.status, developer.status === 'active' ? 'ok' : 'bad')}</p>
<div class="row">${developer.status === 'active' ? confirmButton(session, `${base}/status`, 'Suspend', 'Suspending stops every API call and holds webhook deliveries.', { status: 'suspended' }) : postButton(session, `${base}/status`, 'Resume', { fields: { status: 'active' }, style: 'primary' })}</div></section>
<section class="card"><h2>Limits</h2>
<form method="post" action="${base}/limits" class="row">${csrfField(session)}
<div><label for="hourly_days">Hourly data-read budget (days; empty = default)</label><input id="hourly_days" name="hourly_days" type="number" min="1" value="${developer.hourlyDaysLimit ?? ''}"></div>
<div><label><input type="checkbox" name="order_api" value="true"${developer.orderApiAccess ? ' checked' : ''}> Order API access</label></div>
<button type="submit" class="primary">Save limits</button></form></section>
<section class="card"><h2>API keys</h2>${postButton(session, `${base}/keys`, 'Create API key', { style: 'primary' })}
<table><thead><tr><th>Key id</th><th>Starts with</th><th>Created</th><th>State</th><th></th></tr></thead><tbody>${keyRows}</tbody></table></section>
<section class="card"><h2>Providers</h2><p class="muted">What this developer may connect (like <code>tributary providers set</code>); only providers enabled on the deployment can be switched on.</p>
<table><thead><tr><th>Provider</th><th>Deployment</th><th>For this developer</th><th></th></tr></thead><tbody>${providers.map(
        (state) =>
          html`<tr><td>${state.provider}</td><td>${state.setup}</td><td>${state.enabled ? statusPill('enabled', 'ok') : statusPill('off', 'bad')}</td><td>${
            state.enabled
              ? postButton(session, `${base}/providers`, `Switch off ${state.provider}`, {
                  fields: { disable: state.provider },
                })
              : state.deployment_enabled
                ? postButton(session, `${base}/providers`, `Switch on ${state.provider}`, {
                    fields: { enable: state.provider },
                  })
                : ''
          }</td></tr>`,
      )}</tbody></table></section>
<p><a href="${HOME}">All developers</a></p>`;
      return sendPage(
        reply,
        200,
        renderDashboardPage({ session, page: 'developers', title: 'Developer', body, flash }),
      );
    }),
  );

  scope.post(
    `${HOME}/developers`,
    DASHBOARD_ROUTE,
    guards.operatorAction(HOME, async (_request, session, form) => {
      const created = await developers.create({
        name: field(form, 'name'),
        environment: field(form, 'environment') as 'sandbox' | 'production',
        orderApiAccess: field(form, 'order_api') === 'true',
      });
      await ctx.dashboard.audit(session, {
        action: 'developer.create',
        target: created.developer.id,
        developerId: created.developer.id,
      });
      const body = html`<section class="card"><h2>${created.developer.name}</h2><p>Hand these over now: they are not shown again.</p>
<table><tbody><tr><th>Developer ID</th><td class="mono">${created.developer.id}</td></tr>
<tr><th>API key</th><td class="secret"><code>${created.apiKey}</code></td></tr>
<tr><th>Webhook signing secret</th><td class="secret"><code>${created.webhookSecret}</code></td></tr></tbody></table>
<p><a href="${developerPath(created.developer.id)}">Open the developer</a></p></section>`;
      return { html: renderDashboardPage({ session, page: 'developers', title: 'Developer created', body }) };
    }),
  );

  scope.post(
    `${HOME}/developers/:id/status`,
    DASHBOARD_ROUTE,
    guards.operatorAction(HOME, async (request, session, form) => {
      const { id } = request.params as { id: string };
      const status = field(form, 'status');
      if (status !== 'active' && status !== 'suspended')
        throw badRequest('invalid status: expected active or suspended');
      await developers.setStatus(id, status);
      await ctx.dashboard.audit(session, {
        action: status === 'active' ? 'developer.resume' : 'developer.suspend',
        target: id,
        developerId: id,
      });
      return {
        redirect: developerPath(id),
        notice: status === 'active' ? 'Developer resumed.' : 'Developer suspended.',
      };
    }),
  );

  scope.post(
    `${HOME}/developers/:id/limits`,
    DASHBOARD_ROUTE,
    guards.operatorAction(HOME, async (request, session, form) => {
      const { id } = request.params as { id: string };
      const raw = field(form, 'hourly_days').trim();
      const days = raw === '' ? null : Number(raw);
      await developers.setHourlyDaysLimit(id, days);
      await developers.setOrderApiAccess(id, field(form, 'order_api') === 'true');
      await ctx.dashboard.audit(session, {
        action: 'developer.limits',
        target: `hourly_days=${raw || 'default'} order_api=${field(form, 'order_api') === 'true'}`,
        developerId: id,
      });
      return { redirect: developerPath(id), notice: 'Limits saved.' };
    }),
  );

  scope.post(
    `${HOME}/developers/:id/providers`,
    DASHBOARD_ROUTE,
    guards.operatorAction(HOME, async (request, session, form) => {
      const { id } = request.params as { id: string };
      const developer = await developers.get(id);
      const enable = fields(form, 'enable');
      const disable = fields(form, 'disable');
      await ctx.integrations.setForDeveloper(developer.id, { enable, disable });
      await ctx.dashboard.audit(session, {
        action: 'developer.providers',
        target: [...enable.map((p) => `+${p}`), ...disable.map((p) => `-${p}`)].join(' '),
        developerId: id,
      });
      return { redirect: developerPath(id), notice: 'Providers updated.' };
    }),
  );

  scope.post(
    `${HOME}/developers/:id/keys`,
    DASHBOARD_ROUTE,
    guards.operatorAction(HOME, async (request, session) => {
      const { id } = request.params as { id: string };
      const created = await developers.createKey(id);
      await ctx.dashboard.audit(session, { action: 'key.create', target: created.id, developerId: id });
      const body = html`<section class="card"><h2>New API key ${created.id}</h2><p>Hand it over now: it is not shown again.</p>
<p class="secret"><code>${created.apiKey}</code></p><p><a href="${developerPath(id)}">Back</a></p></section>`;
      return { html: renderDashboardPage({ session, page: 'developers', title: 'API key created', body }) };
    }),
  );

  scope.post(
    `${HOME}/developers/:id/keys/revoke`,
    DASHBOARD_ROUTE,
    guards.operatorAction(HOME, async (request, session, form) => {
      const { id } = request.params as { id: string };
      const keyId = field(form, 'key_id');
      await developers.revokeKey(id, keyId);
      await ctx.dashboard.audit(session, { action: 'key.revoke', target: keyId, developerId: id });
      return { redirect: developerPath(id), notice: `Key ${keyId} revoked.` };
    }),
  );
}
