// How a sandbox order moves on its own (docs/wire-contract.md#statuses-and-transitions): payment and
// shipping within about a minute of creation; after kit activation, result updates one to two
// minutes apart. The job runner schedules `next*Step` after every applied event, so a simulate call
// that jumps ahead simply changes which step comes next.

import type { OrderEvent, OrderStatus, ResultsEvent, ResultsStatus } from './statuses.ts';

export interface TimedStep<E> {
  event: E;
  /** Delay after the previous status change. */
  delaySeconds: number;
}

const ORDER_STEPS: { readonly [S in OrderStatus]?: TimedStep<OrderEvent> } = {
  'order.payment_processing': { event: 'payment_complete', delaySeconds: 5 },
  'order.payment_complete': { event: 'processing', delaySeconds: 15 },
  'order.processing': { event: 'delivery_fulfilled', delaySeconds: 40 },
  'order.delayed': { event: 'delivery_fulfilled', delaySeconds: 40 },
};

// Items wait in awaiting_sample until the kit is activated; activation itself is never timed.
const RESULTS_STEPS: { readonly [S in ResultsStatus]?: TimedStep<ResultsEvent> } = {
  'results.kit_activated': { event: 'sample_processing_in_lab', delaySeconds: 60 },
  'results.sample_processing_in_lab': { event: 'results_ready', delaySeconds: 90 },
};

export function nextSandboxOrderStep(status: OrderStatus): TimedStep<OrderEvent> | undefined {
  return ORDER_STEPS[status];
}

export function nextSandboxResultsStep(status: ResultsStatus): TimedStep<ResultsEvent> | undefined {
  return RESULTS_STEPS[status];
}

/** Results statuses after which the lab sends nothing more unless it escalates. */
const RESULTS_SETTLED: ReadonlySet<ResultsStatus> = new Set([
  'results.results_ready',
  'results.sample_rejected',
  'results.lab_processing_error',
  'results.escalation_raised',
]);

/**
 * An order is complete once its kits were delivered and every item has settled, so `completed`
 * follows the last item's results rather than a timer of its own.
 */
export function orderIsReadyToComplete(
  orderStatus: OrderStatus,
  itemStatuses: readonly ResultsStatus[],
): boolean {
  return (
    orderStatus === 'order.delivery_fulfilled' &&
    itemStatuses.length > 0 &&
    itemStatuses.every((status) => RESULTS_SETTLED.has(status))
  );
}
