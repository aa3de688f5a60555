// POST /api/v1/orders: Idempotency-Key, validation, catalog selection, payment, storage.
//
// Order of work: a live key answers at once (replay or 409) without touching payment; then the
// body is validated (400) and checked against the developer's selection (403); only then is the
// key claimed, the payment authorised (402 releases the claim: nothing created, nothing held),
// the order stored together with its first history entry, webhook, timer, the key's stored
// response and the payment's link to it, and finally the payment captured. A failure before the
// order commits voids the authorisation and releases the claim, so every failure is safe to retry
// with the same key. A crash leaves what no `catch` can undo: the claim lapses after its lease (a
// retry with the same key then takes it over), and the payment sweeper (payment-sweeper.ts) voids
// an authorisation that never got its order, or captures one whose order was stored.
import { AppError, forbidden } from '../../core/errors.ts';
import type { Db } from '../../store/db.ts';
import type { Developer } from '../developers/service.ts';
import { disabledProductIds } from './domain/catalog.ts';
import type { InvalidField } from './domain/field-rules.ts';
import { describeValue } from './domain/field-rules.ts';
import { SANDBOX_PAYMENT_METHODS } from './domain/payment.ts';
import { INITIAL_ORDER_STATUS, INITIAL_RESULTS_STATUS } from './domain/statuses.ts';
import type { CreateOrderInput } from './domain/validation.ts';
import { parseCreateOrder } from './domain/validation.ts';
import * as idem from './idempotency.ts';
import { newKitId, newSnowflake } from './ids.ts';
import type { LifecycleDeps } from './lifecycle.ts';
import { orderStatusEvent } from './lifecycle.ts';
import type { PaymentsStore } from './payments-store.ts';
import type { ItemRow, OrderRow } from './repo.ts';
import * as repo from './repo.ts';
import { scheduleNextSteps } from './timers.ts';
import { boundLab, type LabDirectory } from './domain/labs.ts';
import { createOrderView } from './views.ts';

export type CreateOrderResponse = ReturnType<typeof createOrderView>;
export type CreateOrderResult = { status: number; body: CreateOrderResponse; replayed: boolean };

export type CreateOrderDeps = LifecycleDeps & {
  db: Db;
  payments: PaymentsStore;
  enabledProducts(developerId: string): Promise<ReadonlySet<number>>;
  /** Draw sites: `requested_lab.code` must name one; a GO_TO_LAB order is bound to one. */
  labs: LabDirectory;
};

/**
 * Which payment method on file to charge. Not part of the reference request: a Tributary
 * extension so sandbox callers can pick a documented test value; absent means the approving one.
 */
export const DEFAULT_PAYMENT_METHOD = SANDBOX_PAYMENT_METHODS.approve;

function readPaymentMethod(body: unknown): { value: string; issue?: InvalidField } {
  const raw =
    body !== null && typeof body === 'object' ? (body as Record<string, unknown>).payment_method : undefined;
  if (raw === undefined || raw === null) return { value: DEFAULT_PAYMENT_METHOD };
  if (typeof raw === 'string' && raw.trim() !== '' && raw.length <= 100) return { value: raw.trim() };
  return {
    value: DEFAULT_PAYMENT_METHOD,
    issue: {
      field: 'payment_method',
      tag: 'type',
      value: describeValue(raw),
      message: 'payment_method must be a payment method token (1-100 characters)',
    },
  };
}

function validate(deps: CreateOrderDeps, body: unknown): { order: CreateOrderInput; paymentMethod: string } {
  const parsed = parseCreateOrder(body, {
    catalog: deps.catalog,
    now: deps.clock.now(),
    isKnownLabCode: (code) => deps.labs.byCode(code) !== undefined,
  });
  const payment = readPaymentMethod(body);
  const issues = [...(parsed.ok ? [] : parsed.invalid_fields), ...(payment.issue ? [payment.issue] : [])];
  if (!parsed.ok || issues.length > 0) {
    const extensions: Record<string, unknown> = { invalid_fields: issues };
    if (!parsed.ok && parsed.supported_ship_to_countries)
      extensions.supported_ship_to_countries = parsed.supported_ship_to_countries;
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw new AppError(
      'bad_request',
      `invalid ${first?.field ?? 'body'}: ${first?.message ?? 'invalid order'}${more}`,
      { extensions },
    );
  }
  return { order: parsed.order, paymentMethod: payment.value };
}

function replayOrThrow(outcome: idem.ClaimOutcome, key: string): CreateOrderResult {
  if (outcome.kind === 'replay') {
    return {
      status: outcome.response.status,
      body: outcome.response.body as CreateOrderResponse,
      replayed: true,
    };
  }
  if (outcome.kind === 'conflict') throw idem.conflictFor(outcome.reason, key);
  throw new Error('a claimed key has no stored response');
}

export async function createOrder(
  deps: CreateOrderDeps,
  developer: Developer,
  request: { body: unknown; idempotencyKey: string | undefined; method: string; path: string },
): Promise<CreateOrderResult> {
  const { db, clock, settings } = deps;
  const key = request.idempotencyKey;
  const hash = key ? idem.requestHash(request.method, request.path, request.body) : '';
  if (key) {
    await idem.sweepExpiredKeys(db, developer.id, clock.now());
    const live = await idem.lookupKey(db, developer.id, key, hash, clock.now());
    if (live) return replayOrThrow(live, key);
  }

  const { order: input, paymentMethod } = validate(deps, request.body);
  const disabled = disabledProductIds(input.items, await deps.enabledProducts(developer.id));
  if (disabled.length > 0) {
    throw forbidden(
      `product(s) ${disabled.join(', ')} are disabled in your catalog selection; enable them with PUT /api/v1/products/selection`,
    );
  }

  const orderId = newSnowflake(clock.now().getTime());
  let claim = orderId;
  if (key) {
    const outcome = await idem.claimKey(db, {
      developerId: developer.id,
      key,
      hash,
      now: clock.now(),
      ttlMs: settings.idempotencyTtlMs,
      leaseMs: settings.claimLeaseMs,
    });
    if (outcome.kind !== 'claimed') return replayOrThrow(outcome, key);
    claim = outcome.claim;
  }

  // Released on every failure, unless an order now stands behind the claim.
  let keepClaim = false;
  try {
    const authorization = await deps.payments.authorize({
      developerId: developer.id,
      claim,
      amountCents: input.total_cents,
      currency: input.currency,
      paymentMethod,
    });
    if (!authorization.ok) {
      const { decline } = authorization;
      throw new AppError('payment_required', `payment authorisation failed: ${decline.message}`, {
        extensions: { category: decline.category },
      });
    }
    let body: CreateOrderResponse;
    try {
      body = await db.transaction().execute(async (trx) => {
        const now = clock.now();
        const { order, items } = buildRows(developer, input, {
          orderId,
          claim: key ? claim : null,
          paymentId: authorization.authorizationId,
          now,
        });
        await deps.payments.attach(trx, authorization.authorizationId, orderId);
        await repo.insertOrder(trx, toInsertable(order), items.map(toInsertableItem));
        await repo.insertHistory(trx, [
          {
            order_id: orderId,
            order_item_id: null,
            status: order.status,
            source: 'create',
            escalation_level: null,
            acknowledgment_due_by: null,
            changed_at: now,
          },
        ]);
        await deps.emit(trx, developer.id, orderStatusEvent(order, items, now));
        await scheduleNextSteps(deps, trx, order, items, { orderChanged: true, changedItems: [] });
        const view = createOrderView(order, items, boundLab(deps.labs, order));
        if (key) await idem.completeKey(trx, developer.id, key, claim, { status: 201, body: view });
        return view;
      });
      keepClaim = true;
    } catch (error) {
      // A request that took over this claim after our lease ran out may have stored the order
      // (the claim is unique): the authorisation and the key are then its, not ours to undo.
      if (key && (await repo.orderExistsForClaim(db, claim))) {
        keepClaim = true;
        throw idem.conflictFor('in_flight', key);
      }
      await deps.payments.void(authorization.authorizationId);
      throw error;
    }
    if (!(await deps.payments.capture(authorization.authorizationId, orderId))) {
      deps.log.error(
        { orderId, authorizationId: authorization.authorizationId },
        'capture failed after the order was stored',
      );
    }
    return { status: 201, body, replayed: false };
  } finally {
    if (key && !keepClaim) await idem.releaseKey(db, developer.id, key, claim);
  }
}

function buildRows(
  developer: Developer,
  input: CreateOrderInput,
  ids: { orderId: string; claim: string | null; paymentId: string; now: Date },
): { order: OrderRow; items: ItemRow[] } {
  const { now } = ids;
  const order: OrderRow = {
    id: ids.orderId,
    developer_id: developer.id,
    environment: developer.environment,
    client_order_reference_id: input.client_order_reference_id,
    collection_type: input.collection_type,
    status: INITIAL_ORDER_STATUS,
    version: 0,
    recipient_id: newSnowflake(now.getTime()),
    recipient: input.recipient,
    shipping_address: input.shipping_address ?? null,
    requested_lab_address: input.requested_lab_address ?? null,
    requested_lab: input.requested_lab ?? null,
    currency: input.currency,
    total_cents: input.total_cents,
    tracking_number: null,
    payment_id: ids.paymentId,
    idempotency_claim: ids.claim,
    created_at: now,
    updated_at: now,
  };
  const items: ItemRow[] = input.items.map((line, position) => ({
    id: newSnowflake(now.getTime()),
    order_id: ids.orderId,
    developer_id: developer.id,
    position,
    variant_id: line.variant_id,
    product_id: line.product_id,
    product_type_id: line.product_type_id,
    quantity: line.quantity,
    price_per_item_cents: line.price_per_item_cents,
    currency: line.currency,
    results_status: INITIAL_RESULTS_STATUS,
    version: 0,
    supplier_item_id: newKitId(),
    lab_tracking_number: null,
    test_taker_id: null,
    test_taker: null,
    activation: null,
    activated_at: null,
    acknowledged_at: null,
    created_at: now,
    updated_at: now,
  }));
  return { order, items };
}

const json = <T>(value: T | null) => (value === null ? null : JSON.stringify(value));

function toInsertable(order: OrderRow) {
  return {
    ...order,
    recipient: JSON.stringify(order.recipient),
    shipping_address: json(order.shipping_address),
    requested_lab_address: json(order.requested_lab_address),
    requested_lab: json(order.requested_lab),
  };
}

function toInsertableItem(item: ItemRow) {
  return { ...item, test_taker: json(item.test_taker), activation: json(item.activation) };
}
