// The order service: what the routes (and the timers) call. Creation and activation live in their
// own files; this one wires dependencies and holds the catalog, reads, simulate and results.
import type { Logger } from 'pino';
import { isStorableInstant } from '../../core/cursor-bounds.ts';
import type { Config } from '../../core/config.ts';
import type { Clock } from '../../core/clock.ts';
import { AppError, badRequest, forbidden, invalidParameter, notFound } from '../../core/errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Db } from '../../store/db.ts';
import type { Developer } from '../developers/service.ts';
import type { WebhookEnvelope } from '../delivery/events.ts';
import { type ActivationActor, activateKit, kitState } from './activation.ts';
import { createOrder } from './create-order.ts';
import type { Catalog, CollectionType } from './domain/catalog.ts';
import {
  defaultEnabledProductIds,
  listProductsOfType,
  listVariants,
  parseProductSelection,
} from './domain/catalog.ts';
import type { PaymentGateway } from './domain/payment.ts';
import { SandboxPaymentGateway } from './domain/payment.ts';
import { SAMPLE_CATALOG } from './domain/sample-catalog.ts';
import type { OrderWebhookEvent } from './domain/events.ts';
import type { ResultsStatus } from './domain/statuses.ts';
import { isResultsStatus, parseOrderStatusFilter } from './domain/statuses.ts';
import { isSnowflake } from './ids.ts';
import { applyStatusEvent, type LifecycleDeps } from './lifecycle.ts';
import { sweepPayments } from './payment-sweeper.ts';
import { createPaymentsStore, recallAuthorization } from './payments-store.ts';
import * as repo from './repo.ts';
import { orderSettings } from './settings.ts';
import * as views from './views.ts';
import { overview, overviewWindow } from './analytics.ts';
import { boundLab, createLabDirectory, type LabDirectory, zip5 } from './domain/labs.ts';
import { createResultLinks } from './result-links.ts';
import { listDeliveries, parseOutcomeFilter, recordOrderEvent } from './webhook-log.ts';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export type OrdersServiceDeps = {
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  config: Config;
  log: Logger;
  webhooks: {
    emit(trx: Db, developerId: string, envelope: WebhookEnvelope): Promise<string>;
    /** The developer's one destination, which the order API's webhook-url reads and sets. */
    getDestination(developerId: string): Promise<{ url: string | null; status: string }>;
    setDestination(
      developerId: string,
      input: { url?: string; enabled?: boolean },
    ): Promise<{ url: string | null; status: string }>;
  };
  /** Draw sites for GO_TO_LAB orders; the sandbox directory by default. */
  labs?: LabDirectory;
  /** Defaults to the sandbox gateway; a real processor implements the same interface. */
  gateway?: PaymentGateway;
  catalog?: Catalog;
};

/** The webhook engine's envelope: an order event is about an order, not a user, and has no reference. */
export function orderEnvelope(event: OrderWebhookEvent): WebhookEnvelope {
  return { type: event.event_type, payload: event };
}

/** ClientResponse: the dev-id is both the client and the customer here (one account level). */
function clientView(developer: Developer, destination: { url: string | null; status: string }) {
  return {
    client_id: developer.id,
    customer_id: developer.id,
    webhook_url: destination.status !== 'disabled' && destination.url ? destination.url : '',
  };
}

export type OrderListQuery = {
  limit?: number;
  cursor?: string;
  client_order_reference_id?: string;
  status?: string;
  since?: string;
  collection_type?: CollectionType;
  missing?: boolean;
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function parseSince(value: string): Date {
  const date = RFC3339.test(value) ? new Date(value) : undefined;
  // Year 0 (or a year-1 time with an offset) is a JavaScript date PGlite cannot pass on.
  if (!date || !isStorableInstant(date.getTime())) {
    throw invalidParameter('since', 'expected an RFC 3339 date-time such as 2025-01-31T00:00:00Z');
  }
  return date;
}

function requireId(name: string, value: string): string {
  if (!isSnowflake(value)) throw invalidParameter(name, 'expected a numeric id string');
  return value;
}

export function createOrdersService(deps: OrdersServiceDeps) {
  const { db, clock } = deps;
  const catalog = deps.catalog ?? SAMPLE_CATALOG;
  const settings = deps.config.settings.get(orderSettings);
  const gateway = deps.gateway ?? new SandboxPaymentGateway({ recall: (id) => recallAuthorization(db, id) });
  const labs = deps.labs ?? createLabDirectory();
  const resultLinks = createResultLinks({
    encryptionKey: deps.config.encryptionKey,
    publicUrl: deps.config.publicUrl,
    clock,
  });
  const lifecycle: LifecycleDeps = {
    // Every order event is also indexed with its order and item, for the delivery views.
    emit: async (trx, developerId, event) => {
      const webhookEventId = await deps.webhooks.emit(trx, developerId, orderEnvelope(event));
      await recordOrderEvent(trx, { developerId, webhookEventId, event, at: clock.now() });
      return webhookEventId;
    },
    jobs: deps.jobs,
    clock,
    settings,
    catalog,
    log: deps.log,
  };
  const payments = createPaymentsStore({ db, gateway, clock });

  async function enabledProducts(developerId: string): Promise<ReadonlySet<number>> {
    const stored = await repo.findSelection(db, developerId);
    return stored ? new Set(stored) : defaultEnabledProductIds(catalog);
  }

  async function itemForTestTaker(developer: Developer, orderItemId: string, testTakerId: string) {
    requireId('order_item_id', orderItemId);
    const item = await repo.findItem(db, developer.id, orderItemId);
    // A wrong test_taker_id reads exactly like a wrong item id: results are personal data.
    if (!item || item.test_taker_id !== testTakerId) {
      throw notFound(`no results for order item "${orderItemId}" and test taker "${testTakerId}"`);
    }
    const results = await repo.findResults(db, item.id);
    if (!results) throw notFound(`no results yet for order item "${orderItemId}" (${item.results_status})`);
    return { item, results };
  }

  return {
    settings,
    catalog,
    /** Applies a status event exactly as simulate, timers and activation do (for jobs and tests). */
    applyStatusEvent: (trx: Db, change: Parameters<typeof applyStatusEvent>[2]) =>
      applyStatusEvent(lifecycle, trx, change),

    productTypes: () => [...catalog.product_types],

    async products(developer: Developer, productTypeId: number, showAll: boolean) {
      const list = listProductsOfType(catalog, productTypeId, {
        enabledProductIds: await enabledProducts(developer.id),
        showAll,
      });
      if (!list) throw notFound(`no product type ${productTypeId}`);
      return list;
    },

    async variants(developer: Developer, productId: number, showAll: boolean) {
      const list = listVariants(catalog, productId, {
        enabledProductIds: await enabledProducts(developer.id),
        showAll,
      });
      if (!list) throw notFound(`no product ${productId}`);
      return list;
    },

    async setSelection(developer: Developer, productIds: readonly string[]) {
      const parsed = parseProductSelection(catalog, productIds);
      if (!parsed.ok) {
        throw new AppError(
          'bad_request',
          `invalid product_ids: unknown product(s) ${parsed.unknownProductIds.join(', ')}`,
          {
            extensions: { unknown_product_ids: parsed.unknownProductIds },
          },
        );
      }
      await repo.saveSelection(db, developer.id, parsed.productIds, clock.now());
      return { enabled_count: parsed.productIds.length };
    },

    /** Voids authorisations a crashed creation left without an order; captures stored orders' ones. */
    sweepPayments: () => sweepPayments({ db, gateway, clock, log: deps.log }, settings.paymentGraceMs),

    create: (developer: Developer, request: Parameters<typeof createOrder>[2]) =>
      createOrder({ ...lifecycle, db, payments, enabledProducts, labs }, developer, request),

    async get(developer: Developer, orderId: string) {
      const order = await repo.findOrder(db, developer.id, requireId('order_id', orderId));
      if (!order) throw notFound(`no order "${orderId}"`);
      const [items, history] = await Promise.all([
        repo.itemsOf(db, [order.id]),
        repo.historyOf(db, order.id),
      ]);
      return views.orderView(order, items, history, boundLab(labs, order));
    },

    async list(developer: Developer, query: OrderListQuery) {
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const filters: repo.OrderListFilters = {};
      if (query.cursor !== undefined) filters.after = views.decodeOrderCursor(query.cursor);
      if (query.status !== undefined) {
        const status = parseOrderStatusFilter(query.status);
        if (!status) throw invalidParameter('status', 'expected an order status such as order.processing');
        filters.status = status;
      }
      if (query.since !== undefined) filters.since = parseSince(query.since);
      if (query.client_order_reference_id !== undefined)
        filters.clientOrderReferenceId = query.client_order_reference_id;
      if (query.collection_type !== undefined) filters.collectionType = query.collection_type;
      if (query.missing !== undefined) filters.missing = query.missing;
      const rows = await repo.listOrders(db, developer.id, filters, limit);
      const page = rows.slice(0, limit);
      const items = await repo.itemsOf(
        db,
        page.map((order) => order.id),
      );
      const last = page[page.length - 1];
      return {
        orders: page.map((order) =>
          views.orderSummaryView(
            catalog,
            order,
            items.filter((item) => item.order_id === order.id),
          ),
        ),
        ...(rows.length > limit && last ? { next_cursor: views.encodeOrderCursor(last) } : {}),
      };
    },

    async simulate(developer: Developer, orderId: string, body: { event: string; order_item_id?: string }) {
      if (developer.environment !== 'sandbox') {
        throw forbidden(
          'simulate is available only to sandbox dev-ids; production orders move only on real supplier updates',
        );
      }
      requireId('order_id', orderId);
      if (body.order_item_id !== undefined) requireId('order_item_id', body.order_item_id);
      const outcome = await db.transaction().execute((trx) =>
        applyStatusEvent(lifecycle, trx, {
          orderId,
          developerId: developer.id,
          event: body.event,
          source: 'simulate',
          ...(body.order_item_id !== undefined ? { orderItemId: body.order_item_id } : {}),
        }),
      );
      if (!outcome.applied) throw new Error('simulate never sets an expected version');
      return { order_id: orderId, applied_event: outcome.event };
    },

    activate: (body: unknown, actor: ActivationActor) => activateKit({ ...lifecycle, db }, body, actor),

    kitState: (kitId: string) => kitState(db, kitId),

    async listResults(developer: Developer, query: { limit?: number; cursor?: string; status?: string }) {
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      let status: ResultsStatus | undefined;
      if (query.status !== undefined) {
        if (!isResultsStatus(query.status))
          throw invalidParameter('status', 'expected a results status such as results.results_ready');
        status = query.status;
      }
      const afterId = query.cursor === undefined ? undefined : views.decodeItemCursor(query.cursor);
      const rows = await repo.listItems(
        db,
        developer.id,
        { ...(status ? { status } : {}), ...(afterId ? { afterId } : {}) },
        limit,
      );
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        results: page.map((item) => views.resultSummaryView(catalog, item)),
        ...(rows.length > limit && last ? { next_cursor: views.encodeItemCursor(last) } : {}),
      };
    },

    /** A signed link to the results bundle, valid for 15 minutes (the bundle itself: `download`). */
    async results(developer: Developer, orderItemId: string, testTakerId: string) {
      if (testTakerId === '') throw badRequest('missing test_taker_id: required parameter');
      const { item } = await itemForTestTaker(developer, orderItemId, testTakerId);
      return resultLinks.linkFor(item.id, testTakerId);
    },

    /** The bundle a results link points at: no credentials, the link's signature and expiry decide. */
    async download(
      orderItemId: string,
      query: { test_taker_id?: string; expires?: string; signature?: string },
    ) {
      requireId('order_item_id', orderItemId);
      const check = resultLinks.check(orderItemId, query);
      if (check === 'expired') throw new AppError('gone', 'this results link has expired; request a new one');
      if (check === 'invalid') throw forbidden('this results link is not valid');
      const item = await repo.findItemById(db, orderItemId);
      const results =
        item && item.test_taker_id === query.test_taker_id ? await repo.findResults(db, item.id) : undefined;
      if (!results) throw notFound(`no results for order item "${orderItemId}"`);
      return results.bundle;
    },

    /** The order API's view of the developer's webhook destination (`""` when none is active). */
    async webhookUrl(developer: Developer) {
      const destination = await deps.webhooks.getDestination(developer.id);
      return clientView(developer, destination);
    },

    /** Sets the destination (the same one every webhook uses); an empty URL switches it off. */
    async setWebhookUrl(developer: Developer, webhookUrl: string | undefined) {
      const url = (webhookUrl ?? '').trim();
      const destination = await deps.webhooks.setDestination(
        developer.id,
        url === '' ? { enabled: false } : { url },
      );
      return clientView(developer, destination);
    },

    /** Nearby draw sites for GO_TO_LAB orders. */
    labs(zipCode: string | undefined) {
      if (!zipCode || !zip5(zipCode))
        throw invalidParameter('zip_code', 'expected a 5-digit US ZIP code, optionally ZIP+4');
      return { labs: labs.near(zipCode) };
    },

    async overview(developer: Developer, query: { since?: string; until?: string }) {
      return overview(db, developer.id, overviewWindow(query, clock.now()));
    },

    async webhookDeliveries(
      developer: Developer,
      query: { outcome?: string; limit?: number; cursor?: string },
    ) {
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
        throw invalidParameter('limit', `expected an integer from 1 to ${MAX_PAGE_SIZE}`);
      const outcome = parseOutcomeFilter(query.outcome);
      return listDeliveries(db, developer.id, {
        limit,
        ...(outcome ? { outcome } : {}),
        ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
      });
    },

    async acknowledge(developer: Developer, orderItemId: string, testTakerId: string) {
      if (testTakerId === '') throw badRequest('missing test_taker_id: required parameter');
      const { item } = await itemForTestTaker(developer, orderItemId, testTakerId);
      await repo.acknowledgeItem(db, item.id, clock.now());
      return { status: 'acknowledged' as const };
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
