// /providers/{provider}/webhook beyond the happy path: signatures are checked on the raw bytes
// (not on re-serialized JSON), stale or forged ones are refused, a provider without a secret
// configured is a 404 (nothing here takes its notifications), handshakes need the token Tributary gave, and a provider's
// "access withdrawn" event marks the connection revoked (access_revoked).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { verifyTokenFor } from '../../src/provider-kit/signatures.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { insertUser } from '../helpers/users.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const OURA_SECRET = 'oura-test-secret';

describe('provider notifications: verification and provider events', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;

  const post = (provider: string, body: string, headers: Record<string, string> = {}) =>
    service.app.inject({
      method: 'POST',
      url: `/providers/${provider}/webhook`,
      headers: { 'content-type': 'application/json', ...headers },
      payload: body,
    });
  const ouraHeaders = (
    body: string,
    secret = OURA_SECRET,
    timestamp = String(Math.floor(Date.now() / 1000)),
  ) => ({
    'x-oura-timestamp': timestamp,
    'x-oura-signature': createHmac('sha256', secret)
      .update(timestamp + body)
      .digest('hex')
      .toUpperCase(),
  });

  before(async () => {
    service = await startTestService({
      env: {
        OURA_CLIENT_ID: 'oura-id',
        OURA_CLIENT_SECRET: OURA_SECRET,
        STRAVA_CLIENT_ID: '4242',
        STRAVA_CLIENT_SECRET: 'strava-secret',
      },
    });
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  test('a signature over the exact bytes is accepted, whatever their spacing', async () => {
    // Re-serializing this body would drop the spaces and break the HMAC.
    const body = '{ "event_type" : "update", "data_type": "sleep", "object_id": "x", "user_id": "nobody" }';
    const answer = await post('OURA', body, ouraHeaders(body));
    assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual(answer.json(), { status: 'success', queued: 1 });
  });

  test('wrong key, tampered body, stale timestamp or no signature: 401', async () => {
    const body = '{"event_type":"update","data_type":"sleep","object_id":"x","user_id":"u"}';
    const stale = String(Math.floor(Date.now() / 1000) - 2 * 3600);
    for (const [label, answer] of [
      ['wrong key', await post('OURA', body, ouraHeaders(body, 'not-the-secret'))],
      ['tampered', await post('OURA', body.replace('"u"', '"v"'), ouraHeaders(body))],
      ['stale', await post('OURA', body, ouraHeaders(body, OURA_SECRET, stale))],
      ['unsigned', await post('OURA', body)],
    ] as const) {
      assert.equal(answer.statusCode, 401, `${label}: ${answer.body}`);
      assert.match(String(answer.headers['content-type']), /application\/problem\+json/);
    }
  });

  test('a provider with no secret configured, or without notifications, is a 404', async () => {
    const body = '{"user_id":1,"id":"x","type":"sleep.updated"}';
    const whoop = await post('WHOOP', body, {
      'x-whoop-signature': 'x',
      'x-whoop-signature-timestamp': String(Date.now()),
    });
    assert.equal(whoop.statusCode, 404, whoop.body);
    // Strava is configured but holds no subscription: nothing to check an event against.
    const strava = await post(
      'STRAVA',
      '{"subscription_id":1,"owner_id":1,"object_id":1,"object_type":"activity"}',
    );
    assert.equal(strava.statusCode, 404, strava.body);
    assert.equal((await post('SANDBOX', '{}')).statusCode, 404);
    assert.equal((await post('NOPE', '{}')).statusCode, 404);
  });

  test('handshakes echo the challenge only for the token Tributary gave', async () => {
    const token = verifyTokenFor(service.config, 'OURA');
    const ok = await service.app.inject({
      method: 'GET',
      url: `/providers/OURA/webhook?verification_token=${encodeURIComponent(token)}&challenge=abc123`,
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { challenge: 'abc123' });
    const wrong = await service.app.inject({
      method: 'GET',
      url: '/providers/OURA/webhook?verification_token=guess&challenge=abc',
    });
    assert.equal(wrong.statusCode, 403);
    const strava = await service.app.inject({
      method: 'GET',
      url: `/providers/STRAVA/webhook?hub.mode=subscribe&hub.challenge=c1&hub.verify_token=${encodeURIComponent(verifyTokenFor(service.config, 'STRAVA'))}`,
    });
    assert.deepEqual(strava.json(), { 'hub.challenge': 'c1' });
  });

  test('an athlete withdrawing access marks the connection revoked and sends access_revoked', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'STRAVA' });
    await service.ctx.db
      .updateTable('connections')
      .set({ provider_user_id: '777' })
      .where('id', '=', userId)
      .execute();
    await service.ctx.db
      .insertInto('connector_subscriptions')
      .values({
        provider: 'STRAVA',
        external_id: '9001',
        data_type: null,
        event_type: null,
        callback_url: 'http://127.0.0.1/providers/STRAVA/webhook',
        expires_at: null,
        created_at: new Date(),
      })
      .execute();
    const forged = await post(
      'STRAVA',
      JSON.stringify({ subscription_id: 1, owner_id: 777, object_id: 777, object_type: 'athlete' }),
    );
    assert.equal(forged.statusCode, 401, 'an event naming another subscription');

    const body = JSON.stringify({
      aspect_type: 'update',
      event_time: Math.floor(Date.now() / 1000),
      object_id: 777,
      object_type: 'athlete',
      owner_id: 777,
      subscription_id: 9001,
      updates: { authorized: 'false' },
    });
    const answer = await post('STRAVA', body);
    assert.equal(answer.statusCode, 200, answer.body);
    await receiver.waitFor(
      (list) =>
        list.some((entry) => {
          const event = JSON.parse(entry.body) as { type: string; user?: { user_id: string } };
          return event.type === 'access_revoked' && event.user?.user_id === userId;
        }),
      `access_revoked for ${userId}`,
    );
    const user = await service.ctx.db
      .selectFrom('connections')
      .select('status')
      .where('id', '=', userId)
      .executeTakeFirst();
    assert.equal(user?.status, 'revoked');
  });
});
