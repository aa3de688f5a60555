// The vendor's current published API as a contract (issue 14): a full sandbox run through the
// HTTP API, every answer and every webhook body it produces validated with Ajv against the
// vendor's own OpenAPI documents (../shared/reference/vendor-openapi/, read in place), and every
// operation of those documents checked to be served. Deliberate deviations are listed here with
// their reason, and in docs/vendor-spec-deviations.md.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import {
  authenticateUser,
  callback,
  connectSandboxUser,
  decideSandboxConsent,
} from '../helpers/connections.ts';
import { activationBody, orderBody } from '../helpers/orders.ts';
import { concretePath, missingVendorSpecs, VendorContract } from '../helpers/vendor-contract.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

type Json = Record<string, unknown>;

/** Operations of the documents another issue builds: listed, with the reason, never silently skipped. */
const NOT_SERVED_ON_PURPOSE: Readonly<Record<string, string>> = {
  '/v2/lab-reports': 'lab-report operations are built by a separate issue',
};

/** Events Tributary sends that no vendor document defines: the seed requires them. */
const EXTRA_EVENTS: Readonly<Record<string, string>> = {
  rate_limit_hit: 'the seed lists rate_limit_hit (a provider asked us to wait); the vendor documents omit it',
  healthcheck: 'the seed lists healthcheck (destination liveness); the vendor documents omit it',
};

const unservedOnPurpose = (served: string) =>
  Object.entries(NOT_SERVED_ON_PURPOSE).find(([prefix]) => served.startsWith(prefix))?.[1] ?? null;

describe(
  'the vendor’s current published API (v2-bundled, vantage-bundled, widget-bundled)',
  { skip: missingVendorSpecs() },
  () => {
    let contract: VendorContract;
    let service: TestService;
    let developer: TestDeveloper;
    let receiver: WebhookReceiver;

    /** Every answer goes through here: recorded and checked against the documents. */
    async function call(
      method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: string,
      options: { payload?: unknown; headers?: Record<string, string>; as?: TestDeveloper | null } = {},
    ) {
      const who = options.as === undefined ? developer : options.as;
      const response = await service.app.inject({
        method,
        url,
        headers: { ...(who?.headers ?? {}), ...(options.headers ?? {}) },
        ...(options.payload === undefined ? {} : { payload: options.payload as Json }),
      });
      contract.checkResponse({
        method,
        url,
        status: response.statusCode,
        contentType: response.headers['content-type'],
        body: response.body,
      });
      return response;
    }
    const json = <T = Json>(response: { body: string }) => JSON.parse(response.body) as T;
    const ok = (response: { statusCode: number; body: string }, status = 200) =>
      assert.equal(response.statusCode, status, response.body.slice(0, 500));

    /**
     * One part of the run. A part that breaks is recorded as a contract error and the run goes on,
     * so one missing operation does not hide what the rest of the run would have found.
     */
    async function part(name: string, steps: () => Promise<void>) {
      try {
        await steps();
      } catch (error) {
        contract.errors.push({ where: `run: ${name}`, problem: (error as Error).message.split('\n')[0]! });
      }
    }

    before(async () => {
      contract = new VendorContract({ extraEvents: EXTRA_EVENTS });
      service = await startTestService({
        env: { SANDBOX_ARRIVAL_MINUTES: 'off', ORDER_SANDBOX_TIMERS: 'off' },
      });
      developer = await createDeveloper(service.ctx, { orderApi: true });
      receiver = await startWebhookReceiver();
      const set = await service.app.inject({
        method: 'PUT',
        url: '/v2/webhook',
        headers: developer.headers,
        payload: { url: receiver.url },
      });
      ok(set);
    });
    after(async () => {
      await service?.close();
      await receiver?.close();
    });

    test('every operation of the documents is served (lab reports excepted, with the reason)', async () => {
      const missing: string[] = [];
      const excused: string[] = [];
      for (const operation of contract.operations) {
        const response = await service.app.inject({
          method: operation.method as 'GET',
          url: concretePath(operation),
        });
        const body = response.body;
        const unrouted =
          response.statusCode === 405 ||
          (response.statusCode === 404 && body.includes('"detail":"no route for'));
        if (!unrouted) continue;
        const reason = unservedOnPurpose(operation.served);
        const label = `${operation.method} ${operation.served} (${operation.spec} ${operation.operationId ?? ''})`;
        if (reason) excused.push(`${label}: ${reason}`);
        else missing.push(label);
      }
      if (excused.length > 0) console.log(`not served on purpose:\n${excused.join('\n')}`);
      assert.deepEqual(
        missing,
        [],
        `operations of the vendor documents that answer "no route":\n${missing.join('\n')}`,
      );
    });

    test('a full sandbox run: every answer and every webhook body validates against the documents', async () => {
      let userId = '';
      let other = '';

      await part('integrations and connections', async () => {
        ok(await call('GET', '/v2/integrations', { as: null }));
        ok(await call('GET', '/v2/integrations/detailed', { as: null }));
        ok(await call('GET', '/v2/integrations/detailed?sdk=true'));
        ok(
          await call('POST', '/v2/auth/generateWidgetSession', {
            payload: { reference_id: 'contract', language: 'en' },
          }),
        );
        ok(await call('POST', '/v2/auth/generateAuthToken'));
        ok(
          await call('POST', '/v2/auth/authenticateUser?resource=SANDBOX', {
            payload: { reference_id: 'never-finished' },
          }),
        );
        // A flow the user abandons: the failure arm of the auth event.
        const abandoned = await authenticateUser(service.app, developer, 'SANDBOX', {
          reference_id: 'gave-up',
        });
        await callback(service.app, await decideSandboxConsent(service.app, abandoned.authUrl, 'deny'));

        await connectSandboxUser(service.app, developer, {
          referenceId: 'contract-user',
          account: 'contract-account',
        });
        // The same provider account again: user_reauth, the old id deleted.
        ({ userId } = await connectSandboxUser(service.app, developer, {
          referenceId: 'contract-user',
          account: 'contract-account',
        }));
        ({ userId: other } = await connectSandboxUser(service.app, developer, { referenceId: 'second' }));

        ok(await call('GET', `/v2/userInfo?user_id=${userId}`));
        ok(await call('GET', '/v2/userInfo?reference_id=contract-user'));
        ok(await call('GET', '/v2/subscriptions'));
        ok(await call('GET', '/v2/subscriptions?page=0&per_page=10'));
        ok(await call('POST', '/v2/bulkUserInfo', { payload: [userId, other] }));
      });

      await part('the widget API', async () => {
        ok(
          await call('POST', '/widget/api/session', {
            payload: { providers: 'SANDBOX', reference_id: 'contract' },
          }),
        );
      });

      await part('every data type, with and without samples, answered and to the webhook', async () => {
        const range = 'start_date=2024-03-01&end_date=2024-03-08';
        for (const type of ['activity', 'body', 'daily', 'menstruation', 'nutrition', 'sleep']) {
          for (const samples of [true, false]) {
            ok(
              await call(
                'GET',
                `/v2/${type}?user_id=${userId}&${range}&to_webhook=false&with_samples=${samples}`,
              ),
            );
            ok(await call('GET', `/v2/${type}?user_id=${userId}&${range}&with_samples=${samples}`));
          }
        }
        ok(await call('GET', `/v2/athlete?user_id=${userId}&to_webhook=false`));
        ok(await call('GET', `/v2/athlete?user_id=${userId}`));
        // Over a month: large_request_processing, large_request_sending and the chunks.
        ok(await call('GET', `/v2/daily?user_id=${userId}&start_date=2024-01-01&end_date=2024-03-01`));
        // Provider-side planned workouts through the older contract's alias, to the webhook.
        ok(
          await call('GET', `/v2/plannedWorkout?user_id=${userId}&start_date=2024-10-01&end_date=2024-10-20`),
        );
      });

      await part('workout templates and planned workouts', async () => {
        const template = {
          name: 'Threshold intervals',
          description: 'Warm up, 4 × 5 min at threshold, cool down',
          sport: 'running',
          environment: 'outdoor',
          step_blocks: [
            {
              completion_condition: { type: 'reps', value: 1 },
              steps: [{ completion_condition: { type: 'time', value: 600 }, intensity_type: 'warmup' }],
            },
            {
              completion_condition: { type: 'reps', value: 4 },
              steps: [
                {
                  completion_condition: { type: 'time', value: 300 },
                  intensity_type: 'active',
                  intensity_targets: [
                    { target_type: 'heart_rate_threshold_percentage', value_low: 95, value_high: 100 },
                  ],
                },
                { completion_condition: { type: 'time', value: 120 }, intensity_type: 'recovery' },
              ],
            },
          ],
          estimated_duration_seconds: 2700,
        };
        const created = await call('POST', '/v2/workouts', { payload: template });
        ok(created);
        const workoutId = json<{ workout_id: string }>(created).workout_id;
        ok(await call('GET', '/v2/workouts'));
        ok(await call('GET', `/v2/workouts/${workoutId}`));
        const planned = await call('POST', `/v2/workouts/${workoutId}/plan?user_id=${userId}`, {
          payload: { planned_date: '2024-10-05', threshold_heart_rate: 172, max_heart_rate: 190 },
        });
        ok(planned, 201);
        const plannedId = json<{ planned_workout_id: string }>(planned).planned_workout_id;
        ok(
          await call(
            'GET',
            `/v2/plannedWorkouts?user_id=${userId}&start_date=2024-10-01&end_date=2024-10-20`,
          ),
        );
        ok(await call('GET', `/v2/plannedWorkouts?user_id=${userId}`));
        ok(await call('GET', `/v2/plannedWorkouts/${plannedId}?user_id=${userId}`));
        ok(
          await call('PATCH', `/v2/plannedWorkouts/${plannedId}?user_id=${userId}`, {
            payload: { planned_date: '2024-10-06' },
          }),
        );
        ok(await call('DELETE', `/v2/plannedWorkouts/${plannedId}?user_id=${userId}`), 204);
        ok(
          await call('POST', `/v2/workouts/${workoutId}/plan?user_id=${userId}`, {
            payload: { planned_date: '2024-10-08' },
          }),
          201,
        );
        ok(await call('DELETE', `/v2/workouts/${workoutId}`), 204);
        assert.equal((await call('GET', '/v2/workouts/999999999')).statusCode, 404);
      });

      await part('errors the documents describe', async () => {
        const range = 'start_date=2024-03-01&end_date=2024-03-08';
        assert.equal(
          (await call('GET', `/v2/activity?user_id=${userId}&start_date=yesterday`)).statusCode,
          400,
        );
        assert.equal(
          (await call('GET', `/v2/activity?user_id=${userId}&${range}`, { as: null })).statusCode,
          401,
        );
        const unknown = '00000000-0000-4000-8000-000000000000';
        assert.equal((await call('GET', `/v2/userInfo?user_id=${unknown}`)).statusCode, 404);
        ok(await call('DELETE', `/v2/auth/deauthenticateUser?user_id=${other}`));
      });

      let orderId = '';
      let itemId = '';
      let testTakerId = '';
      await part('the order API: catalog, labs, orders, activation', async () => {
        ok(await call('GET', '/api/v1/clients/webhook-url'));
        ok(await call('PATCH', '/api/v1/clients/webhook-url', { payload: { webhook_url: receiver.url } }));
        const types = json<{ id: number }[]>(await call('GET', '/api/v1/products'));
        const products = json<{ id: number }[]>(
          await call('GET', `/api/v1/products/${types[0]!.id}?show_all=true`),
        );
        ok(await call('GET', `/api/v1/products/${products[0]!.id}/variants`));
        ok(
          await call('PUT', '/api/v1/products/selection', {
            payload: { product_ids: products.map((product) => String(product.id)) },
          }),
        );
        const atHome = await call('POST', '/api/v1/orders', {
          payload: orderBody({ client_order_reference_id: 'c-1' }),
        });
        ok(atHome, 201);
        const order = json<{
          order_id: string;
          order_items: { order_item_id: string; supplier_item_id: string }[];
        }>(atHome);
        orderId = order.order_id;
        itemId = order.order_items[0]!.order_item_id;
        ok(await call('GET', '/api/v1/orders?limit=5'));
        for (const event of ['payment_complete', 'processing', 'delivery_fulfilled']) {
          ok(await call('POST', `/api/v1/orders/${orderId}/simulate`, { payload: { event } }));
        }
        const kitId = order.order_items[0]!.supplier_item_id;
        ok(await call('GET', `/api/v1/orders/activate?kit_id=${encodeURIComponent(kitId)}`, { as: null }));
        const activated = await call('POST', '/api/v1/orders/activate', {
          payload: activationBody(kitId),
          as: null,
        });
        ok(activated);
        testTakerId = String(json<{ test_taker_id: string }>(activated).test_taker_id);
        for (const event of ['sample_processing_in_lab', 'results_ready', 'completed']) {
          ok(await call('POST', `/api/v1/orders/${orderId}/simulate`, { payload: { event } }));
        }
        ok(await call('GET', `/api/v1/orders/${orderId}`));
        assert.equal((await call('GET', '/api/v1/orders/1')).statusCode, 404);
      });

      await part('the order API: a GO_TO_LAB order bound to a lab from /labs', async () => {
        const labs = await call('GET', '/api/v1/labs?zip_code=10001');
        ok(labs);
        const lab = json<{ labs: { code: string; address: { postal_code: string } }[] }>(labs).labs[0]!;
        const toLab = await call('POST', '/api/v1/orders', {
          payload: orderBody({
            client_order_reference_id: 'c-2',
            collection_type: 'GO_TO_LAB',
            items: [{ variant_id: '1015', quantity: 1 }],
            shipping_address: undefined,
            requested_lab: { code: lab.code, postal_code: lab.address.postal_code },
          }),
        });
        ok(toLab, 201);
        ok(await call('GET', `/api/v1/orders/${json<{ order_id: string }>(toLab).order_id}`));
      });

      await part('the order API: results as a signed, expiring download link', async () => {
        ok(await call('GET', '/api/v1/results'));
        const link = await call('GET', `/api/v1/results/${itemId}?test_taker_id=${testTakerId}`);
        ok(link);
        const url = new URL(json<{ download_url: string }>(link).download_url);
        const download = await service.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
        ok(download);
        assert.equal(json<{ resourceType: string }>(download).resourceType, 'Bundle');
        ok(await call('POST', `/api/v1/results/${itemId}/acknowledge?test_taker_id=${testTakerId}`));
      });

      await part('webhooks arrive, and the order API’s delivery views', async () => {
        const typeOf = (raw: string) => {
          const body = JSON.parse(raw) as Json;
          return String(body.event_type ?? body.type);
        };
        const expected = [
          'auth',
          'auth_cancelled',
          'user_reauth',
          'deauth',
          'large_request_processing',
          'large_request_sending',
          'planned_workout',
          'activity',
          'body',
          'daily',
          'menstruation',
          'nutrition',
          'sleep',
          'athlete',
          'order.status_changed',
          'order_item.results_status_change',
        ];
        try {
          await receiver.waitFor(
            (list) => {
              const seen = new Set(list.map((entry) => typeOf(entry.body)));
              return expected.every((type) => seen.has(type));
            },
            'every kind of event the run causes',
            30_000,
          );
        } finally {
          const seen = new Set(receiver.received.map((entry) => typeOf(entry.body)));
          for (const type of expected.filter((name) => !seen.has(name)))
            contract.errors.push({ where: 'webhooks', problem: `no ${type} event arrived` });
        }
        ok(await call('GET', '/api/v1/webhook-deliveries'));
        ok(await call('GET', '/api/v1/webhook-deliveries?outcome=failed&limit=10'));
        ok(await call('GET', '/api/v1/overview'));
      });

      for (const entry of receiver.received)
        contract.checkWebhook(entry.body, `webhook ${String(entry.headers['webhook-id'])}`);

      // Every operation the run can reach was exercised, so "0 errors" covers the whole documents.
      const unexercised = contract.operations
        .map((operation) => `${operation.method} ${operation.served}`)
        .filter((label) => !contract.exercised.has(label) && !unservedOnPurpose(label.split(' ')[1]!));
      for (const label of unexercised)
        contract.errors.push({ where: 'run', problem: `${label} was not exercised by the run` });

      console.log(
        [
          `operations exercised: ${contract.exercised.size} of ${contract.operations.length}`,
          `webhook bodies checked: ${[...contract.eventsChecked].map(([type, count]) => `${type}×${count}`).join(', ')}`,
          `outside the documents (Tributary’s own): ${[...contract.outsideSpec].join(', ') || 'none'}`,
          `tolerated deviations: ${new Set(contract.tolerated.map((entry) => entry.deviation)).size} kind(s)`,
          `contract errors: ${contract.errors.length}`,
        ].join('\n'),
      );
      assert.equal(contract.errors.length, 0, contract.report());
    });
  },
);
