// The order API under /api/v1 (docs/wire-contract.md#lab-orders). Handlers are thin: parse, call the
// service, shape.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { AppContext } from '../../features/context.ts';
import { forbidden, unauthorized } from '../../core/errors.ts';
import type { App } from '../app-type.ts';
import type { Developer } from '../../features/developers/service.ts';
import type { ActivationActor } from '../../features/orders/activation.ts';
import { registerActivationPages } from '../hosted/activation-page.ts';
import { createHostedLimits } from '../hosted/limits.ts';
import {
  Product,
  ProductParams,
  ProductType,
  ProductTypeParams,
  ProductVariant,
  SelectionBody,
  SelectionResponse,
  ShowAllQuery,
} from '../../features/orders/catalog-schemas.ts';
import { parseIdempotencyKey } from '../../features/orders/idempotency.ts';
import {
  ClientResponse,
  DeliveriesQuery,
  DeliveriesResponse,
  OverviewQuery,
  OverviewResponse,
  UpdateWebhookUrlBody,
} from '../../features/orders/client-schemas.ts';
import {
  AcknowledgeResponse,
  ActivationBody,
  ActivationResponse,
  DownloadQuery,
  ResultListQuery,
  ResultListResponse,
  ResultParams,
  ResultsBundle,
  ResultsLinkResponse,
  TestTakerQuery,
} from '../../features/orders/result-schemas.ts';
import {
  CreateOrderBody,
  CreateOrderResponse,
  IdempotencyHeaders,
  LabsQuery,
  LabsResponse,
  OrderListQuery,
  OrderListResponse,
  OrderParams,
  OrderResponse,
  SimulateBody,
  SimulateResponse,
} from '../../features/orders/schemas.ts';

const tags = ['orders'];
const config = { auth: 'developer-or-basic' as const };

const NO_ACCESS = 'order API access is not enabled for this dev-id; ask the operator to enable it';

/** Credentials are optional on the kit-activation call; when present they must be valid and scope it. */
async function optionalActor(ctx: AppContext, request: FastifyRequest): Promise<ActivationActor> {
  const header = (name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  let devId = header('dev-id') ?? header('dev_id');
  let apiKey = header('x-api-key');
  const basic = header('authorization')?.match(/^Basic\s+([A-Za-z0-9+/=]+)$/i)?.[1];
  if ((!devId || !apiKey) && basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) [devId, apiKey] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
  }
  if (!devId && !apiKey && !header('authorization')) return { anonymous: true };
  if (!devId || !apiKey)
    throw unauthorized('incomplete credentials: send dev-id and x-api-key, Basic authorization, or none');
  const result = await ctx.developers.authenticate(devId, apiKey);
  if (!result.ok) throw result.kind === 'forbidden' ? forbidden(result.detail) : unauthorized(result.detail);
  if (!result.developer.orderApiAccess) throw forbidden(NO_ACCESS);
  return { developerId: result.developer.id };
}

export async function registerOrderRoutes(app: App, ctx: AppContext) {
  const orders = ctx.orders;
  const limits = createHostedLimits(ctx);

  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    scope.addHook('onRequest', async (request) => {
      const developer: Developer | null = request.developer;
      if (developer && !developer.orderApiAccess) throw forbidden(NO_ACCESS);
    });

    scope.get(
      '/api/v1/products',
      {
        config,
        schema: {
          tags,
          summary: 'Product types of the lab-test catalog',
          response: { 200: Type.Array(ProductType) },
        },
      },
      async () => orders.productTypes(),
    );

    scope.get(
      '/api/v1/products/:productTypeId',
      {
        config,
        schema: {
          tags,
          summary: 'Products of one type (only those enabled in your selection unless show_all=true)',
          params: ProductTypeParams,
          querystring: ShowAllQuery,
          response: { 200: Type.Array(Product) },
        },
      },
      async (request) =>
        orders.products(request.developer, request.params.productTypeId, request.query.show_all ?? false),
    );

    scope.get(
      '/api/v1/products/:productId/variants',
      {
        config,
        schema: {
          tags,
          summary: 'Orderable variants of a product (prices in integer cents, ISO 4217 numeric currency)',
          params: ProductParams,
          querystring: ShowAllQuery,
          response: { 200: Type.Array(ProductVariant) },
        },
      },
      async (request) =>
        orders.variants(request.developer, request.params.productId, request.query.show_all ?? false),
    );

    scope.put(
      '/api/v1/products/selection',
      {
        config,
        schema: {
          tags,
          summary: 'Replace the set of products you can order (ordering a disabled product: 403)',
          description: 'Until a selection is saved, every product is enabled.',
          body: SelectionBody,
          response: { 200: SelectionResponse },
        },
      },
      async (request) => orders.setSelection(request.developer, request.body.product_ids),
    );

    scope.post(
      '/api/v1/orders',
      {
        config,
        schema: {
          tags,
          summary: 'Create an order; payment is authorised and captured during creation',
          description:
            '201 with the order. 400 with invalid_fields; 402 with category when payment is declined (nothing is ' +
            'created or charged: safe to retry); 403 when a product is disabled in your selection; 409 on an ' +
            'Idempotency-Key reused with a different body or still in flight.',
          headers: IdempotencyHeaders,
          body: CreateOrderBody,
          response: { 201: CreateOrderResponse },
        },
      },
      async (request, reply) => {
        const result = await orders.create(request.developer, {
          body: request.body,
          idempotencyKey: parseIdempotencyKey(request.headers['idempotency-key']),
          method: request.method,
          path: '/api/v1/orders',
        });
        if (result.replayed) reply.header('idempotent-replayed', 'true');
        // Always 201: only successful creations are stored for replay.
        return reply.code(result.status as 201).send(result.body);
      },
    );

    scope.get(
      '/api/v1/orders',
      {
        config,
        schema: {
          tags,
          summary: 'Your orders, newest first, with cursor pagination and filters',
          querystring: OrderListQuery,
          response: { 200: OrderListResponse },
        },
      },
      async (request) => orders.list(request.developer, request.query),
    );

    scope.get(
      '/api/v1/orders/:orderID',
      {
        config,
        schema: {
          tags,
          summary: 'One order with its items and status history',
          params: OrderParams,
          response: { 200: OrderResponse },
        },
      },
      async (request) => orders.get(request.developer, request.params.orderID),
    );

    scope.post(
      '/api/v1/orders/:orderID/simulate',
      {
        config,
        schema: {
          tags,
          summary:
            'Sandbox only: apply a supplier event to an order (history and webhook as for a real update)',
          description:
            '403 for production dev-ids; 422 with current_status and sorted valid_events when the event is not a valid transition.',
          params: OrderParams,
          body: SimulateBody,
          response: { 200: SimulateResponse },
        },
      },
      async (request) => orders.simulate(request.developer, request.params.orderID, request.body),
    );

    scope.get(
      '/api/v1/results',
      {
        config,
        schema: {
          tags,
          summary: 'Results status of your order items, newest first',
          querystring: ResultListQuery,
          response: { 200: ResultListResponse },
        },
      },
      async (request) => orders.listResults(request.developer, request.query),
    );

    scope.get(
      '/api/v1/results/:orderItemID',
      {
        config,
        schema: {
          tags,
          summary: 'A signed link to the results of one order item, valid for 15 minutes',
          description:
            'download_url serves the FHIR R4 Bundle (DiagnosticReport, Patient, Observations) without credentials ' +
            'until expires_at.',
          params: ResultParams,
          querystring: TestTakerQuery,
          response: { 200: ResultsLinkResponse },
        },
      },
      async (request) =>
        orders.results(request.developer, request.params.orderItemID, request.query.test_taker_id),
    );

    scope.get(
      '/api/v1/clients/webhook-url',
      {
        config,
        schema: {
          tags,
          summary: 'Your webhook destination (the one every webhook of this dev-id goes to; "" when none)',
          response: { 200: ClientResponse },
        },
      },
      async (request) => orders.webhookUrl(request.developer),
    );

    scope.patch(
      '/api/v1/clients/webhook-url',
      {
        config,
        schema: {
          tags,
          summary: 'Set or clear your webhook destination',
          description:
            'The same destination as PUT /v2/webhook. Production: https and no private addresses (400 otherwise); ' +
            'sandbox: any URL. An empty webhook_url switches deliveries off.',
          body: UpdateWebhookUrlBody,
          response: { 200: ClientResponse },
        },
      },
      async (request) => orders.setWebhookUrl(request.developer, request.body.webhook_url),
    );

    scope.get(
      '/api/v1/labs',
      {
        config,
        schema: {
          tags,
          summary: 'Nearby lab draw sites for a US ZIP code (for GO_TO_LAB orders: requested_lab.code)',
          querystring: LabsQuery,
          response: { 200: LabsResponse },
        },
      },
      async (request) => orders.labs(request.query.zip_code),
    );

    scope.get(
      '/api/v1/overview',
      {
        config,
        schema: {
          tags,
          summary:
            'Your order figures over a window: orders by status, results in and missing, webhook failures',
          querystring: OverviewQuery,
          response: { 200: OverviewResponse },
        },
      },
      async (request) => orders.overview(request.developer, request.query),
    );

    scope.get(
      '/api/v1/webhook-deliveries',
      {
        config,
        schema: {
          tags,
          summary: 'Final outcomes of your order webhooks, newest first (outcome=failed: the failures only)',
          querystring: DeliveriesQuery,
          response: { 200: DeliveriesResponse },
        },
      },
      async (request) => orders.webhookDeliveries(request.developer, request.query),
    );

    scope.post(
      '/api/v1/results/:orderItemID/acknowledge',
      {
        config,
        schema: {
          tags,
          summary: 'Mark results as seen',
          params: ResultParams,
          querystring: TestTakerQuery,
          response: { 200: AcknowledgeResponse },
        },
      },
      async (request) =>
        orders.acknowledge(request.developer, request.params.orderItemID, request.query.test_taker_id),
    );
  });

  app.post(
    '/api/v1/orders/activate',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary:
          'Activate a kit: creates the test_taker_id (no credentials needed; the kit id is the secret)',
        description:
          'Credentials are optional: with them the kit must belong to your dev-id. 404 unknown kit, 409 already activated, ' +
          '400 with invalid_fields.',
        body: ActivationBody,
        response: { 200: ActivationResponse },
      },
    },
    async (request) => {
      const actor = await optionalActor(ctx, request);
      // Without credentials the kit id is the only secret: guesses are limited per sender.
      if ('anonymous' in actor) {
        const busy = await limits.admit(request);
        if (busy) throw busy;
      }
      return orders.activate(request.body, actor);
    },
  );

  // Where a results link points: the signature and its expiry are the credential.
  app.get(
    '/api/v1/results/:orderItemID/download',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        summary: 'The FHIR results bundle behind a signed link from GET /api/v1/results/{orderItemID}',
        description: '403 for a link that is not valid, 410 once it has expired.',
        params: ResultParams,
        querystring: DownloadQuery,
        response: { 200: ResultsBundle },
      },
    },
    async (request) => orders.download(request.params.orderItemID, request.query),
  );

  await registerActivationPages(app, ctx, limits);
}
