// The one way an order or an item changes status. Simulate, the sandbox timers and kit
// activation all call `applyStatusEvent` inside a transaction that holds the order's row lock: it
// checks the move with the domain's `applyEvent`, writes the status and its history entry, emits
// the webhook into the outbox and schedules the next sandbox step, all of which commit together.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { badRequest, notFound, unprocessable } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import type { Catalog } from './domain/catalog.ts';
import { findProduct } from './domain/catalog.ts';
import type { OrderWebhookEvent, ResultsStatusDetails } from './domain/events.ts';
import { buildOrderStatusChangedEvent, buildResultsStatusChangeEvent } from './domain/events.ts';
import { buildSandboxResultsBundle } from './domain/fhir.ts';
import type { OrderStatus, ResultsStatus, StatusEvent } from './domain/statuses.ts';
import type { ChangeOutcome, StatusChange } from './status-change.ts';
import {
  applyEvent,
  isOrderEvent,
  isResultsEvent,
  orderAcceptsResultsEvents,
  validEvents,
} from './domain/statuses.ts';
import { newSnowflake, newTrackingNumber } from './ids.ts';
import type { ItemRow, OrderRow } from './repo.ts';
import * as repo from './repo.ts';
import type { OrderSettings } from './settings.ts';
import type { TestTakerRecord } from './tables.ts';
import { scheduleNextSteps } from './timers.ts';

export type { ChangeOutcome, StatusChange } from './status-change.ts';

/** Writes an order webhook into the outbox in `trx` (the webhooks service's `emit`). */
export type OrderEventEmitter = (trx: Db, developerId: string, event: OrderWebhookEvent) => Promise<string>;

export type LifecycleDeps = {
  emit: OrderEventEmitter;
  jobs: JobQueue;
  clock: Clock;
  settings: OrderSettings;
  catalog: Catalog;
  log: Logger;
};

const ESCALATION_ACK_WINDOW_MS = 48 * 3_600_000;
const SANDBOX_FAILURE_CAUSE = 'Insufficient sample volume: the tube arrived less than half full.';

const invalidTransition = (detail: string, current: OrderStatus | ResultsStatus, valid: string[]) =>
  unprocessable(detail, { extensions: { current_status: current, valid_events: valid } });

export async function applyStatusEvent(
  deps: LifecycleDeps,
  trx: Db,
  change: StatusChange,
): Promise<ChangeOutcome> {
  const order = await repo.lockOrder(trx, change.orderId);
  if (!order || (change.developerId !== undefined && order.developer_id !== change.developerId)) {
    throw notFound(`no order "${change.orderId}"`);
  }
  const items = await repo.itemsOf(trx, [order.id]);
  if (isResultsEvent(change.event)) return applyResultsEvent(deps, trx, order, items, change);
  if (change.orderItemId !== undefined && isOrderEvent(change.event)) {
    throw badRequest(
      `invalid order_item_id: "${change.event}" is an order event and applies to the whole order`,
    );
  }
  if (change.expectVersion !== undefined && change.expectVersion !== order.version)
    return { applied: false, reason: 'stale' };
  const result = applyEvent(order.status, change.event);
  if (!result.ok) {
    throw invalidTransition(
      `event "${change.event}" is not valid for an order in ${order.status}`,
      order.status,
      result.error.valid_events,
    );
  }
  const now = deps.clock.now();
  // The kit leaves the warehouse when processing starts: that is when a tracking number exists.
  const trackingNumber =
    result.status === 'order.processing' && !order.tracking_number && order.collection_type === 'AT_HOME'
      ? newTrackingNumber()
      : undefined;
  const version = await repo.updateOrderStatus(trx, order.id, {
    status: result.status,
    now,
    ...(trackingNumber ? { trackingNumber } : {}),
  });
  const updated: OrderRow = {
    ...order,
    status: result.status,
    version,
    tracking_number: trackingNumber ?? order.tracking_number,
  };
  await repo.insertHistory(trx, [
    {
      order_id: order.id,
      order_item_id: null,
      status: result.status,
      source: change.source,
      escalation_level: null,
      acknowledgment_due_by: null,
      changed_at: now,
    },
  ]);
  await deps.emit(trx, order.developer_id, orderStatusEvent(updated, items, now));
  await scheduleNextSteps(deps, trx, updated, items, { orderChanged: true, changedItems: [] });
  return { applied: true, orderId: order.id, event: result.event };
}

export function orderStatusEvent(order: OrderRow, items: readonly ItemRow[], now: Date) {
  return buildOrderStatusChangedEvent({
    eventId: newSnowflake(now.getTime()),
    occurredAt: now,
    orderId: order.id,
    status: order.status,
    environment: order.environment,
    trackingNumber: order.tracking_number,
    supplierItemId: items[0]?.supplier_item_id ?? null,
  });
}

async function applyResultsEvent(
  deps: LifecycleDeps,
  trx: Db,
  order: OrderRow,
  items: ItemRow[],
  change: StatusChange,
): Promise<ChangeOutcome> {
  const event = change.event as StatusEvent;
  const targets =
    change.orderItemId === undefined ? items : items.filter((item) => item.id === change.orderItemId);
  if (targets.length === 0) throw notFound(`no order item "${change.orderItemId}" in order "${order.id}"`);
  if (change.expectVersion !== undefined && targets.some((item) => item.version !== change.expectVersion)) {
    return { applied: false, reason: 'stale' };
  }
  if (!orderAcceptsResultsEvents(order.status)) {
    throw invalidTransition(
      `results event "${event}" needs a paid order that is not cancelled; the order is in ${order.status}`,
      order.status,
      validEvents(order.status),
    );
  }
  // Check every item before changing any, so a refused event changes nothing.
  const moves = targets.map((item) => ({ item, result: applyEvent(item.results_status, event) }));
  for (const { item, result } of moves) {
    if (!result.ok) {
      throw invalidTransition(
        `event "${event}" is not valid for order item ${item.id} in ${item.results_status}`,
        item.results_status,
        result.error.valid_events,
      );
    }
  }
  const now = deps.clock.now();
  const changed: ItemRow[] = [];
  for (const { item, result } of moves) {
    if (!result.ok) continue;
    const status = result.status;
    const withTaker = item.test_taker
      ? item
      : await assignTestTaker(trx, item, order, { testTaker: null, activation: null, now });
    const version = await repo.updateItemStatus(trx, item.id, status, now);
    const details = detailsFor(status, now);
    await repo.insertHistory(trx, [
      {
        order_id: order.id,
        order_item_id: item.id,
        status,
        source: change.source,
        escalation_level: details.status === 'results.escalation_raised' ? details.escalationLevel : null,
        acknowledgment_due_by:
          details.status === 'results.escalation_raised' ? details.acknowledgmentDueBy : null,
        changed_at: now,
      },
    ]);
    if (status === 'results.results_ready' || status === 'results.partial_results_ready') {
      await storeSandboxResults(
        deps,
        trx,
        withTaker,
        status === 'results.results_ready' ? 'final' : 'partial',
        now,
      );
    }
    const taker = withTaker.test_taker as TestTakerRecord;
    await deps.emit(
      trx,
      order.developer_id,
      buildResultsStatusChangeEvent({
        ...details,
        eventId: newSnowflake(now.getTime()),
        occurredAt: now,
        orderId: order.id,
        orderItemId: item.id,
        variantId: item.variant_id,
        testTaker: { test_taker_id: withTaker.test_taker_id ?? '', ...taker },
      }),
    );
    changed.push({ ...withTaker, results_status: status, version });
  }
  const allItems = items.map((item) => changed.find((c) => c.id === item.id) ?? item);
  await scheduleNextSteps(deps, trx, order, allItems, { orderChanged: false, changedItems: changed });
  return { applied: true, orderId: order.id, event };
}

function detailsFor(status: ResultsStatus, now: Date): ResultsStatusDetails {
  if (status === 'results.escalation_raised') {
    return {
      status,
      escalationLevel: 'high',
      acknowledgmentDueBy: new Date(now.getTime() + ESCALATION_ACK_WINDOW_MS),
    };
  }
  if (status === 'results.sample_rejected') return { status, failureCause: SANDBOX_FAILURE_CAUSE };
  if (status === 'results.awaiting_sample') throw new Error('awaiting_sample is never reached by an event');
  return { status };
}

/**
 * Creates the test_taker_id for an item: from the activation form when a person activated the kit,
 * otherwise (simulate) from the order's recipient, who is who the kit was sent to.
 */
export async function assignTestTaker(
  trx: Db,
  item: ItemRow,
  order: OrderRow,
  input: { testTaker: TestTakerRecord | null; activation: ItemRow['activation']; now: Date },
): Promise<ItemRow> {
  const recipient = order.recipient;
  const testTaker: TestTakerRecord = input.testTaker ?? {
    first_name: recipient.first_name,
    last_name: recipient.last_name,
    email: recipient.email,
    phone_number: recipient.phone_number,
    date_of_birth: recipient.date_of_birth,
    gender_at_birth: recipient.gender_at_birth,
  };
  const testTakerId = newSnowflake(input.now.getTime());
  const activation = input.activation ?? { address: null, collection_date: null };
  await repo.setTestTaker(trx, item.id, {
    test_taker_id: testTakerId,
    test_taker: JSON.stringify(testTaker),
    activation: JSON.stringify(activation),
    activated_at: input.now,
  });
  return { ...item, test_taker_id: testTakerId, test_taker: testTaker, activation, activated_at: input.now };
}

async function storeSandboxResults(
  deps: LifecycleDeps,
  trx: Db,
  item: ItemRow,
  reportStatus: 'final' | 'partial',
  now: Date,
) {
  const product = findProduct(deps.catalog, item.product_id);
  const taker = item.test_taker;
  if (!product || !taker || !item.test_taker_id) {
    deps.log.warn(
      { orderItemId: item.id },
      'no catalog product or test taker for sandbox results; none stored',
    );
    return;
  }
  const collectedAt = item.activation?.collection_date ?? (item.activated_at ?? now).toISOString();
  const bundle = buildSandboxResultsBundle({
    orderItemId: item.id,
    product,
    testTaker: {
      test_taker_id: item.test_taker_id,
      first_name: taker.first_name,
      last_name: taker.last_name,
      date_of_birth: taker.date_of_birth,
      gender_at_birth: taker.gender_at_birth,
    },
    collectedAt,
    issuedAt: now.toISOString(),
    reportStatus,
  });
  await repo.insertResults(trx, { orderItemId: item.id, reportStatus, bundle, issuedAt: now });
}
