import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

// `POST /v2/auth/tokens` (the vendor's current name of /v2/auth/generateAuthToken, which stays)
// over a real socket: `reference_id` as a query parameter binds the token, so the SDK's
// connection carries it whatever the SDK sends; connecting the same (developer, reference_id,
// provider) again makes a new user, deletes the previous one and sends user_reauth with both.
type Json = Record<string, unknown>;

describe('POST /v2/auth/tokens', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let base: string;

  const call = async (method: string, path: string, options: { body?: unknown; auth?: boolean } = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(options.auth === false ? {} : developer.headers),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      json: (text ? JSON.parse(text) : null) as Json,
    };
  };
  const token = async (path: string) => {
    const issued = await call('POST', path);
    assert.equal(issued.status, 200, JSON.stringify(issued.json));
    assert.equal(issued.json.status, 'success');
    assert.equal(typeof issued.json.expires_in, 'number');
    return String(issued.json.token);
  };
  const connect = async (sdkToken: string, resource: string, referenceId?: string) => {
    const connected = await call('POST', '/v2/sdk/connect', {
      auth: false,
      body: { token: sdkToken, resource, ...(referenceId ? { reference_id: referenceId } : {}) },
    });
    assert.equal(connected.status, 200, JSON.stringify(connected.json));
    return String(connected.json.user_id);
  };
  const referenceOf = async (userId: string) => {
    const info = await call('GET', `/v2/userInfo?user_id=${userId}`);
    return info.status === 200 ? (info.json.user as Json).reference_id : info.status;
  };
  const events = () => receiver.received.map((entry) => JSON.parse(entry.body) as Json);

  before(async () => {
    receiver = await startWebhookReceiver();
    service = await startTestService();
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    developer = await createDeveloper(service.ctx);
    await service.ctx.webhooks.setDestination(developer.devId, { url: receiver.url });
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  test('reference_id in the query binds the token: the SDK’s own reference_id is ignored', async () => {
    const userId = await connect(await token('/v2/auth/tokens?reference_id=bound-1'), 'APPLE', 'sent-by-sdk');
    assert.equal(await referenceOf(userId), 'bound-1');
    // An unbound token keeps the older behaviour: what the SDK sends.
    const unbound = await connect(await token('/v2/auth/tokens'), 'APPLE', 'sent-by-sdk');
    assert.equal(await referenceOf(unbound), 'sent-by-sdk');
    // The older name is still served, and binds the same way.
    const legacy = await connect(await token('/v2/auth/generateAuthToken?reference_id=bound-2'), 'APPLE');
    assert.equal(await referenceOf(legacy), 'bound-2');
  });

  test('the same (developer, reference_id, provider) again: new user, the old deleted, user_reauth', async () => {
    const first = await connect(await token('/v2/auth/tokens?reference_id=device-switch'), 'APPLE');
    const otherProvider = await connect(
      await token('/v2/auth/tokens?reference_id=device-switch'),
      'HEALTH_CONNECT',
    );
    const second = await connect(
      await token('/v2/auth/tokens?reference_id=device-switch'),
      'APPLE',
      'ignored',
    );
    assert.notEqual(first, second);
    assert.equal(await referenceOf(second), 'device-switch');
    assert.equal(await referenceOf(first), 404, 'the previous user of the tuple is deleted');
    assert.equal(await referenceOf(otherProvider), 'device-switch', 'another provider’s user is kept');
    await receiver.waitFor(
      () =>
        events().some((event) => event.type === 'user_reauth' && (event.old_user as Json)?.user_id === first),
      'user_reauth',
    );
    const reauth = events().find(
      (event) => event.type === 'user_reauth' && (event.old_user as Json)?.user_id === first,
    )!;
    assert.equal((reauth.new_user as Json).user_id, second);
    assert.equal((reauth.new_user as Json).reference_id, 'device-switch');
    assert.ok(
      !events().some(
        (event) => event.type === 'user_reauth' && (event.old_user as Json)?.user_id === otherProvider,
      ),
    );
  });

  test('a bad reference_id or no credentials: 4xx problems naming what is wrong', async () => {
    const long = await call('POST', `/v2/auth/tokens?reference_id=${'x'.repeat(256)}`);
    assert.equal(long.status, 400);
    assert.match(long.type, /application\/problem\+json/);
    assert.match(String(long.json.detail), /reference_id/);
    const anonymous = await call('POST', '/v2/auth/tokens', { auth: false });
    assert.equal(anonymous.status, 401);
    const spent = await token('/v2/auth/tokens?reference_id=once');
    await connect(spent, 'APPLE');
    const again = await call('POST', '/v2/sdk/connect', {
      auth: false,
      body: { token: spent, resource: 'APPLE' },
    });
    assert.equal(again.status, 401);
    assert.match(String(again.json.detail), /\/v2\/auth\/tokens/);
  });
});
