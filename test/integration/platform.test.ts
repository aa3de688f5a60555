import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { problemOf, startTestService, type TestService } from '../helpers/app.ts';

describe('platform', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(async () => {
    await service?.close();
  });

  test('health and readiness', async () => {
    const health = await service.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'ok' });
    const ready = await service.app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready', database: 'ok', pending_migrations: [] });
  });

  test('every response carries a request id, and a sane incoming one is kept', async () => {
    const minted = await service.app.inject({ method: 'GET', url: '/health' });
    assert.match(String(minted.headers['x-request-id']), /^req_[0-9a-f]{24}$/);
    const kept = await service.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'trace-42' },
    });
    assert.equal(kept.headers['x-request-id'], 'trace-42');
    const replaced = await service.app.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'a b<c>' },
    });
    assert.notEqual(replaced.headers['x-request-id'], 'a b<c>');
  });

  test('unknown route: 404 problem', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/v2/nothing-here?x=1' });
    const problem = problemOf(response);
    assert.equal(problem.status, 404);
    assert.equal(problem.contentType, 'application/problem+json; charset=utf-8');
    assert.equal(problem.body.status, 404);
    assert.equal(problem.body.title, 'not found');
    assert.equal(problem.body.instance, '/v2/nothing-here');
    assert.match(problem.body.type, /\/problems\/not-found$/);
  });

  test('wrong method: 405 problem with Allow', async () => {
    const response = await service.app.inject({ method: 'DELETE', url: '/ready' });
    const problem = problemOf(response);
    assert.equal(problem.status, 405);
    assert.equal(response.headers.allow, 'GET, HEAD');
    assert.match(problem.body.detail, /DELETE is not allowed/);
  });

  test('problem type URIs resolve to a description', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/problems/rate-limited' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      type: 'rate-limited',
      kind: 'rate_limited',
      status: 429,
      title: 'too many requests',
    });
  });

  test('metrics expose request counts by route pattern and queue depth', async () => {
    await service.app.inject({ method: 'GET', url: '/health' });
    const response = await service.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.match(
      response.body,
      /tributary_http_requests_total\{method="GET",route="\/health",status="200"\} \d+/,
    );
    assert.match(response.body, /tributary_http_request_duration_seconds_bucket/);
    assert.match(response.body, /# TYPE tributary_job_queue_depth gauge/);
  });

  test('OpenAPI 3.1 document and docs page', async () => {
    const document = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(document.openapi, '3.1.0');
    const validation = await new Validator().validate(document);
    assert.ok(
      validation.valid,
      `invalid OpenAPI 3.1: ${String(JSON.stringify(validation.errors)).slice(0, 3000)}`,
    );
    assert.equal(document.info.title, 'Tributary API');
    assert.ok(document.paths['/health']);
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), [
      'apiKey',
      'basic',
      'devId',
      'uploadToken',
    ]);
    const docs = await service.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger-ui/i);
  });
});
