import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, problemOf, startTestService, type TestService } from '../helpers/app.ts';
import {
  call,
  deliveries,
  serviceSignatureMatches,
  setUrl,
  standardSignatureMatches,
  waitForDelivery,
} from '../helpers/webhook-api.ts';
import { webhookReceivers } from '../helpers/webhook-receiver.ts';

describe('webhook destination API, signing and SSRF rules', () => {
  let service: TestService;
  const receivers = webhookReceivers();
  const receiver = receivers.start;

  before(async () => {
    service = await startTestService({ env: { WEBHOOK_RETRY_SCALE: '0.001' } });
  });
  after(async () => {
    await service?.close();
    await receivers.closeAll();
  });

  test('GET shows URL, status and failures but never a secret; PUT validates the URL', async () => {
    const developer = await createDeveloper(service.ctx);
    const initial = await call(service, developer, 'GET', '/v2/webhook');
    assert.equal(initial.status, 200);
    assert.equal(initial.body.url, null);
    assert.equal(initial.body.status, 'active');
    assert.equal(initial.body.recent_failures, 0);
    assert.doesNotMatch(JSON.stringify(initial.body), /whsec_|secret"/);

    const bad = await service.app.inject({
      method: 'PUT',
      url: '/v2/webhook',
      headers: developer.headers,
      payload: { url: 'not a url' },
    });
    assert.equal(bad.statusCode, 400);
    assert.match(problemOf(bad).body.detail, /^invalid url: /);

    const target = await receiver();
    const updated = await setUrl(service, developer, target.url);
    assert.equal(updated.url, target.url);
    assert.equal(updated.enabled, true);
    const unauthenticated = await service.app.inject({ method: 'GET', url: '/v2/webhook' });
    assert.equal(unauthenticated.statusCode, 401);
  });

  test('a test delivery carries both signatures, verified independently, and the expected headers', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    await setUrl(service, developer, target.url);
    const queued = await call(service, developer, 'POST', '/v2/webhook/test');
    assert.equal(queued.status, 202);
    const eventId = String(queued.body.event_id);
    await target.waitForCount(1);
    const [delivery] = target.received;
    assert.ok(delivery);
    assert.equal(delivery.headers['webhook-id'], eventId);
    assert.equal(delivery.headers['content-type'], 'application/json');
    assert.match(String(delivery.headers['user-agent']), /^Tributary\/\d+\.\d+\.\d+/);
    assert.ok(standardSignatureMatches(delivery.headers, delivery.body, developer.webhookSecret));
    assert.ok(serviceSignatureMatches(delivery.headers, delivery.body, developer.webhookSecret));
    assert.ok(!standardSignatureMatches(delivery.headers, `${delivery.body} `, developer.webhookSecret));
    const body = JSON.parse(delivery.body) as Record<string, unknown>;
    assert.equal(body.type, 'healthcheck');
    assert.match(
      String(body.creation_timestamp),
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$/,
    );
    await waitForDelivery(service, developer, eventId, (d) => d.status === 'delivered', 'delivered');
  });

  test('rotating the secret returns it once; both secrets sign for the overlap', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    await setUrl(service, developer, target.url);
    const rotated = await call(service, developer, 'POST', '/v2/webhook/rotate-secret');
    assert.equal(rotated.status, 200);
    const secret = String(rotated.body.secret);
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.notEqual(secret, developer.webhookSecret);
    const state = await call(service, developer, 'GET', '/v2/webhook');
    assert.equal(typeof state.body.previous_secret_expires_at, 'string');

    await call(service, developer, 'POST', '/v2/webhook/test');
    await target.waitForCount(1);
    const [delivery] = target.received;
    assert.ok(delivery);
    assert.equal(String(delivery.headers['webhook-signature']).split(' ').length, 2);
    for (const key of [secret, developer.webhookSecret]) {
      assert.ok(standardSignatureMatches(delivery.headers, delivery.body, key));
      assert.ok(serviceSignatureMatches(delivery.headers, delivery.body, key));
    }
  });

  test('production: http and loopback/private/link-local/metadata destinations are refused when saved', async () => {
    const developer = await createDeveloper(service.ctx, { environment: 'production' });
    const cases: [string, RegExp][] = [
      ['http://127.0.0.1:8080/hooks', /must use https/],
      ['https://127.0.0.1/hooks', /loopback/],
      ['https://[::1]/hooks', /loopback/],
      ['https://localhost/hooks', /loopback/],
      ['https://10.1.2.3/hooks', /private/],
      ['https://172.16.5.4/hooks', /private/],
      ['https://192.168.1.20/hooks', /private/],
      ['https://169.254.10.10/hooks', /link-local/],
      ['https://169.254.169.254/latest/meta-data', /metadata/],
    ];
    for (const [url, reason] of cases) {
      const response = await service.app.inject({
        method: 'PUT',
        url: '/v2/webhook',
        headers: developer.headers,
        payload: { url },
      });
      assert.equal(response.statusCode, 400, url);
      assert.match(problemOf(response).body.detail, /^invalid url: /, url);
      assert.match(problemOf(response).body.detail, reason, url);
    }
    const sandbox = await createDeveloper(service.ctx);
    assert.equal(
      (await call(service, sandbox, 'PUT', '/v2/webhook', { url: 'http://127.0.0.1:9/x' })).status,
      200,
    );
  });

  test('production: the rules are enforced again at send time (a stored URL now pointing inside is rejected)', async () => {
    const developer = await createDeveloper(service.ctx, { environment: 'production' });
    const target = await receiver();
    const port = new URL(target.url).port;
    // As if the URL had passed when saved and DNS or the address changed since.
    for (const url of [
      `https://127.0.0.1:${port}/hooks`,
      `http://127.0.0.1:${port}/hooks`,
      `https://localhost:${port}/hooks`,
    ]) {
      await service.ctx.db
        .updateTable('webhook_destinations')
        .set({ url })
        .where('developer_id', '=', developer.devId)
        .execute();
      const queued = await call(service, developer, 'POST', '/v2/webhook/test');
      const delivery = await waitForDelivery(
        service,
        developer,
        String(queued.body.event_id),
        (d) => d.status !== 'pending',
        'settled',
      );
      assert.equal(delivery.status, 'rejected', url);
      assert.equal(delivery.attempts.length, 1, url);
      assert.equal(delivery.attempts[0]?.status_code, null);
      assert.match(String(delivery.last_error), /loopback|https/, url);
    }
    assert.equal(target.received.length, 0, 'nothing may reach a forbidden address');
  });

  test('deliveries: filters, cursor pages, 400s naming the parameter, replay and 404 across developers', async () => {
    const developer = await createDeveloper(service.ctx);
    const target = await receiver();
    await setUrl(service, developer, target.url);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(String((await call(service, developer, 'POST', '/v2/webhook/test')).body.event_id));
    await target.waitForCount(3);
    for (const id of ids)
      await waitForDelivery(service, developer, id, (d) => d.status === 'delivered', 'delivered');

    const first = await call(service, developer, 'GET', '/v2/webhook/deliveries?limit=2');
    const page1 = first.body.deliveries as { event_id: string }[];
    assert.deepEqual(
      page1.map((d) => d.event_id),
      [ids[2], ids[1]],
    );
    assert.equal(typeof first.body.next_cursor, 'string');
    const second = await call(
      service,
      developer,
      'GET',
      `/v2/webhook/deliveries?limit=2&cursor=${first.body.next_cursor}`,
    );
    assert.deepEqual(
      (second.body.deliveries as { event_id: string }[]).map((d) => d.event_id),
      [ids[0]],
    );
    assert.equal(second.body.next_cursor, null);

    assert.equal((await deliveries(service, developer, '?status=delivered&type=healthcheck')).length, 3);
    assert.equal((await deliveries(service, developer, '?status=failed')).length, 0);
    assert.equal((await deliveries(service, developer, '?type=sleep')).length, 0);
    assert.equal(
      (await deliveries(service, developer, '?user_id=6f1c1f3e-3f5d-4e0c-9c86-1d5f2f1f9b2a')).length,
      0,
    );
    assert.equal((await deliveries(service, developer, '?since=2000-01-01T00:00:00Z')).length, 3);
    assert.equal(
      (await deliveries(service, developer, '?since=2999-01-01T00:00:00.000000%2B00:00')).length,
      0,
    );

    const problems: [string, string][] = [
      ['?since=yesterday', 'invalid since: expected ISO 8601 date-time'],
      ['?cursor=bm90LWEtY3Vyc29y', 'invalid cursor: not a cursor returned by this endpoint'],
      ['?status=lost', 'invalid status: expected one of pending, delivered, rejected, failed, held, dropped'],
    ];
    for (const [query, detail] of problems) {
      const response = await service.app.inject({
        method: 'GET',
        url: `/v2/webhook/deliveries${query}`,
        headers: developer.headers,
      });
      assert.equal(response.statusCode, 400, query);
      assert.equal(problemOf(response).body.detail, detail);
    }

    const replayed = await call(service, developer, 'POST', `/v2/webhook/deliveries/${ids[0]}/replay`);
    assert.equal(replayed.status, 202);
    await target.waitFor(
      (list) => list.filter((r) => r.headers['webhook-id'] === ids[0]).length === 2,
      'the replay',
    );
    const after = await waitForDelivery(
      service,
      developer,
      ids[0]!,
      (d) => d.attempt_count === 2 && d.status === 'delivered',
      'replayed',
    );
    assert.deepEqual(
      after.attempts.map((a) => a.attempt),
      [1, 2],
    );

    const other = await createDeveloper(service.ctx);
    const foreign = await service.app.inject({
      method: 'POST',
      url: `/v2/webhook/deliveries/${ids[0]}/replay`,
      headers: other.headers,
    });
    assert.equal(foreign.statusCode, 404);
    const unknown = await service.app.inject({
      method: 'POST',
      url: '/v2/webhook/deliveries/evt_nope/replay',
      headers: other.headers,
    });
    assert.equal(unknown.statusCode, 404);
    assert.equal((await deliveries(service, other)).length, 0);
  });

  test('OpenAPI documents the webhook routes under the webhooks tag', async () => {
    const document = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of [
      '/v2/webhook',
      '/v2/webhook/rotate-secret',
      '/v2/webhook/test',
      '/v2/webhook/deliveries',
      '/v2/webhook/deliveries/{event_id}/replay',
    ]) {
      const operations = Object.values(document.paths[path] ?? {}) as { tags?: string[] }[];
      assert.ok(operations.length > 0, path);
      for (const operation of operations) assert.deepEqual(operation.tags, ['webhooks']);
    }
  });
});
