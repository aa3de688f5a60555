import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import {
  deauthEvent,
  destinationDeliveries,
  emit,
  sleepEvent,
  waitForStatus,
} from '../helpers/destinations.ts';
import { insertUser } from '../helpers/users.ts';
import { serviceSignatureMatches, standardSignatureMatches } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

/**
 * The webhook is a destination kind like the others (issue 43): `/v2/destinations` lists the
 * primary webhook as kind `webhook`, a developer may add secondary webhooks, each with a signing
 * secret of its own and, like any destination, an `event_types` filter; an event is stored once
 * and delivered to each destination that takes it; resend by event id sends it again everywhere
 * with the same trace id and ordering timestamp. Every call goes over a real socket, to real
 * receivers.
 */
describe('webhooks as destinations', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let base = '';
  let primary: WebhookReceiver;
  let sleepOnly: WebhookReceiver;
  let sleepDestination = '';
  let sleepSecret = '';

  const http = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...developer.headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      body: (text ? JSON.parse(text) : null) as Record<string, unknown>,
      raw: text,
    };
  };

  before(async () => {
    primary = await startWebhookReceiver();
    sleepOnly = await startWebhookReceiver();
    service = await startTestService({ env: { WEBHOOK_RETRY_SCALE: '0.001' } });
    base = await service.app.listen({ port: 0, host: '127.0.0.1' });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
    await primary?.close();
    await sleepOnly?.close();
  });

  test('GET /v2/destinations lists the primary webhook as kind webhook', async () => {
    const set = await http('PUT', '/v2/webhook', { url: primary.url });
    assert.equal(set.status, 200, set.raw);
    const list = await http('GET', '/v2/destinations');
    assert.equal(list.status, 200, list.raw);
    const [first, ...rest] = list.body.destinations as Record<string, unknown>[];
    assert.equal(rest.length, 0);
    assert.equal(first?.kind, 'webhook');
    assert.equal(first?.primary, true);
    assert.equal(first?.event_types, null);
    assert.deepEqual(first?.settings, { url: primary.url });
  });

  test('a second webhook with event_types ["sleep"] gets its own secret', async () => {
    const created = await http('POST', '/v2/destinations', {
      kind: 'webhook',
      name: 'sleep lab',
      settings: { url: sleepOnly.url },
      event_types: ['sleep'],
    });
    assert.equal(created.status, 201, created.raw);
    assert.equal(created.body.kind, 'webhook');
    assert.equal(created.body.primary, false);
    assert.deepEqual(created.body.event_types, ['sleep']);
    assert.match(String(created.body.secret), /^whsec_/);
    sleepDestination = String(created.body.id);
    sleepSecret = String(created.body.secret);
    // The secret is shown once: never again.
    const read = await http('GET', `/v2/destinations/${sleepDestination}`);
    assert.equal(read.status, 200, read.raw);
    assert.equal('secret' in read.body, false);
    const list = await http('GET', '/v2/destinations');
    assert.deepEqual(
      (list.body.destinations as { kind: string; primary: boolean }[]).map((d) => [d.kind, d.primary]),
      [
        ['webhook', true],
        ['webhook', false],
      ],
    );
  });

  test('bad event_types are 400 problems naming the field', async () => {
    for (const event_types of [[], ['Sleep!'], ['sleep', 'sleep']]) {
      const refused = await http('POST', '/v2/destinations', {
        kind: 'webhook',
        settings: { url: sleepOnly.url },
        event_types,
      });
      assert.equal(refused.status, 400, refused.raw);
      assert.match(refused.type, /application\/problem\+json/);
      assert.match(refused.raw, /event_types/);
    }
    const patched = await http('PATCH', `/v2/destinations/${sleepDestination}`, { event_types: ['a', 'a'] });
    assert.equal(patched.status, 400, patched.raw);
    assert.match(patched.raw, /event_types/);
  });

  test('the sleep webhook receives sleep events and nothing else; the primary receives everything', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const [sleepId, deauthId] = await emit(service, developer, [
      sleepEvent(userId, ['2026-03-01']),
      deauthEvent(userId),
    ]);
    assert.ok(sleepId && deauthId);
    await primary.waitFor(
      (received) => received.some((r) => r.headers['webhook-id'] === deauthId),
      'the primary webhook got the deauth event',
    );
    await sleepOnly.waitFor(
      (received) => received.some((r) => r.headers['webhook-id'] === sleepId),
      'the sleep webhook got the sleep event',
    );
    await primary.waitFor(
      (received) => received.some((r) => r.headers['webhook-id'] === sleepId),
      'the primary webhook got the sleep event',
    );
    // Both logs settled: the sleep webhook has one delivery (the sleep event), nothing for deauth.
    const log = await waitForStatus(service, developer, sleepDestination, 1, 'delivered');
    assert.deepEqual(
      log.map((d) => [d.event_id, d.type]),
      [[sleepId, 'sleep']],
    );
    assert.deepEqual(
      sleepOnly.received.map((r) => JSON.parse(r.body).type as string),
      ['sleep'],
      'no other type reached it',
    );
    // Signed with its own secret; the same event id, trace id and ordering timestamp as the primary's copy.
    const [atSleep] = sleepOnly.byId(sleepId);
    const [atPrimary] = primary.byId(sleepId);
    assert.ok(atSleep && atPrimary);
    assert.ok(serviceSignatureMatches(atSleep.headers, atSleep.body, sleepSecret));
    assert.ok(standardSignatureMatches(atSleep.headers, atSleep.body, sleepSecret));
    assert.equal(atSleep.body, atPrimary.body, 'one stored body');
    assert.equal(atSleep.headers['service-trace-id'], sleepId);
    assert.equal(atPrimary.headers['service-trace-id'], sleepId);
    assert.match(String(atSleep.headers['service-ordering-timestamp']), /^\d{13}$/);
    assert.equal(
      atSleep.headers['service-ordering-timestamp'],
      atPrimary.headers['service-ordering-timestamp'],
    );
    const stored = await service.ctx.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('id', '=', sleepId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), 1, 'the event is stored once for both destinations');
  });

  test('resend by event id sends it again to every destination it went to, same trace id and ordering', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const [first] = await emit(service, developer, [sleepEvent(userId, ['2026-03-02'], 1)]);
    const [second] = await emit(service, developer, [sleepEvent(userId, ['2026-03-02'], 2)]);
    assert.ok(first && second);
    // Both events delivered to both webhooks, and recorded, before the resend (a resend while an
    // attempt is in flight moves its delivery on, so that attempt's outcome is not recorded).
    await until(
      'both events delivered to the sleep webhook and logged',
      () => destinationDeliveries(service, developer, sleepDestination),
      {
        done: (list) =>
          [first, second].every((id) => list.find((d) => d.event_id === id)?.status === 'delivered'),
      },
    );
    await primary.waitFor(
      (received) => received.some((r) => r.headers['webhook-id'] === first),
      'the older one at the primary',
    );
    const ordering = (r: { headers: Record<string, unknown> }) =>
      Number(r.headers['service-ordering-timestamp']);
    const before = { primary: primary.byId(first).length, sleep: sleepOnly.byId(first).length };

    const resent = await http('POST', `/v2/events/${first}/resend`);
    assert.equal(resent.status, 202, resent.raw);
    assert.deepEqual(resent.body, { status: 'queued', event_id: first, deliveries: 2 });
    await primary.waitFor(
      (received) => received.filter((r) => r.headers['webhook-id'] === first).length > before.primary,
      'resent to the primary',
    );
    await sleepOnly.waitFor(
      (received) => received.filter((r) => r.headers['webhook-id'] === first).length > before.sleep,
      'resent to the sleep webhook',
    );
    const [original, again] = [sleepOnly.byId(first)[0]!, sleepOnly.byId(first).at(-1)!];
    assert.equal(again.headers['service-trace-id'], original.headers['service-trace-id']);
    assert.equal(ordering(again), ordering(original), 'a resent event keeps its ordering timestamp');
    assert.ok(
      ordering(again) <= ordering(sleepOnly.byId(second)[0]!),
      'so a receiver keeping the higher value keeps the newer copy',
    );
    await until(
      'both deliveries settled again',
      () => destinationDeliveries(service, developer, sleepDestination),
      {
        done: (list) => list.find((d) => d.event_id === first)?.attempt_count === 2,
      },
    );

    const unknown = await http('POST', '/v2/events/evt_nope/resend');
    assert.equal(unknown.status, 404, unknown.raw);
    assert.match(unknown.type, /application\/problem\+json/);
    const other = await createDeveloper(service.ctx);
    const foreign = await fetch(`${base}/v2/events/${first}/resend`, {
      method: 'POST',
      headers: other.headers,
    });
    assert.equal(foreign.status, 404, 'another developer cannot resend it');
  });

  test('/v2/webhook is the primary destination by another path; any webhook rotates its secret by id', async () => {
    const list = await http('GET', '/v2/destinations');
    const primaryId = (list.body.destinations as { id: string; primary: boolean }[]).find(
      (d) => d.primary,
    )!.id;
    // The alias and the destination routes read and change the one destination.
    const disabled = await http('PATCH', `/v2/destinations/${primaryId}`, { enabled: false });
    assert.equal(disabled.status, 200, disabled.raw);
    const alias = await http('GET', '/v2/webhook');
    assert.equal(alias.body.status, 'disabled');
    assert.equal(alias.body.url, primary.url);
    const enabled = await http('PUT', '/v2/webhook', { enabled: true });
    assert.equal(enabled.status, 200, enabled.raw);
    assert.equal((await http('GET', `/v2/destinations/${primaryId}`)).body.status, 'active');
    const ids = (page: { body: Record<string, unknown> }) =>
      (page.body.deliveries as { event_id: string }[]).map((delivery) => delivery.event_id);
    assert.deepEqual(
      ids(await http('GET', '/v2/webhook/deliveries?limit=20')),
      ids(await http('GET', `/v2/destinations/${primaryId}/deliveries?limit=20`)),
    );
    // Each names the URL as its own body does.
    const badAlias = await http('PUT', '/v2/webhook', { url: 'ftp://example.com/hook' });
    assert.equal(badAlias.status, 400, badAlias.raw);
    assert.match(String(badAlias.body.detail), /^invalid url: /);
    const badById = await http('PATCH', `/v2/destinations/${primaryId}`, {
      settings: { url: 'ftp://example.com/hook' },
    });
    assert.equal(badById.status, 400, badById.raw);
    assert.match(String(badById.body.detail), /^invalid settings\.url: /);

    // A secondary webhook's secret rotates by id; the replaced one signs alongside for the overlap.
    const rotated = await http('POST', `/v2/destinations/${sleepDestination}/rotate-secret`);
    assert.equal(rotated.status, 200, rotated.raw);
    const secret = String(rotated.body.secret);
    assert.match(secret, /^whsec_/);
    assert.notEqual(secret, sleepSecret);
    const queued = await http('POST', `/v2/destinations/${sleepDestination}/test`);
    assert.equal(queued.status, 202, queued.raw);
    const eventId = String(queued.body.event_id);
    await sleepOnly.waitFor(
      (received) => received.some((r) => r.headers['webhook-id'] === eventId),
      'the test event at the sleep webhook',
    );
    const [delivered] = sleepOnly.byId(eventId);
    assert.ok(delivered);
    for (const key of [secret, sleepSecret])
      assert.ok(standardSignatureMatches(delivered.headers, delivered.body, key));
    assert.equal(primary.byId(eventId).length, 0, 'a test send goes to that destination only');
    const unknown = await http('POST', '/v2/destinations/00000000-0000-4000-8000-000000000000/rotate-secret');
    assert.equal(unknown.status, 404, unknown.raw);
  });

  test('the filter changes with PATCH; the secondary webhook is deleted with its log, the primary is not', async () => {
    const patched = await http('PATCH', `/v2/destinations/${sleepDestination}`, { event_types: null });
    assert.equal(patched.status, 200, patched.raw);
    assert.equal(patched.body.event_types, null);
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const [deauthId] = await emit(service, developer, [deauthEvent(userId)]);
    await sleepOnly.waitFor(
      (received) => received.some((r) => r.headers['webhook-id'] === deauthId),
      'every type reaches it now',
    );
    const list = await http('GET', '/v2/destinations');
    const primaryId = (list.body.destinations as { id: string; primary: boolean }[]).find(
      (d) => d.primary,
    )!.id;
    assert.equal((await http('DELETE', `/v2/destinations/${primaryId}`)).status, 409);
    assert.equal((await http('DELETE', `/v2/destinations/${sleepDestination}`)).status, 204);
    const left = await service.ctx.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('destination_id', '=', sleepDestination)
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 0);
  });
});
