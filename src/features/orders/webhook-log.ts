// The order API's view of its webhook deliveries (`GET /api/v1/webhook-deliveries`, and the
// webhook figures of `/overview`). Every order event is indexed as it is emitted (in the same
// transaction) with the order and item it is about; the outcome of each delivery is read from the
// webhook engine's log (webhooks/outcomes.ts), which stays the one record of what was sent.
import { sql } from 'kysely';
import { invalidParameter } from '../../core/errors.ts';
import { isPositiveBigintText } from '../../core/cursor-bounds.ts';
import type { Db } from '../../store/db.ts';
import { type DeliveryOutcome, deliveryOutcomes } from '../delivery/outcomes.ts';
import type { OrderWebhookEvent } from './domain/events.ts';

/** Terminal outcomes in the order API's vocabulary; pending and held deliveries are not terminal. */
export type DeliveryOutcomeName = 'delivered' | 'rejected' | 'invalid' | 'dead_lettered' | 'replayed';

const OUTCOME_FILTERS = ['delivered', 'rejected', 'invalid', 'dead_lettered', 'replayed', 'failed'] as const;
export type OutcomeFilter = (typeof OUTCOME_FILTERS)[number];
const FAILED: ReadonlySet<DeliveryOutcomeName> = new Set(['rejected', 'invalid', 'dead_lettered']);

/**
 * The engine's status as an outcome: delivered; rejected (a 4xx the receiver meant); dead_lettered
 * (retries exhausted); invalid (dropped unsent). Not terminal: null.
 */
export function outcomeOf(outcome: DeliveryOutcome): DeliveryOutcomeName | null {
  switch (outcome.status) {
    case 'delivered':
      return 'delivered';
    case 'rejected':
      return 'rejected';
    case 'failed':
      return 'dead_lettered';
    case 'dropped':
      return 'invalid';
    default:
      return null;
  }
}

export function parseOutcomeFilter(value: string | undefined): OutcomeFilter | undefined {
  if (value === undefined || value === '') return undefined;
  const found = OUTCOME_FILTERS.find((candidate) => candidate === value);
  if (!found) throw invalidParameter('outcome', `expected one of ${OUTCOME_FILTERS.join(', ')}`);
  return found;
}

/** Indexes an emitted order event under its id in the webhook log. */
export async function recordOrderEvent(
  trx: Db,
  input: { developerId: string; webhookEventId: string; event: OrderWebhookEvent; at: Date },
): Promise<void> {
  const data = input.event.data as { order_id: string; order_item_id?: string };
  await trx
    .insertInto('order_webhook_events')
    .values({
      webhook_event_id: input.webhookEventId,
      developer_id: input.developerId,
      order_event_id: sql<string>`${input.event.event_id}::bigint` as unknown as string,
      event_type: input.event.event_type,
      order_id: data.order_id,
      order_item_id: data.order_item_id ?? null,
      created_at: input.at,
    })
    .execute();
}

type IndexRow = {
  webhook_event_id: string;
  order_event_id: string;
  event_type: string;
  order_id: string;
  order_item_id: string | null;
  created_at: Date;
};

export type WebhookDeliveryView = {
  event_id: string;
  event_type: string;
  order_id: string;
  order_item_id: string;
  outcome: DeliveryOutcomeName;
  final_status_code: number | null;
  attempts: number;
  completed_at: string;
  event_created_at: string;
};

function deliveryView(
  row: IndexRow,
  outcome: DeliveryOutcome,
  name: DeliveryOutcomeName,
): WebhookDeliveryView {
  return {
    event_id: row.order_event_id,
    event_type: row.event_type,
    order_id: row.order_id,
    // Order-level events are about no item: the schema requires the key, so it is empty.
    order_item_id: row.order_item_id ?? '',
    outcome: name,
    final_status_code: outcome.lastStatusCode,
    attempts: outcome.attempts,
    completed_at: (outcome.deliveredAt ?? outcome.updatedAt).toISOString(),
    event_created_at: row.created_at.toISOString(),
  };
}

const wanted = (filter: OutcomeFilter | undefined, name: DeliveryOutcomeName) =>
  filter === undefined || (filter === 'failed' ? FAILED.has(name) : filter === name);

/**
 * Terminal delivery outcomes of the developer's order events, newest first, keyset-paged by the
 * order event id (`cursor` is the last page's last event_id). Non-terminal deliveries are skipped.
 */
export async function listDeliveries(
  db: Db,
  developerId: string,
  query: { outcome?: OutcomeFilter; limit: number; cursor?: string },
): Promise<{ deliveries: WebhookDeliveryView[]; next_cursor?: string }> {
  if (query.cursor !== undefined && !isPositiveBigintText(query.cursor))
    throw invalidParameter('cursor', 'expected the event_id of a previous page');
  const found: WebhookDeliveryView[] = [];
  let before = query.cursor;
  const batch = Math.max(query.limit * 2, 50);
  for (;;) {
    let select = db
      .selectFrom('order_webhook_events')
      .select([
        'webhook_event_id',
        sql<string>`order_event_id::text`.as('order_event_id'),
        'event_type',
        'order_id',
        'order_item_id',
        'created_at',
      ])
      .where('developer_id', '=', developerId);
    if (before !== undefined) select = select.where(sql<boolean>`order_event_id < ${before}::bigint`);
    const rows: IndexRow[] = await select.orderBy('order_event_id', 'desc').limit(batch).execute();
    const outcomes = await deliveryOutcomes(
      db,
      developerId,
      rows.map((row) => row.webhook_event_id),
    );
    for (const row of rows) {
      const outcome = outcomes.get(row.webhook_event_id);
      const name = outcome ? outcomeOf(outcome) : null;
      if (!outcome || !name || !wanted(query.outcome, name)) continue;
      found.push(deliveryView(row, outcome, name));
      if (found.length > query.limit) break;
    }
    if (found.length > query.limit || rows.length < batch) break;
    before = rows[rows.length - 1]!.order_event_id;
  }
  const page = found.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    deliveries: page,
    ...(found.length > query.limit && last ? { next_cursor: last.event_id } : {}),
  };
}

/** Order deliveries that failed for good, of events created in [since, until), by UTC day. */
export async function failuresBetween(
  db: Db,
  developerId: string,
  since: Date,
  until: Date,
): Promise<{ total: number; byDay: Map<string, number> }> {
  const rows = await db
    .selectFrom('order_webhook_events')
    .select(['webhook_event_id', 'created_at'])
    .where('developer_id', '=', developerId)
    .where('created_at', '>=', since)
    .where('created_at', '<', until)
    .execute();
  const outcomes = await deliveryOutcomes(
    db,
    developerId,
    rows.map((row) => row.webhook_event_id),
  );
  const byDay = new Map<string, number>();
  let total = 0;
  for (const row of rows) {
    const outcome = outcomes.get(row.webhook_event_id);
    const name = outcome ? outcomeOf(outcome) : null;
    if (!name || !FAILED.has(name)) continue;
    total += 1;
    const day = row.created_at.toISOString().slice(0, 10);
    byDay.set(day, (byDay.get(day) ?? 0) + 1);
  }
  return { total, byDay };
}
