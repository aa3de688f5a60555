// `GET /api/v1/overview`: a developer's order figures over a window — orders created and their
// current statuses, results received versus still missing, and order webhooks that failed for
// good with a daily series. Read-only, computed from the order tables and the webhook log.
import { sql } from 'kysely';
import { invalidParameter } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import { failuresBetween } from './webhook-log.ts';

const DAY_MS = 86_400_000;
/** Without `since`, the window is the week before `until`. */
export const DEFAULT_OVERVIEW_DAYS = 7;
/** The daily series is one entry per day; a window is at most a year long. */
export const MAX_OVERVIEW_DAYS = 366;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function parseInstant(name: string, value: string): Date {
  const date = RFC3339.test(value) ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime()))
    throw invalidParameter(name, 'expected an RFC 3339 date-time such as 2025-01-31T00:00:00Z');
  return date;
}

export function overviewWindow(
  query: { since?: string; until?: string },
  now: Date,
): { since: Date; until: Date } {
  const until = query.until ? parseInstant('until', query.until) : now;
  const since = query.since
    ? parseInstant('since', query.since)
    : new Date(until.getTime() - DEFAULT_OVERVIEW_DAYS * DAY_MS);
  if (since.getTime() > until.getTime()) throw invalidParameter('since', 'must not be after until');
  if (until.getTime() - since.getTime() > MAX_OVERVIEW_DAYS * DAY_MS)
    throw invalidParameter('since', `a window spans at most ${MAX_OVERVIEW_DAYS} days`);
  return { since, until };
}

const AWAITING_RESULTS = [
  'results.awaiting_sample',
  'results.kit_activated',
  'results.sample_processing_in_lab',
  'results.partial_results_ready',
];
const DELIVERED = ['order.delivery_fulfilled', 'order.completed'];

export async function overview(db: Db, developerId: string, window: { since: Date; until: Date }) {
  const inWindow = db
    .selectFrom('orders')
    .where('developer_id', '=', developerId)
    .where('created_at', '>=', window.since)
    .where('created_at', '<', window.until);
  const byStatus = await inWindow
    .select(['status', sql<string>`count(*)::text`.as('n')])
    .groupBy('status')
    .orderBy('status')
    .execute();
  const items = db
    .selectFrom('order_items')
    .innerJoin('orders', 'orders.id', 'order_items.order_id')
    .where('orders.developer_id', '=', developerId)
    .where('orders.created_at', '>=', window.since)
    .where('orders.created_at', '<', window.until);
  const received = await items
    .innerJoin('order_results', 'order_results.order_item_id', 'order_items.id')
    .select(sql<string>`count(*)::text`.as('n'))
    .executeTakeFirstOrThrow();
  const missing = await items
    .where('orders.status', 'in', DELIVERED as never[])
    .where('order_items.results_status', 'in', AWAITING_RESULTS as never[])
    .select(sql<string>`count(*)::text`.as('n'))
    .executeTakeFirstOrThrow();
  const failures = await failuresBetween(db, developerId, window.since, window.until);

  const daily: { date: string; failed: number }[] = [];
  const first = Math.floor(window.since.getTime() / DAY_MS);
  const last = Math.floor((window.until.getTime() - 1) / DAY_MS);
  for (let day = first; day <= Math.max(first, last); day++) {
    const date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    daily.push({ date, failed: failures.byDay.get(date) ?? 0 });
  }
  return {
    orders: {
      total: byStatus.reduce((sum, row) => sum + Number(row.n), 0),
      by_status: Object.fromEntries(byStatus.map((row) => [row.status, Number(row.n)])),
    },
    results: { total: Number(received.n), missing: Number(missing.n) },
    webhooks: { failed_total: failures.total, daily },
  };
}
