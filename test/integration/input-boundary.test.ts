import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { orderBody } from '../helpers/orders.ts';
import { dataRowCounts } from '../helpers/users.ts';

/**
 * Hostile input meets one boundary: every case here answered 500 (or 201 for nothing, or a
 * framework error outside the problem vocabulary) before it. Each is a 400-class problem now.
 */

/** A clock the test holds still, so data windows are inside the sandbox's history. */
const clock = {
  current: new Date('2025-03-10T10:30:00.000Z'),
  now() {
    return new Date(this.current);
  },
};

const workout = (plannedDate: string | null) => ({
  metadata: { name: 'Steady', type: 'RUNNING', planned_date: plannedDate, estimated_duration_seconds: 1800 },
  steps: [],
});

describe('the input boundary', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    service = await startTestService({ clock, env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
    developer = await createDeveloper(service.ctx, { orderApi: true });
    ({ userId } = await connectSandboxUser(service.app, developer));
  });
  after(async () => {
    await service?.close();
  });

  type Call = {
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    url: string;
    payload?: unknown;
    headers?: Record<string, string>;
    anonymous?: boolean;
  };
  const call = (input: Call) =>
    service.app.inject({
      method: input.method ?? 'GET',
      url: input.url,
      headers: { ...(input.anonymous ? {} : developer.headers), ...input.headers },
      ...(input.payload === undefined
        ? {}
        : { payload: typeof input.payload === 'string' ? input.payload : (input.payload as object) }),
    });

  /** The response is a problem of `status` whose detail matches `detail`. */
  const expectProblem = async (input: Call, status: number, detail: RegExp) => {
    const response = await call(input);
    const label = `${input.method ?? 'GET'} ${input.url.slice(0, 120)}`;
    const problem = problemOf(response);
    assert.equal(problem.status, status, `${label}: ${response.body.slice(0, 300)}`);
    assert.match(problem.contentType, /^application\/problem\+json/, label);
    assert.equal(problem.body.status, status, label);
    assert.match(problem.body.type, /\/problems\/[a-z-]+$/, label);
    assert.ok(problem.body.title, label);
    assert.match(problem.body.detail, detail, label);
  };

  test('a NUL in dev_id is a 400 before any authentication (was an unauthenticated 500)', async () => {
    await expectProblem(
      { url: '/v2/integrations/detailed?dev_id=%00', anonymous: true },
      400,
      /^invalid dev_id: must not contain NUL/,
    );
    await expectProblem(
      { url: '/v2/webhook?dev_id=%00', anonymous: true, headers: { 'x-api-key': 'sk_test_x' } },
      400,
      /NUL/,
    );
  });

  test('NUL in reference_id: userInfo, PATCH users, authenticateUser, widget session', async () => {
    await expectProblem({ url: '/v2/userInfo?reference_id=a%00b' }, 400, /^invalid reference_id: .*NUL/);
    await expectProblem(
      { method: 'PATCH', url: `/v2/users/${userId}`, payload: { reference_id: 'a\u0000b' } },
      400,
      /^invalid reference_id: .*NUL/,
    );
    await expectProblem(
      {
        method: 'POST',
        url: '/v2/auth/authenticateUser?resource=SANDBOX',
        payload: { reference_id: 'a\u0000b' },
      },
      400,
      /^invalid reference_id: .*NUL/,
    );
    await expectProblem(
      { method: 'POST', url: '/v2/auth/generateWidgetSession', payload: { reference_id: 'a\u0000b' } },
      400,
      /^invalid reference_id: .*NUL/,
    );
  });

  test('NUL in path ids and delivery filters', async () => {
    await expectProblem({ method: 'POST', url: '/v2/webhook/deliveries/%00/replay' }, 400, /^invalid path/);
    for (const filter of ['type', 'user_id', 'status', 'cursor', 'since']) {
      await expectProblem(
        { url: `/v2/webhook/deliveries?${filter}=x%00` },
        400,
        new RegExp(`^invalid ${filter}: .*NUL`),
      );
    }
    await expectProblem({ url: `/api/v1/orders/%00` }, 400, /^invalid path/);
    await expectProblem({ url: `/widget/session/%00`, anonymous: true }, 400, /^invalid path/);
  });

  test('NUL in planned-workout ids, order fields and the webhook URL', async () => {
    await expectProblem(
      { method: 'DELETE', url: `/v2/plannedWorkout?user_id=${userId}`, payload: { data: ['a\u0000'] } },
      400,
      /^invalid body\[0\]|^invalid data\[0\]: .*NUL/,
    );
    await expectProblem(
      {
        method: 'POST',
        url: '/api/v1/orders',
        payload: orderBody({ client_order_reference_id: 'ref\u0000' }),
      },
      400,
      /^invalid client_order_reference_id: .*NUL/,
    );
    await expectProblem(
      {
        method: 'POST',
        url: '/api/v1/orders',
        payload: orderBody({ recipient: { ...(orderBody().recipient as object), first_name: 'A\u0000' } }),
      },
      400,
      /^invalid recipient\.first_name: .*NUL/,
    );
    await expectProblem(
      { method: 'PUT', url: '/v2/webhook', payload: { url: 'http://example.com/\u0000' } },
      400,
      /^invalid url: .*NUL/,
    );
  });

  test('other control characters, bad encodings and non-finite numbers are refused too', async () => {
    await expectProblem({ url: '/v2/userInfo?reference_id=a%01b' }, 400, /control characters \(U\+0001\)/);
    await expectProblem({ url: '/v2/userInfo?reference_id=%E0%A4%A' }, 400, /malformed percent-encoding/);
    await expectProblem({ url: '/v2/userInfo', headers: { 'dev-id': 'a\u0001b' } }, 400, /dev-id header/);
    await expectProblem(
      {
        method: 'PATCH',
        url: `/v2/users/${userId}`,
        payload: '{"reference_id":"\\ud800"}',
        headers: { 'content-type': 'application/json' },
      },
      400,
      /unpaired surrogate/,
    );
    await expectProblem(
      {
        method: 'POST',
        url: '/v2/bulkUserInfo',
        payload: '[1e400]',
        headers: { 'content-type': 'application/json' },
      },
      400,
      /out of range/,
    );
  });

  test('numbers are range checked: page=1e30, page=Infinity and limit=1e400', async () => {
    await expectProblem({ url: '/v2/subscriptions?page=1e30' }, 400, /^invalid page: must be <= 2147483647/);
    // Found by the OpenAPI fuzz: ajv's strictNumbers let a coerced Infinity skip the range check.
    await expectProblem(
      { url: '/v2/subscriptions?page=Infinity' },
      400,
      /^invalid page: must be <= 2147483647/,
    );
    await expectProblem({ url: '/v2/subscriptions?page=-Infinity' }, 400, /^invalid page: must be >= 0/);
    await expectProblem({ url: '/v2/webhook/deliveries?limit=1e400' }, 400, /^invalid limit/);
  });

  test('unreadable planned dates are a 400, and nothing is created at the provider', async () => {
    // Planned workouts live in the workouts feature's table (the older route is an alias over it).
    const stored = async () =>
      Number(
        (
          await service.ctx.db
            .selectFrom('planned_workouts')
            .select((eb) => eb.fn.countAll().as('count'))
            .where('user_id', '=', userId)
            .executeTakeFirstOrThrow()
        ).count,
      );
    const before = await stored();
    for (const date of ['2026-02-30', '0000-01-01', 'garbage', '2026-03-01T25:00:00Z']) {
      await expectProblem(
        { method: 'POST', url: `/v2/plannedWorkout?user_id=${userId}`, payload: { data: [workout(date)] } },
        400,
        /^invalid data\[0\]\.metadata\.planned_date: expected YYYY-MM-DD or an ISO 8601 datetime/,
      );
    }
    assert.equal(await stored(), before, 'nothing stored');
    const created = await call({
      method: 'POST',
      url: `/v2/plannedWorkout?user_id=${userId}`,
      payload: { data: [workout('2026-03-01')] },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(await stored(), before + 1, 'a readable one is stored');
  });

  test('a 10,000-deep nested body is a 400, not a stack overflow', async () => {
    const deep = `{"data":[{"metadata":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)},"steps":[]}]}`;
    await expectProblem(
      {
        method: 'POST',
        url: `/v2/plannedWorkout?user_id=${userId}`,
        payload: deep,
        headers: { 'content-type': 'application/json' },
      },
      400,
      /nested deeper than 32 levels/,
    );
    const wide = JSON.stringify({ data: Array.from({ length: 5000 }, () => 'x') });
    await expectProblem(
      {
        method: 'DELETE',
        url: `/v2/plannedWorkout?user_id=${userId}`,
        payload: wide,
        headers: { 'content-type': 'application/json' },
      },
      400,
      /more than 1000 items/,
    );
  });

  test('since must be a real calendar date-time', async () => {
    await expectProblem(
      { url: '/v2/webhook/deliveries?since=2026-02-30T00:00:00Z' },
      400,
      /^invalid since: expected ISO 8601 date-time/,
    );
    await expectProblem({ url: '/v2/webhook/deliveries?since=2026-01-01T24:00:00Z' }, 400, /^invalid since/);
    const fine = await call({ url: '/v2/webhook/deliveries?since=2026-02-28T00:00:00Z' });
    assert.equal(fine.statusCode, 200, fine.body);
  });

  test('data windows take real calendar dates only', async () => {
    for (const date of ['2024-02-30', '0000-01-01', '1899-12-31']) {
      await expectProblem(
        { url: `/v2/sleep?user_id=${userId}&start_date=${date}&to_webhook=false` },
        400,
        /^invalid start_date: expected YYYY-MM-DD or 10-digit unix seconds/,
      );
    }
  });

  test('framework errors are problems: 414, 415, 413 and malformed JSON', async () => {
    await expectProblem(
      { method: 'POST', url: `/v2/webhook/deliveries/${'a'.repeat(150)}/replay` },
      414,
      /longer than 100 characters/,
    );
    await expectProblem(
      {
        method: 'PUT',
        url: '/v2/webhook',
        payload: '<url/>',
        headers: { 'content-type': 'application/xml' },
      },
      415,
      /unsupported content-type/,
    );
    await expectProblem(
      {
        method: 'PUT',
        url: '/v2/webhook',
        payload: JSON.stringify({ url: 'x'.repeat(1_100_000) }),
        headers: { 'content-type': 'application/json' },
      },
      413,
      /too large/,
    );
    await expectProblem(
      {
        method: 'PUT',
        url: '/v2/webhook',
        payload: '{"url":',
        headers: { 'content-type': 'application/json' },
      },
      400,
      /^malformed JSON body/,
    );
    await expectProblem({ url: '/v2/userInfo%ZZ' }, 400, /malformed percent-encoding/);
  });

  test('a query over 16 kB on a real socket: 431 problem+json (Node’s parser answers it)', async () => {
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('utf8')));
      socket.on('end', () => resolve(received));
      socket.on('close', () => resolve(received));
      socket.on('error', (error) => (received ? resolve(received) : reject(error)));
      socket.write(`GET /v2/userInfo?reference_id=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 431 /);
    assert.match(head, /content-type: application\/problem\+json/i);
    const problem = JSON.parse(body) as { type: string; title: string; status: number; detail: string };
    assert.equal(problem.status, 431);
    assert.match(problem.type, /\/problems\/header-fields-too-large$/);
    assert.ok(problem.title && problem.detail);
  });

  test('the OpenAPI document lists the problem responses of every route', async () => {
    const response = await call({ url: '/openapi.json', anonymous: true });
    const document = response.json() as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, Problemish> }>>;
      components: { schemas: Record<string, unknown> };
    };
    type Problemish = { content?: Record<string, { schema: { $ref?: string } }> };
    assert.ok(document.components.schemas.Problem, 'a shared Problem schema');
    let operations = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        operations++;
        const statuses = Object.keys(operation.responses);
        const expected = ['400', '500', ...(operation.security ? ['401', '403'] : [])];
        for (const status of expected) {
          const entry = operation.responses[status];
          assert.ok(entry, `${method} ${path} documents ${status}`);
          if (path !== '/ready' || status !== '503') {
            assert.equal(
              entry.content?.['application/problem+json']?.schema.$ref,
              '#/components/schemas/Problem',
              `${method} ${path} ${status}`,
            );
          }
        }
        if (['post', 'put', 'patch', 'delete'].includes(method)) {
          assert.ok(statuses.includes('413') && statuses.includes('415'), `${method} ${path} has a body`);
        }
      }
    }
    assert.ok(operations >= 40, `${operations} operations`);
  });
});

describe('no read is free', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    service = await startTestService({ clock, env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
    developer = await createDeveloper(service.ctx);
    ({ userId } = await connectSandboxUser(service.app, developer));
  });
  after(async () => {
    await service?.close();
  });

  const read = (start: string, end: string, toWebhook: boolean) =>
    service.app.inject({
      method: 'GET',
      url: `/v2/sleep?user_id=${userId}&start_date=${start}&end_date=${end}&to_webhook=${toWebhook}`,
      headers: developer.headers,
    });
  /** 2025-03-01T12:00:00Z, inside the sandbox's history. */
  const INSTANT = String(Date.UTC(2025, 2, 1, 12) / 1000);

  test('an empty window costs 1 day, syncs nothing from the provider, and is refused once the budget is spent', async () => {
    await service.ctx.developers.setHourlyDaysLimit(developer.devId, 3);
    const first = await read(INSTANT, INSTANT, false);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['x-service-ratelimit-remaining'], '2', 'it cost 1 day');
    assert.deepEqual((first.json() as { data: unknown[] }).data, []);
    assert.equal((await dataRowCounts(service.ctx, userId)).coverage, 0, 'nothing was fetched');

    const dates = await read('2025-03-01', '2025-03-01', false);
    assert.equal(dates.statusCode, 200, dates.body);
    assert.equal(dates.headers['x-service-ratelimit-remaining'], '1');

    const queued = await read(INSTANT, INSTANT, true);
    assert.equal(queued.statusCode, 200, queued.body);
    assert.equal(queued.headers['x-service-ratelimit-remaining'], '0', 'to the webhook it costs 1 day too');

    // The hour's budget is spent: empty windows are refused like any other read.
    for (const toWebhook of [false, true]) {
      const refused = problemOf(await read(INSTANT, INSTANT, toWebhook));
      assert.equal(refused.status, 429);
      assert.equal(refused.body.status, 429);
    }
    assert.equal((await dataRowCounts(service.ctx, userId)).coverage, 0, 'still nothing fetched');
  });
});
