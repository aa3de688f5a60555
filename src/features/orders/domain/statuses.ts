// Order and order-item status vocabularies and the transitions between them
// (docs/wire-contract.md#statuses-and-transitions).
//
// Both the supplier feed, the sandbox timers and `POST /orders/{id}/simulate` move an order through
// `applyEvent`, so one table decides what is allowed and the 422 body (current_status, sorted
// valid_events) is derived from the same data that drives the happy path.

export const ORDER_STATUSES = [
  'order.payment_processing',
  'order.payment_complete',
  'order.payment_failed',
  'order.processing',
  'order.delayed',
  'order.delivery_fulfilled',
  'order.completed',
  'order.cancelled',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const RESULTS_STATUSES = [
  'results.awaiting_sample',
  'results.kit_activated',
  'results.sample_processing_in_lab',
  'results.sample_rejected',
  'results.partial_results_ready',
  'results.results_ready',
  'results.lab_processing_error',
  'results.escalation_raised',
] as const;
export type ResultsStatus = (typeof RESULTS_STATUSES)[number];

/** `results.awaiting_sample` exists only in REST responses; every other results status is webhook-visible. */
export type WebhookResultsStatus = Exclude<ResultsStatus, 'results.awaiting_sample'>;

export type Status = OrderStatus | ResultsStatus;

export const INITIAL_ORDER_STATUS = 'order.payment_processing' satisfies OrderStatus;
export const INITIAL_RESULTS_STATUS = 'results.awaiting_sample' satisfies ResultsStatus;

// Event names are the status names without their prefix: `processing` moves an order to
// `order.processing`, `results_ready` moves an item to `results.results_ready`.
export const ORDER_EVENTS = [
  'payment_complete',
  'payment_failed',
  'processing',
  'delayed',
  'delivery_fulfilled',
  'completed',
  'cancelled',
] as const;
export type OrderEvent = (typeof ORDER_EVENTS)[number];

export const RESULTS_EVENTS = [
  'kit_activated',
  'sample_processing_in_lab',
  'sample_rejected',
  'partial_results_ready',
  'results_ready',
  'lab_processing_error',
  'escalation_raised',
] as const;
export type ResultsEvent = (typeof RESULTS_EVENTS)[number];

export type StatusEvent = OrderEvent | ResultsEvent;

/**
 * Order transitions. The contract documents only the start state, "processing only after payment" and the
 * 422 example (payment_complete -> processing | cancelled); the rest is the inferred forward chain,
 * with cancellation allowed until the kit is delivered and a delay able to resume processing.
 */
export const ORDER_TRANSITIONS: { readonly [S in OrderStatus]: readonly OrderEvent[] } = {
  'order.payment_processing': ['payment_complete', 'payment_failed', 'cancelled'],
  'order.payment_complete': ['processing', 'cancelled'],
  'order.payment_failed': [],
  'order.processing': ['delayed', 'delivery_fulfilled', 'cancelled'],
  'order.delayed': ['processing', 'delivery_fulfilled', 'cancelled'],
  'order.delivery_fulfilled': ['completed'],
  'order.completed': [],
  'order.cancelled': [],
};

/** Item results transitions exactly as documented (docs/wire-contract.md#statuses-and-transitions). */
export const RESULTS_TRANSITIONS: { readonly [S in ResultsStatus]: readonly ResultsEvent[] } = {
  'results.awaiting_sample': ['kit_activated'],
  'results.kit_activated': ['sample_processing_in_lab'],
  'results.sample_processing_in_lab': [
    'partial_results_ready',
    'results_ready',
    'lab_processing_error',
    'escalation_raised',
    'sample_rejected',
  ],
  'results.partial_results_ready': ['results_ready', 'escalation_raised'],
  'results.results_ready': ['escalation_raised'],
  'results.sample_rejected': [],
  'results.lab_processing_error': [],
  'results.escalation_raised': [],
};

const ORDER_STATUS_SET: ReadonlySet<string> = new Set(ORDER_STATUSES);
const RESULTS_STATUS_SET: ReadonlySet<string> = new Set(RESULTS_STATUSES);
const ORDER_EVENT_SET: ReadonlySet<string> = new Set(ORDER_EVENTS);
const RESULTS_EVENT_SET: ReadonlySet<string> = new Set(RESULTS_EVENTS);

export const isOrderStatus = (value: string): value is OrderStatus => ORDER_STATUS_SET.has(value);
export const isResultsStatus = (value: string): value is ResultsStatus => RESULTS_STATUS_SET.has(value);
export const isOrderEvent = (value: string): value is OrderEvent => ORDER_EVENT_SET.has(value);
export const isResultsEvent = (value: string): value is ResultsEvent => RESULTS_EVENT_SET.has(value);
export const isStatusEvent = (value: string): value is StatusEvent =>
  isOrderEvent(value) || isResultsEvent(value);

/** Which record an event moves: simulate routes order events to the order and results events to items. */
export function eventTarget(event: StatusEvent): 'order' | 'order_item' {
  return isOrderEvent(event) ? 'order' : 'order_item';
}

export function statusForEvent(event: OrderEvent): OrderStatus;
export function statusForEvent(event: ResultsEvent): ResultsStatus;
export function statusForEvent(event: StatusEvent): Status;
export function statusForEvent(event: StatusEvent): Status {
  return isOrderEvent(event) ? `order.${event}` : `results.${event}`;
}

/** Sorted, so the 422 body is stable whatever order the table lists events in. */
export function validEvents(current: OrderStatus): OrderEvent[];
export function validEvents(current: ResultsStatus): ResultsEvent[];
export function validEvents(current: Status): StatusEvent[];
export function validEvents(current: Status): StatusEvent[] {
  const events: readonly StatusEvent[] = isOrderStatus(current)
    ? ORDER_TRANSITIONS[current]
    : RESULTS_TRANSITIONS[current];
  return [...events].sort();
}

export const isTerminalStatus = (status: Status): boolean => validEvents(status).length === 0;

/** The members of a 422 SimulateTransitionProblem besides the RFC 7807 ones. */
export interface InvalidTransition {
  kind: 'invalid_transition';
  /** `unknown_event`: not an event name at all; `not_allowed`: a real event, wrong moment or wrong target. */
  reason: 'unknown_event' | 'not_allowed';
  event: string;
  current_status: Status;
  valid_events: StatusEvent[];
}

export type TransitionResult<S extends Status> =
  { ok: true; status: S; event: StatusEvent } | { ok: false; error: InvalidTransition };

/**
 * Applies `event` to `current`. The event is a plain string because it arrives from request bodies
 * and supplier feeds; an unknown name is answered like any other invalid move, with the list of
 * events that would have worked.
 */
export function applyEvent(current: OrderStatus, event: string): TransitionResult<OrderStatus>;
export function applyEvent(current: ResultsStatus, event: string): TransitionResult<ResultsStatus>;
export function applyEvent(current: Status, event: string): TransitionResult<Status>;
export function applyEvent(current: Status, event: string): TransitionResult<Status> {
  const allowed = validEvents(current);
  if (isStatusEvent(event) && allowed.includes(event)) {
    return { ok: true, status: statusForEvent(event), event };
  }
  return {
    ok: false,
    error: {
      kind: 'invalid_transition',
      reason: isStatusEvent(event) ? 'not_allowed' : 'unknown_event',
      event,
      current_status: current,
      valid_events: allowed,
    },
  };
}

/**
 * Results can only move while the order is live: nothing is collected for an order whose payment
 * failed, that is still being paid for, or that was cancelled.
 */
export function orderAcceptsResultsEvents(orderStatus: OrderStatus): boolean {
  return (
    orderStatus !== 'order.payment_processing' &&
    orderStatus !== 'order.payment_failed' &&
    orderStatus !== 'order.cancelled'
  );
}

/**
 * `GET /orders?status=` filter values: current names plus the legacy `order.failed`, which the contract says
 * is still accepted as a filter (meaning payment failure) but never emitted.
 */
export function parseOrderStatusFilter(value: string): OrderStatus | undefined {
  if (value === 'order.failed') return 'order.payment_failed';
  return isOrderStatus(value) ? value : undefined;
}
