import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { claimKey, requestHash } from '../../src/features/orders/idempotency.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { api, countRows, createOrder, type Json, orderBody } from '../helpers/orders.ts';

// Catalog, access, creation, validation, Idempotency-Key and payment. Timers are off so nothing
// moves behind the tests' backs.
describe('order API: catalog, access, creation, idempotency, payment', () => {
  let service: TestService;
  let developer: TestDeveloper;

  before(async () => {
    service = await startTestService({ env: { ORDER_SANDBOX_TIMERS: 'off' } });
    developer = await createDeveloper(service.ctx, { orderApi: true });
  });
  after(async () => {
    await service?.close();
  });

  describe('access', () => {
    test('no credentials: 401; a developer without order-API access: 403', async () => {
      const anonymous = await api(service, undefined, 'GET', '/api/v1/products');
      assert.equal(anonymous.status, 401);
      const outsider = await createDeveloper(service.ctx, { orderApi: false });
      const denied = await service.app.inject({
        method: 'GET',
        url: '/api/v1/orders',
        headers: outsider.headers,
      });
      const problem = problemOf(denied);
      assert.equal(problem.status, 403);
      assert.match(problem.body.detail, /order API access/);
      const creating = await api(service, outsider, 'POST', '/api/v1/orders', orderBody());
      assert.equal(creating.status, 403);
      assert.equal(await countRows(service, 'orders', outsider.devId), 0);
    });

    test('Basic base64(dev-id:api-key) works like the header pair; a wrong key is 401', async () => {
      const basic = Buffer.from(`${developer.devId}:${developer.apiKey}`).toString('base64');
      const ok = await api(service, undefined, 'GET', '/api/v1/products', undefined, {
        authorization: `Basic ${basic}`,
      });
      assert.equal(ok.status, 200);
      const wrong = Buffer.from(`${developer.devId}:sk_test_nope`).toString('base64');
      const refused = await api(service, undefined, 'GET', '/api/v1/products', undefined, {
        authorization: `Basic ${wrong}`,
      });
      assert.equal(refused.status, 401);
    });
  });

  describe('catalog and selection', () => {
    test('product types, products and variants with integer cents, numeric currency, collection types, countries', async () => {
      const types = (await api(service, developer, 'GET', '/api/v1/products')).body.list as Json[];
      assert.ok(types.length >= 3);
      assert.deepEqual(Object.keys(types[0] ?? {}).sort(), ['description', 'id', 'name']);
      const products = await api(service, developer, 'GET', '/api/v1/products/1');
      assert.equal(products.status, 200);
      const [lipids] = products.body.list as Json[];
      assert.equal(lipids?.name, 'Lipid Panel');
      assert.equal(lipids?.enabled, undefined, 'enabled only appears with show_all');
      const variants = (await api(service, developer, 'GET', `/api/v1/products/${lipids?.id}/variants`)).body
        .list as Json[];
      const us = variants.find((variant) => variant.id === 1011);
      assert.ok(us);
      assert.equal(us.price_cents, 4900);
      assert.equal(us.currency, 840);
      assert.deepEqual(us.available_collection_types, ['AT_HOME']);
      assert.deepEqual(us.supported_ship_to_countries, ['US', 'CA']);
      assert.ok(Number.isInteger(us.price_cents));
      assert.equal((await api(service, developer, 'GET', '/api/v1/products/999')).status, 404);
      assert.equal((await api(service, developer, 'GET', '/api/v1/products/abc')).status, 400);
    });

    test('the selection is a full-set write; a disabled product is hidden, and ordering it is 403', async () => {
      const picky = await createDeveloper(service.ctx, { orderApi: true });
      const saved = await api(service, picky, 'PUT', '/api/v1/products/selection', {
        product_ids: ['102', '104'],
      });
      assert.equal(saved.status, 200);
      assert.deepEqual(saved.body, { enabled_count: 2 });
      assert.deepEqual((await api(service, picky, 'GET', '/api/v1/products/1')).body.list, []);
      const all = (await api(service, picky, 'GET', '/api/v1/products/1?show_all=true')).body.list as Json[];
      assert.equal(all[0]?.enabled, false);
      assert.deepEqual((await api(service, picky, 'GET', '/api/v1/products/101/variants')).body.list, []);

      const refused = await api(service, picky, 'POST', '/api/v1/orders', orderBody());
      assert.equal(refused.status, 403);
      assert.match(String(refused.body.detail), /101.*disabled/);
      assert.equal(await countRows(service, 'orders', picky.devId), 0);
      assert.equal(await countRows(service, 'order_payments', picky.devId), 0);

      const unknown = await api(service, picky, 'PUT', '/api/v1/products/selection', {
        product_ids: ['102', '999'],
      });
      assert.equal(unknown.status, 400);
      assert.deepEqual(unknown.body.unknown_product_ids, ['999']);
      const allowed = await api(
        service,
        picky,
        'POST',
        '/api/v1/orders',
        orderBody({ items: [{ variant_id: '1021', quantity: 2 }] }),
      );
      assert.equal(allowed.status, 201);
    });
  });

  describe('creating orders', () => {
    test('201: starts at order.payment_processing, priced from the catalog, one kit per item', async () => {
      const response = await api(
        service,
        developer,
        'POST',
        '/api/v1/orders',
        orderBody({
          items: [
            { variant_id: '1011', quantity: 2 },
            { variant_id: '1041', quantity: 1 },
          ],
        }),
      );
      assert.equal(response.status, 201);
      const body = response.body;
      assert.match(String(body.order_id), /^\d+$/);
      assert.match(String(body.recipient_id), /^\d+$/);
      assert.equal(body.order_status, 'order.payment_processing');
      const items = body.order_items as Json[];
      assert.equal(items.length, 2);
      assert.equal(items[0]?.price_per_item_cents, 4900);
      assert.equal(items[0]?.quantity, 2);
      assert.equal(items[0]?.currency, 840);
      assert.equal(items[0]?.product_type_id, '1');
      assert.equal(items[0]?.results_status, 'results.awaiting_sample');
      assert.match(String(items[0]?.supplier_item_id), /^KIT-/);
      const order = await api(service, developer, 'GET', `/api/v1/orders/${body.order_id}`);
      assert.equal(order.status, 200);
      assert.deepEqual(order.body.order_financials, {
        currency: 840,
        total_cents: 2 * 4900 + 4500,
        discount_cents: 0,
      });
      assert.equal(order.body.client_id, developer.devId);
      assert.deepEqual(
        (order.body.status_history as Json[]).map((entry) => entry.status),
        ['order.payment_processing'],
      );
      const payment = await service.ctx.db
        .selectFrom('order_payments')
        .selectAll()
        .where('order_id', '=', String(body.order_id))
        .executeTakeFirstOrThrow();
      assert.equal(payment.status, 'captured');
      assert.equal(payment.amount_cents, 2 * 4900 + 4500);
    });

    test('client_order_reference_id is kept but not deduplicated', async () => {
      const first = await createOrder(service, developer, { client_order_reference_id: 'same-ref' });
      const second = await createOrder(service, developer, { client_order_reference_id: 'same-ref' });
      assert.notEqual(first.order_id, second.order_id);
      assert.equal(
        await countRows(service, 'orders', developer.devId, { client_order_reference_id: 'same-ref' }),
        2,
      );
    });

    test('400 lists every invalid field with field, tag, value and message', async () => {
      const response = await api(service, developer, 'POST', '/api/v1/orders', {
        collection_type: 'AT_HOME',
        items: [
          { variant_id: '1011', quantity: 1 },
          { variant_id: '9999', quantity: 1 },
        ],
        recipient: {
          first_name: 'Ada',
          last_name: 'L',
          email: 'not-an-email',
          date_of_birth: '1990-02-30',
          gender_at_birth: 'female',
          phone_number: '0044 1234',
        },
        shipping_address: {
          address_line_1: '1 Rue',
          city: 'Paris',
          postal_code: '75001',
          country_code: 'FR',
        },
      });
      const problem = problemOf({
        statusCode: response.status,
        headers: response.headers,
        body: JSON.stringify(response.body),
      });
      assert.equal(problem.status, 400);
      const fields = problem.body.invalid_fields as {
        field: string;
        tag: string;
        value: string;
        message: string;
      }[];
      const tagOf = (field: string) => fields.find((entry) => entry.field === field)?.tag;
      assert.equal(tagOf('client_order_reference_id'), 'required');
      assert.equal(tagOf('recipient.email'), 'email');
      assert.equal(tagOf('recipient.phone_number'), 'e164');
      assert.equal(tagOf('recipient.date_of_birth'), 'date');
      assert.equal(tagOf('items[1].variant_id'), 'unknown_variant');
      assert.equal(tagOf('shipping_address.country_code'), 'unsupported_ship_to_country');
      assert.deepEqual(problem.body.supported_ship_to_countries, ['CA', 'US']);
      const email = fields.find((entry) => entry.field === 'recipient.email');
      assert.equal(email?.value, 'not-an-email');
      assert.ok(email?.message);
      assert.match(problem.body.detail, /^invalid /);
      assert.equal(problem.body.instance, '/api/v1/orders');
    });

    test('malformed JSON and non-object bodies are 400 problems', async () => {
      const malformed = await service.app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: { ...developer.headers, 'content-type': 'application/json' },
        payload: '{"items": [',
      });
      assert.equal(malformed.statusCode, 400);
      const array = await api(service, developer, 'POST', '/api/v1/orders', []);
      assert.equal(array.status, 400);
      assert.equal((array.body.invalid_fields as Json[])[0]?.field, 'body');
    });
  });

  describe('Idempotency-Key', () => {
    test('same key and body: the original response, replayed, with no second order or charge', async () => {
      const body = orderBody({ client_order_reference_id: 'idem-1' });
      const headers = { 'idempotency-key': 'key-idem-1' };
      const first = await api(service, developer, 'POST', '/api/v1/orders', body, headers);
      assert.equal(first.status, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      // Same body with keys in another order: the same request.
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const again = await api(service, developer, 'POST', '/api/v1/orders', reordered, headers);
      assert.equal(again.status, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.body, first.body);
      assert.equal(
        await countRows(service, 'orders', developer.devId, { client_order_reference_id: 'idem-1' }),
        1,
      );
      assert.equal(
        await countRows(service, 'order_payments', developer.devId, {
          order_id: String(first.body.order_id),
        }),
        1,
      );
    });

    test('a retry whose nested objects list their keys in another order is the same request: replayed', async () => {
      const body = orderBody({ client_order_reference_id: 'idem-nested' });
      const headers = { 'idempotency-key': 'key-idem-nested' };
      const first = await api(service, developer, 'POST', '/api/v1/orders', body, headers);
      assert.equal(first.status, 201);
      // Only the members of `recipient` and `shipping_address` move; the top level keeps its order.
      const reversed = (value: unknown) => Object.fromEntries(Object.entries(value as Json).reverse());
      const retry = {
        ...body,
        recipient: reversed(body.recipient),
        shipping_address: reversed(body.shipping_address),
      };
      const again = await api(service, developer, 'POST', '/api/v1/orders', retry, headers);
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.body, first.body);
      // A nested value that really differs is another request.
      const changed = { ...body, recipient: { ...(body.recipient as Json), first_name: 'Augusta' } };
      const conflicting = await api(service, developer, 'POST', '/api/v1/orders', changed, headers);
      assert.equal(conflicting.status, 409);
      assert.match(String(conflicting.body.detail), /different request body/);
      assert.equal(
        await countRows(service, 'orders', developer.devId, { client_order_reference_id: 'idem-nested' }),
        1,
      );
    });

    test('same key with a different body: 409, nothing created', async () => {
      const headers = { 'idempotency-key': 'key-idem-2' };
      assert.equal(
        (
          await api(
            service,
            developer,
            'POST',
            '/api/v1/orders',
            orderBody({ client_order_reference_id: 'idem-2' }),
            headers,
          )
        ).status,
        201,
      );
      const changed = await api(
        service,
        developer,
        'POST',
        '/api/v1/orders',
        orderBody({ client_order_reference_id: 'idem-2', items: [{ variant_id: '1011', quantity: 3 }] }),
        headers,
      );
      assert.equal(changed.status, 409);
      assert.match(String(changed.body.detail), /different request body/);
      assert.equal(
        await countRows(service, 'orders', developer.devId, { client_order_reference_id: 'idem-2' }),
        1,
      );
    });

    test('a key still in flight: 409; the key is scoped to the developer; no header: no deduplication', async () => {
      const body = orderBody({ client_order_reference_id: 'idem-3' });
      const claimed = await claimKey(service.ctx.db, {
        developerId: developer.devId,
        key: 'key-idem-3',
        hash: requestHash('POST', '/api/v1/orders', body),
        now: new Date(),
        ttlMs: 86_400_000,
        leaseMs: 60_000,
      });
      assert.equal(claimed.kind, 'claimed');
      const inFlight = await api(service, developer, 'POST', '/api/v1/orders', body, {
        'idempotency-key': 'key-idem-3',
      });
      assert.equal(inFlight.status, 409);
      assert.match(String(inFlight.body.detail), /in flight/);

      const other = await createDeveloper(service.ctx, { orderApi: true });
      const theirs = await api(service, other, 'POST', '/api/v1/orders', body, {
        'idempotency-key': 'key-idem-3',
      });
      assert.equal(theirs.status, 201, 'another developer may use the same key');

      await createOrder(service, developer, { client_order_reference_id: 'no-key' });
      await createOrder(service, developer, { client_order_reference_id: 'no-key' });
      assert.equal(
        await countRows(service, 'orders', developer.devId, { client_order_reference_id: 'no-key' }),
        2,
      );
    });

    test('a claim left in flight by a crashed request is taken over once its lease has run out', async () => {
      const body = orderBody({ client_order_reference_id: 'idem-crash' });
      await claimKey(service.ctx.db, {
        developerId: developer.devId,
        key: 'key-idem-crash',
        hash: requestHash('POST', '/api/v1/orders', body),
        now: new Date(),
        ttlMs: 86_400_000,
        leaseMs: -1_000,
      });
      const headers = { 'idempotency-key': 'key-idem-crash' };
      const recovered = await api(service, developer, 'POST', '/api/v1/orders', body, headers);
      assert.equal(recovered.status, 201);
      const replayed = await api(service, developer, 'POST', '/api/v1/orders', body, headers);
      assert.equal(replayed.headers['idempotent-replayed'], 'true');
      assert.equal(replayed.body.order_id, recovered.body.order_id);
    });

    test('keys expire after the stated period (24 h by default), then may be reused', async () => {
      const headers = { 'idempotency-key': 'key-idem-4' };
      const first = await api(
        service,
        developer,
        'POST',
        '/api/v1/orders',
        orderBody({ client_order_reference_id: 'idem-4' }),
        headers,
      );
      const row = await service.ctx.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('key', '=', 'key-idem-4')
        .executeTakeFirstOrThrow();
      const ttlHours = (row.expires_at.getTime() - row.created_at.getTime()) / 3_600_000;
      assert.equal(ttlHours, 24);
      await service.ctx.db
        .updateTable('idempotency_keys')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('key', '=', 'key-idem-4')
        .execute();
      const reused = await api(
        service,
        developer,
        'POST',
        '/api/v1/orders',
        orderBody({ client_order_reference_id: 'idem-4b' }),
        headers,
      );
      assert.equal(reused.status, 201);
      assert.notEqual(reused.body.order_id, first.body.order_id);
      const openapi = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).body;
      assert.match(openapi, /remembered for 24 hours/);
    });

    test('an invalid Idempotency-Key is 400 naming it', async () => {
      const response = await api(service, developer, 'POST', '/api/v1/orders', orderBody(), {
        'idempotency-key': 'x'.repeat(256),
      });
      assert.equal(response.status, 400);
      assert.match(String(response.body.detail), /^invalid Idempotency-Key/);
    });

    const assertOneOrderOneCharge = async (
      responses: { status: number; body: Json }[],
      reference: string,
    ) => {
      const created = responses.filter((response) => response.status === 201);
      const others = responses.filter((response) => response.status !== 201);
      assert.ok(created.length >= 1, 'at least the winner answered 201');
      assert.ok(
        others.every((response) => response.status === 409),
        `only 201 or 409: ${others.map((r) => r.status).join(',')}`,
      );
      const ids = new Set(created.map((response) => response.body.order_id));
      assert.equal(ids.size, 1, 'every 201 names the same order');
      assert.equal(
        await countRows(service, 'orders', developer.devId, { client_order_reference_id: reference }),
        1,
      );
      const [orderId] = [...ids];
      const charges = await service.ctx.db
        .selectFrom('order_payments')
        .select(['status'])
        .where('developer_id', '=', developer.devId)
        .where('order_id', '=', String(orderId))
        .execute();
      assert.deepEqual(charges, [{ status: 'captured' }], 'exactly one charge');
    };

    test('100 concurrent creates with one key (inject): one order, one charge', async () => {
      const body = orderBody({ client_order_reference_id: 'burst-inject' });
      const responses = await Promise.all(
        Array.from({ length: 100 }, () =>
          api(service, developer, 'POST', '/api/v1/orders', body, { 'idempotency-key': 'burst-inject' }),
        ),
      );
      await assertOneOrderOneCharge(responses, 'burst-inject');
      const replay = await api(service, developer, 'POST', '/api/v1/orders', body, {
        'idempotency-key': 'burst-inject',
      });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
    });

    test('100 concurrent creates with one key over real HTTP: one order, one charge', async () => {
      const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (service.app.server.address() as AddressInfo).port;
      assert.ok(address.includes(String(port)));
      const body = JSON.stringify(orderBody({ client_order_reference_id: 'burst-http' }));
      const responses = await Promise.all(
        Array.from({ length: 100 }, async () => {
          const response = await fetch(`http://127.0.0.1:${port}/api/v1/orders`, {
            method: 'POST',
            headers: {
              ...developer.headers,
              'content-type': 'application/json',
              'idempotency-key': 'burst-http',
            },
            body,
          });
          return { status: response.status, body: (await response.json()) as Json };
        }),
      );
      await assertOneOrderOneCharge(responses, 'burst-http');
    });
  });

  describe('payment', () => {
    test('a declined payment: 402 with a category, no order, no charge, and the key is free to retry', async () => {
      const before = await countRows(service, 'orders', developer.devId);
      const headers = { 'idempotency-key': 'pay-1' };
      const declined = await api(
        service,
        developer,
        'POST',
        '/api/v1/orders',
        orderBody({ client_order_reference_id: 'pay-1', payment_method: 'pm_sandbox_decline' }),
        headers,
      );
      assert.equal(declined.status, 402);
      assert.equal(declined.body.category, 'payment_failed');
      assert.equal(declined.body.status, 402);
      assert.equal(await countRows(service, 'orders', developer.devId), before);
      assert.equal(await countRows(service, 'order_payments', developer.devId, { claim: 'none' }), 0);
      const held = await service.ctx.db
        .selectFrom('order_payments')
        .select('id')
        .where('developer_id', '=', developer.devId)
        .where('status', '!=', 'captured')
        .execute();
      assert.deepEqual(held, []);
      const retried = await api(
        service,
        developer,
        'POST',
        '/api/v1/orders',
        orderBody({ client_order_reference_id: 'pay-1' }),
        headers,
      );
      assert.equal(retried.status, 201);
    });

    test('other documented test values decline with their own categories', async () => {
      const cases: [Json, string][] = [
        [{ payment_method: 'pm_sandbox_insufficient_funds' }, 'insufficient_funds'],
        [{ payment_method: 'pm_sandbox_expired' }, 'expired_payment_method'],
        [
          {
            items: [{ variant_id: '1063', quantity: 100 }],
            shipping_address: {
              address_line_1: '1 Main St',
              city: 'Springfield',
              postal_code: '62701',
              country_code: 'US',
            },
          },
          'limit_exceeded',
        ],
      ];
      for (const [overrides, category] of cases) {
        const response = await api(
          service,
          developer,
          'POST',
          '/api/v1/orders',
          orderBody({ client_order_reference_id: `decline-${category}`, ...overrides }),
        );
        assert.equal(response.status, 402, category);
        assert.equal(response.body.category, category);
        assert.equal(
          await countRows(service, 'orders', developer.devId, {
            client_order_reference_id: `decline-${category}`,
          }),
          0,
        );
      }
    });
  });
});
