import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';

/**
 * The shared security suite: every route that declares authentication (the app records them
 * as they register) is called without credentials, with a wrong key, with another
 * developer's key and as a suspended developer. A new authenticated route is covered the
 * moment it exists.
 */
const concretePath = (url: string) =>
  url.replace(/:([A-Za-z_]+)/g, (_match, name: string) => (/id$/i.test(name) ? randomUUID() : 'x'));

describe('security suite: every authenticated route', () => {
  let service: TestService;
  let alice: TestDeveloper;
  let bob: TestDeveloper;
  let suspended: TestDeveloper;

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

  const call = async (method: string, url: string, headers: Record<string, string>) =>
    service.app.inject({ method: method as 'GET', url: concretePath(url), headers });

  const expectProblem = (
    response: Awaited<ReturnType<typeof call>>,
    status: number,
    route: { method: string; url: string },
  ) => {
    const problem = problemOf(response);
    assert.equal(problem.status, status, `${route.method} ${route.url}: ${response.body}`);
    assert.match(problem.contentType, /^application\/problem\+json/, `${route.method} ${route.url}`);
    assert.equal(problem.body.status, status);
    assert.ok(problem.body.detail, `${route.method} ${route.url} has a detail`);
    assert.ok(!response.body.includes(alice.apiKey), 'a key never echoes back');
  };

  test('routes are registered with the suite', () => {
    assert.ok(
      service.app.authenticatedRoutes.length >= 10,
      `only ${service.app.authenticatedRoutes.length} routes`,
    );
  });

  test('no credentials: 401', async () => {
    for (const route of service.app.authenticatedRoutes) {
      expectProblem(await call(route.method, route.url, {}), 401, route);
    }
  });

  test('a dev-id without a key, or a key without a dev-id: 401', async () => {
    for (const route of service.app.authenticatedRoutes) {
      expectProblem(await call(route.method, route.url, { 'dev-id': alice.devId }), 401, route);
      expectProblem(await call(route.method, route.url, { 'x-api-key': alice.apiKey }), 401, route);
    }
  });

  test('wrong key, unknown dev-id, or another developer key: 401', async () => {
    for (const route of service.app.authenticatedRoutes) {
      expectProblem(
        await call(route.method, route.url, { 'dev-id': alice.devId, 'x-api-key': 'sk_test_wrong' }),
        401,
        route,
      );
      expectProblem(
        await call(route.method, route.url, { 'dev-id': 'nobody-00000000', 'x-api-key': alice.apiKey }),
        401,
        route,
      );
      expectProblem(
        await call(route.method, route.url, { 'dev-id': alice.devId, 'x-api-key': bob.apiKey }),
        401,
        route,
      );
    }
  });

  test('suspended developer with valid credentials: 403', async () => {
    for (const route of service.app.authenticatedRoutes) {
      expectProblem(await call(route.method, route.url, suspended.headers), 403, route);
    }
  });

  test('credentials are also accepted as dev_id and in the query; Basic only where declared', async () => {
    const basic = `Basic ${Buffer.from(`${suspended.devId}:${suspended.apiKey}`).toString('base64')}`;
    for (const route of service.app.authenticatedRoutes) {
      const viaUnderscore = await call(route.method, route.url, {
        dev_id: suspended.devId,
        'x-api-key': suspended.apiKey,
      });
      expectProblem(viaUnderscore, 403, route);
      const viaQuery = await call(route.method, `${route.url}?dev-id=${suspended.devId}`, {
        'x-api-key': suspended.apiKey,
      });
      expectProblem(viaQuery, 403, route);
      const viaBasic = await call(route.method, route.url, { authorization: basic });
      // Basic is an order-API credential; elsewhere it counts as no credentials at all.
      expectProblem(viaBasic, route.auth === 'developer-or-basic' ? 403 : 401, route);
    }
  });
});
