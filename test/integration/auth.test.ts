// Authentication and the error edge, through HTTP: where credentials may come from (headers,
// `dev_id`, the query string, Basic on the order API only), what each refusal says, that a 500
// never carries internals, and that framework errors keep their own status (413, 415) instead of
// all becoming 400. The security suite (security.test.ts) covers every route; this file covers
// every rule once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { AppError } from '../../src/core/errors.ts';
import type { App } from '../../src/http/app-type.ts';
import { registerAuthentication } from '../../src/http/auth.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';

describe('authentication and error responses', () => {
  let service: TestService;
  let alice: TestDeveloper;
  let bob: TestDeveloper;
  let suspended: TestDeveloper;

  // A developer-authenticated route and an order-API route (Basic allowed), both plain reads.
  const DEVELOPER_ROUTE = '/v2/webhook';
  const ORDER_ROUTE = '/api/v1/products';
  const get = (url: string, headers: Record<string, string> = {}) =>
    service.app.inject({ method: 'GET', url, headers });
  const basic = (user: string, password: string, scheme = 'Basic') =>
    `${scheme} ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const expectRefusal = (
    response: Awaited<ReturnType<typeof get>>,
    status: number,
    detail: string,
    what: string,
  ) => {
    const problem = problemOf(response);
    assert.equal(problem.status, status, `${what}: ${response.body}`);
    assert.equal(problem.body.detail, detail, what);
  };

  before(async () => {
    service = await startTestService({ work: false });
    alice = await createDeveloper(service.ctx, { name: 'Alice', orderApi: true });
    bob = await createDeveloper(service.ctx, { name: 'Bob', orderApi: true });
    suspended = await createDeveloper(service.ctx, { name: 'Suspended', orderApi: true });
    await service.ctx.developers.setStatus(suspended.devId, 'suspended');
  });
  after(async () => {
    await service?.close();
  });

  describe('credentials', () => {
    test('dev-id or dev_id, as a header or in the query, with x-api-key as a header', async () => {
      const key = { 'x-api-key': alice.apiKey };
      assert.equal((await get(DEVELOPER_ROUTE, { 'dev-id': alice.devId, ...key })).statusCode, 200);
      assert.equal((await get(DEVELOPER_ROUTE, { dev_id: alice.devId, ...key })).statusCode, 200);
      assert.equal((await get(`${DEVELOPER_ROUTE}?dev-id=${alice.devId}`, key)).statusCode, 200);
      assert.equal((await get(`${DEVELOPER_ROUTE}?dev_id=${alice.devId}`, key)).statusCode, 200);
      // An empty header is no header: the query still counts.
      assert.equal(
        (await get(`${DEVELOPER_ROUTE}?dev_id=${alice.devId}`, { 'dev-id': '', ...key })).statusCode,
        200,
      );
    });

    test('an empty dev-id in the query is no dev-id either', async () => {
      const key = { 'x-api-key': alice.apiKey };
      assert.equal((await get(`${DEVELOPER_ROUTE}?dev-id=&dev_id=${alice.devId}`, key)).statusCode, 200);
      expectRefusal(
        await get(`${DEVELOPER_ROUTE}?dev-id=&dev_id=`, key),
        401,
        'dev-id or x-api-key headers are missing',
        'empty query values',
      );
    });

    test('a dev-id header wins over the query, and dev-id over dev_id', async () => {
      const key = { 'x-api-key': alice.apiKey };
      assert.equal(
        (await get(`${DEVELOPER_ROUTE}?dev-id=${bob.devId}`, { 'dev-id': alice.devId, ...key })).statusCode,
        200,
      );
      assert.equal(
        (await get(DEVELOPER_ROUTE, { 'dev-id': alice.devId, dev_id: bob.devId, ...key })).statusCode,
        200,
      );
      assert.equal(
        (await get(`${DEVELOPER_ROUTE}?dev-id=${alice.devId}&dev_id=${bob.devId}`, key)).statusCode,
        200,
      );
      assert.equal(
        (await get(`${DEVELOPER_ROUTE}?dev_id=${bob.devId}`, { dev_id: alice.devId, ...key })).statusCode,
        200,
      );
    });

    test('the API key is never read from the query', async () => {
      expectRefusal(
        await get(`${DEVELOPER_ROUTE}?dev-id=${alice.devId}&x-api-key=${alice.apiKey}`),
        401,
        'dev-id or x-api-key headers are missing',
        'key in the query',
      );
    });

    test('each refusal says what is wrong, without saying which part of a pair was wrong', async () => {
      expectRefusal(await get(DEVELOPER_ROUTE), 401, 'dev-id or x-api-key headers are missing', 'nothing');
      expectRefusal(
        await get(DEVELOPER_ROUTE, { 'dev-id': alice.devId }),
        401,
        'dev-id or x-api-key headers are missing',
        'no key',
      );
      expectRefusal(
        await get(DEVELOPER_ROUTE, { 'x-api-key': alice.apiKey }),
        401,
        'dev-id or x-api-key headers are missing',
        'no dev-id',
      );
      expectRefusal(
        await get(DEVELOPER_ROUTE, { 'dev-id': alice.devId, 'x-api-key': bob.apiKey }),
        401,
        'unknown dev-id or invalid API key',
        'another developer’s key',
      );
      expectRefusal(
        await get(DEVELOPER_ROUTE, suspended.headers),
        403,
        'developer account is suspended',
        'suspended',
      );
      expectRefusal(
        await get(ORDER_ROUTE),
        401,
        'dev-id and x-api-key headers (or Basic authorization) are missing',
        'order API without credentials',
      );
    });

    test('Basic authorization on the order API only, in any case of the scheme', async () => {
      assert.equal(
        (await get(ORDER_ROUTE, { authorization: basic(alice.devId, alice.apiKey) })).statusCode,
        200,
      );
      assert.equal(
        (await get(ORDER_ROUTE, { authorization: basic(alice.devId, alice.apiKey, 'basic') })).statusCode,
        200,
      );
      const spaced = basic(alice.devId, alice.apiKey).replace('Basic ', 'Basic   ');
      assert.equal((await get(ORDER_ROUTE, { authorization: spaced })).statusCode, 200, 'any run of spaces');
      assert.equal((await get(ORDER_ROUTE, alice.headers)).statusCode, 200, 'headers work there too');
      expectRefusal(
        await get(DEVELOPER_ROUTE, { authorization: basic(alice.devId, alice.apiKey) }),
        401,
        'dev-id or x-api-key headers are missing',
        'Basic outside the order API',
      );
      expectRefusal(
        await get(ORDER_ROUTE, { authorization: basic(alice.devId, bob.apiKey) }),
        401,
        'unknown dev-id or invalid API key',
        'Basic with the wrong key',
      );
      expectRefusal(
        await get(ORDER_ROUTE, { authorization: basic(suspended.devId, suspended.apiKey) }),
        403,
        'developer account is suspended',
        'Basic, suspended',
      );
      const missing = 'dev-id and x-api-key headers (or Basic authorization) are missing';
      expectRefusal(
        await get(ORDER_ROUTE, { authorization: basic('', alice.apiKey) }),
        401,
        missing,
        'empty user',
      );
      const noColon = `Basic ${Buffer.from(alice.devId).toString('base64')}`;
      expectRefusal(await get(ORDER_ROUTE, { authorization: noColon }), 401, missing, 'no colon');
      expectRefusal(
        await get(ORDER_ROUTE, { authorization: `Bearer ${alice.apiKey}` }),
        401,
        missing,
        'another scheme',
      );
      expectRefusal(
        await get(ORDER_ROUTE, { authorization: `${basic(alice.devId, alice.apiKey)} trailing` }),
        401,
        missing,
        'junk after the credentials',
      );
      expectRefusal(
        await get(ORDER_ROUTE, { authorization: `x ${basic(alice.devId, alice.apiKey)}` }),
        401,
        missing,
        'junk before the scheme',
      );
      // A partial header pair does not stop Basic from being used.
      assert.equal(
        (await get(ORDER_ROUTE, { 'dev-id': bob.devId, authorization: basic(alice.devId, alice.apiKey) }))
          .statusCode,
        200,
      );
    });
  });

  describe('route registration', () => {
    test('the app records each authenticated route once per method, HEAD excluded', () => {
      const recorded = service.app.authenticatedRoutes;
      assert.ok(recorded.every((route) => route.method !== 'HEAD'));
      assert.deepEqual(
        recorded
          .filter((route) => route.url === DEVELOPER_ROUTE)
          .map((route) => [route.method, route.auth])
          .sort(),
        [
          ['GET', 'developer'],
          ['PUT', 'developer'],
        ],
      );
      assert.deepEqual(
        recorded.filter((route) => route.url === ORDER_ROUTE).map((route) => [route.method, route.auth]),
        [['GET', 'developer-or-basic']],
      );
      assert.ok(
        !recorded.some((route) => route.url === '/v2/integrations'),
        'public routes are not recorded',
      );
    });

    test('an API route that does not say how it is authenticated fails the boot', async () => {
      for (const url of ['/v2/forgot', '/v3/forgot', '/api/forgot']) {
        const app = Fastify() as unknown as App;
        registerAuthentication(app, service.ctx.developers);
        assert.throws(
          () => app.get(url, async () => 'open'),
          { message: `route GET ${url} must declare config.auth` },
          url,
        );
        await app.close();
      }
      const both = Fastify() as unknown as App;
      registerAuthentication(both, service.ctx.developers);
      assert.throws(
        () => both.route({ method: ['GET', 'POST'], url: '/api/both', handler: async () => 'x' }),
        {
          message: 'route GET,POST /api/both must declare config.auth',
        },
      );
      await both.close();

      const app = Fastify() as unknown as App;
      registerAuthentication(app, service.ctx.developers);
      app.get('/elsewhere', async () => 'fine');
      app.route({
        method: ['GET', 'POST'],
        url: '/v2/both',
        config: { auth: 'developer' },
        handler: async () => 'x',
      });
      await app.ready();
      const open = await app.inject({ method: 'GET', url: '/elsewhere' });
      assert.equal(open.statusCode, 200, 'a route outside the API that declares nothing is public');
      assert.equal(open.body, 'fine');
      assert.deepEqual(app.authenticatedRoutes, [
        { method: 'GET', url: '/v2/both', auth: 'developer' },
        { method: 'POST', url: '/v2/both', auth: 'developer' },
      ]);
      await app.close();
    });
  });

  describe('error responses', () => {
    test('an unexpected error is a 500 that carries a request id and nothing of the error', async () => {
      const integrations = service.ctx.integrations;
      const original = integrations.list;
      const secret = 'connection to 10.1.2.3 refused, password=hunter2';
      integrations.list = () => {
        throw new Error(secret);
      };
      try {
        const response = await get('/v2/integrations');
        const problem = problemOf(response);
        assert.equal(problem.status, 500);
        assert.match(problem.contentType, /^application\/problem\+json/);
        assert.deepEqual(Object.keys(problem.body).sort(), [
          'detail',
          'instance',
          'request_id',
          'status',
          'title',
          'type',
        ]);
        assert.equal(problem.body.detail, 'internal error');
        assert.equal(problem.body.title, 'internal server error');
        assert.match(problem.body.type, /\/problems\/internal$/);
        assert.equal(problem.body.request_id, response.headers['x-request-id']);
        for (const leak of ['hunter2', '10.1.2.3', 'Error', ' at ', '.ts']) {
          assert.ok(!response.body.includes(leak), `the body must not contain ${leak}: ${response.body}`);
        }
      } finally {
        integrations.list = original;
      }
    });

    test('an internal AppError hides its message; other AppErrors keep theirs', async () => {
      const integrations = service.ctx.integrations;
      const original = integrations.list;
      try {
        integrations.list = () => {
          throw new AppError('internal', 'pool exhausted at db-7');
        };
        const hidden = problemOf(await get('/v2/integrations'));
        assert.equal(hidden.status, 500);
        assert.equal(hidden.body.detail, 'internal error');
        integrations.list = () => {
          throw new AppError('upstream_unavailable', 'the provider catalog is warming up', {
            headers: { 'retry-after': '5' },
          });
        };
        const response = await get('/v2/integrations');
        const shown = problemOf(response);
        assert.equal(shown.status, 503);
        assert.equal(shown.body.detail, 'the provider catalog is warming up');
        assert.equal(shown.body.title, 'service unavailable');
        assert.equal(response.headers['retry-after'], '5');
        assert.equal(typeof shown.body.request_id, 'string', 'every 5xx names its request');
      } finally {
        integrations.list = original;
      }
    });

    test('a body over the limit is 413, a body that is not JSON is 415, broken JSON is 400', async () => {
      const put = (payload: string, contentType: string) =>
        service.app.inject({
          method: 'PUT',
          url: DEVELOPER_ROUTE,
          headers: { ...alice.headers, 'content-type': contentType },
          payload,
        });
      const tooLarge = problemOf(
        await put(JSON.stringify({ url: 'x'.repeat(1024 * 1024 + 1) }), 'application/json'),
      );
      assert.equal(tooLarge.status, 413);
      assert.equal(tooLarge.body.title, 'payload too large');
      assert.match(tooLarge.body.type, /\/problems\/payload-too-large$/);

      const wrongType = problemOf(await put('<url>http://example.com</url>', 'application/xml'));
      assert.equal(wrongType.status, 415);
      assert.equal(wrongType.body.title, 'unsupported media type');
      assert.match(wrongType.body.type, /\/problems\/unsupported-media-type$/);
      assert.equal(wrongType.body.detail, 'unsupported content-type: expected application/json');

      const broken = problemOf(await put('{"url":', 'application/json'));
      assert.equal(broken.status, 400);
      assert.equal(broken.body.title, 'bad request');
      assert.match(broken.body.detail, /^malformed JSON body: /);
    });
  });
});
