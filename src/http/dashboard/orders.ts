import { forbidden } from '../../core/errors.ts';
import type { AppContext } from '../../features/context.ts';
import { type Status, validEvents } from '../../features/orders/domain/statuses.ts';
import { ITEM_STATUS } from '../../features/orders/views.ts';
import type { App } from '../app-type.ts';
import { DASHBOARD_ROUTE, field, type Guards, sendPage } from './guard.ts';
import { postButton, renderDashboardPage, statusPill, when } from './layout.ts';
import { html, joinHtml } from '../safe-html.ts';

/** The order API's numeric item statuses, as words. */
const ITEM_STATUS_NAMES = new Map<number, string>(
  Object.entries(ITEM_STATUS).map(([name, code]) => [code, name.toLowerCase().replace('_', ' ')]),
);

/** Orders of developers with order access: the order API's own list, detail and sandbox simulate. */
export function registerOrderPages(scope: App, ctx: AppContext, guards: Guards) {
  scope.get(
    '/dashboard/orders',
    DASHBOARD_ROUTE,
    guards.developerPage(
      async (_request, reply, session, flash) => {
        const page = await ctx.orders.list(session.developer, { limit: 50 });
        const sandbox = session.developer.environment === 'sandbox';
        const rows = page.orders.map(
          (order) =>
            html`<tr><td class="mono"><a href="/dashboard/orders/${order.order_id}">${order.order_id}</a></td><td>${order.client_order_reference_id ?? ''}</td><td>${when(order.created_at)}</td><td>${order.collection_type}</td><td>${statusPill(order.order_status)}</td><td>${order.items.length}</td></tr>`,
        );
        const body = html`<section class="card">${page.orders.length ? html`<table><thead><tr><th>Order</th><th>Your reference</th><th>Created</th><th>Collection</th><th>Status</th><th>Items</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">No orders yet. Orders are created through the order API: list the tests with <code>GET /api/v1/products</code>, then <code>POST /api/v1/orders</code> with an <code>idempotency-key</code> header (see <a href="/docs">the API reference</a>). ${sandbox ? html`Sandbox orders can then be moved through their lifecycle from here.` : ''}</p>`}</section>`;
        return sendPage(
          reply,
          200,
          renderDashboardPage({ session, page: 'orders', title: 'Orders', body, flash }),
        );
      },
      { orders: true },
    ),
  );

  scope.get(
    '/dashboard/orders/:order_id',
    DASHBOARD_ROUTE,
    guards.developerPage(
      async (request, reply, session, flash) => {
        const { order_id: orderId } = request.params as { order_id: string };
        const order = await ctx.orders.get(session.developer, orderId);
        const sandbox = session.developer.environment === 'sandbox';
        const action = `/dashboard/orders/${encodeURIComponent(order.order_id)}/simulate`;
        const simulate = (status: string, itemId?: string) =>
          sandbox &&
          joinHtml(
            validEvents(status as Status).map((event) =>
              postButton(session, action, `Simulate ${event}`, {
                fields: { event, ...(itemId ? { order_item_id: itemId } : {}) },
              }),
            ),
            ' ',
          );
        const items = order.items.map(
          (item) =>
            html`<tr><td class="mono">${String(item.order_item_id)}</td><td>${ITEM_STATUS_NAMES.get(item.item_status) ?? String(item.item_status)}</td><td>${statusPill(item.results_status)}</td><td>${'test_taker_ids' in item && item.test_taker_ids ? statusPill('activated', 'ok') : statusPill('awaiting activation', 'warn')}</td><td>${simulate(item.results_status, String(item.order_item_id))}</td></tr>`,
        );
        const history = order.status_history.map(
          (entry) =>
            html`<tr><td>${when(entry.changed_at)}</td><td>${entry.status}</td><td class="mono">${String(entry.order_item_id ?? '')}</td></tr>`,
        );
        const body = html`<section class="card"><h2>Order ${order.order_id}</h2><p>Status: ${statusPill(order.order_status)}</p>
${sandbox ? html`<div class="row">${simulate(order.order_status)}</div>` : html`<p class="muted">Production orders move only on real supplier updates.</p>`}</section>
<section class="card"><h2>Items and results</h2><table><thead><tr><th>Item</th><th>Item status</th><th>Results</th><th>Kit</th><th>${sandbox ? 'Simulate' : ''}</th></tr></thead><tbody>${items}</tbody></table></section>
<section class="card"><h2>Status history</h2><table><thead><tr><th>Changed</th><th>Status</th><th>Item</th></tr></thead><tbody>${history}</tbody></table></section>`;
        return sendPage(
          reply,
          200,
          renderDashboardPage({ session, page: 'orders', title: 'Order', body, flash }),
        );
      },
      { orders: true },
    ),
  );

  scope.post(
    '/dashboard/orders/:order_id/simulate',
    DASHBOARD_ROUTE,
    guards.developerAction('/dashboard/orders', async (request, session, form) => {
      const { order_id: orderId } = request.params as { order_id: string };
      if (!session.developer.orderApiAccess)
        throw forbidden('order API access is not enabled for this developer');
      const itemId = field(form, 'order_item_id');
      const event = field(form, 'event');
      const applied = await ctx.orders.simulate(session.developer, orderId, {
        event,
        ...(itemId ? { order_item_id: itemId } : {}),
      });
      await ctx.dashboard.audit(session, { action: 'order.simulate', target: `${orderId} ${event}` });
      return {
        redirect: `/dashboard/orders/${encodeURIComponent(orderId)}`,
        notice: `Applied ${applied.applied_event}.`,
      };
    }),
  );
}
