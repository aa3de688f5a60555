// What a status change produces: the `status_history` entry stored on the order and the webhook payload
// sent for it (docs/wire-contract.md#order-webhooks). Property names are the wire's; only these
// builders assemble order webhooks, so the payload rules (sandbox-only supplier_item_id, escalation
// fields only on escalation_raised, failure_cause only on sample_rejected) live in one place.

import type { OrderStatus, ResultsStatus, WebhookResultsStatus } from './statuses.ts';

export const ORDER_WEBHOOK_EVENT_TYPES = [
  'order.status_changed',
  'order_item.results_status_change',
] as const;
export type OrderWebhookEventType = (typeof ORDER_WEBHOOK_EVENT_TYPES)[number];

export const ESCALATION_LEVELS = ['not_escalated', 'very_low', 'low', 'medium', 'high', 'very_high'] as const;
export type EscalationLevel = (typeof ESCALATION_LEVELS)[number];

export type Environment = 'sandbox' | 'production';

export interface OrderStatusChangedEvent {
  event_type: 'order.status_changed';
  event_id: string;
  /** Unix seconds. */
  timestamp: number;
  data: {
    order_id: string;
    status: OrderStatus;
    tracking_number?: string;
    supplier_item_id?: string;
  };
}

export interface WebhookTestTaker {
  test_taker_id: string;
  first_name: string;
  last_name: string;
  email: string;
  /** E.164. */
  phone_number: string;
}

export interface ResultsStatusChangeEvent {
  event_type: 'order_item.results_status_change';
  event_id: string;
  timestamp: number;
  data: {
    order_id: string;
    order_item_id: string;
    variant_id: string;
    results_status: WebhookResultsStatus;
    test_taker: WebhookTestTaker;
    escalation_level?: EscalationLevel;
    acknowledgment_due_by?: string;
    failure_cause?: string;
  };
}

export type OrderWebhookEvent = OrderStatusChangedEvent | ResultsStatusChangeEvent;

interface EventIdentity {
  /** A snowflake id as a string; also sent as X-Terra-Trace-Id, and receivers dedupe on it. */
  eventId: string;
  occurredAt: Date;
}

export interface OrderStatusChange extends EventIdentity {
  orderId: string;
  status: OrderStatus;
  environment: Environment;
  trackingNumber?: string | null;
  /** The kit id; sandbox payloads carry it, production payloads do not. */
  supplierItemId?: string | null;
}

export function buildOrderStatusChangedEvent(change: OrderStatusChange): OrderStatusChangedEvent {
  const data: OrderStatusChangedEvent['data'] = { order_id: change.orderId, status: change.status };
  if (change.trackingNumber) data.tracking_number = change.trackingNumber;
  if (change.supplierItemId && change.environment === 'sandbox')
    data.supplier_item_id = change.supplierItemId;
  return {
    event_type: 'order.status_changed',
    event_id: change.eventId,
    timestamp: unixSeconds(change.occurredAt),
    data,
  };
}

/** The status-specific details; the compiler insists on them exactly where the wire carries them. */
export type ResultsStatusDetails =
  | { status: 'results.escalation_raised'; escalationLevel: EscalationLevel; acknowledgmentDueBy: Date }
  | { status: 'results.sample_rejected'; failureCause: string }
  | { status: Exclude<WebhookResultsStatus, 'results.escalation_raised' | 'results.sample_rejected'> };

export type ResultsStatusChange = EventIdentity &
  ResultsStatusDetails & {
    orderId: string;
    orderItemId: string;
    variantId: string;
    testTaker: WebhookTestTaker;
  };

export function buildResultsStatusChangeEvent(change: ResultsStatusChange): ResultsStatusChangeEvent {
  const data: ResultsStatusChangeEvent['data'] = {
    order_id: change.orderId,
    order_item_id: change.orderItemId,
    variant_id: change.variantId,
    results_status: change.status,
    // Copy the wire keys only, so a wider recipient row cannot leak extra columns.
    test_taker: {
      test_taker_id: change.testTaker.test_taker_id,
      first_name: change.testTaker.first_name,
      last_name: change.testTaker.last_name,
      email: change.testTaker.email,
      phone_number: change.testTaker.phone_number,
    },
  };
  if (change.status === 'results.escalation_raised') {
    data.escalation_level = change.escalationLevel;
    data.acknowledgment_due_by = change.acknowledgmentDueBy.toISOString();
  } else if (change.status === 'results.sample_rejected') {
    data.failure_cause = change.failureCause;
  }
  return {
    event_type: 'order_item.results_status_change',
    event_id: change.eventId,
    timestamp: unixSeconds(change.occurredAt),
    data,
  };
}

/** One `status_history` element of GetOrderResponse; the list is served newest first. */
export interface StatusHistoryEntry {
  status: OrderStatus | ResultsStatus;
  order_item_id?: string;
  changed_at: string;
  escalation_level?: EscalationLevel;
  acknowledgment_due_by?: string;
}

/** The history entry for the same change a webhook reports, so REST and webhooks never disagree. */
export function statusHistoryEntryFor(change: OrderStatusChange | ResultsStatusChange): StatusHistoryEntry {
  const changedAt = change.occurredAt.toISOString();
  if (!('orderItemId' in change)) return { status: change.status, changed_at: changedAt };
  const entry: StatusHistoryEntry = {
    status: change.status,
    order_item_id: change.orderItemId,
    changed_at: changedAt,
  };
  if (change.status === 'results.escalation_raised') {
    entry.escalation_level = change.escalationLevel;
    entry.acknowledgment_due_by = change.acknowledgmentDueBy.toISOString();
  }
  return entry;
}

/** Newest first, as GetOrderResponse lists it; ties keep their recorded order reversed. */
export function newestFirst(entries: readonly StatusHistoryEntry[]): StatusHistoryEntry[] {
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => compareText(b.entry.changed_at, a.entry.changed_at) || b.index - a.index)
    .map(({ entry }) => entry);
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const unixSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
