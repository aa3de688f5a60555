// The client's webhook verification against what the service really signs: a delivery a started
// Tributary made to a receiver verifies in both schemes (with the secret it handed out), during a
// rotation with either secret, and a tampered body, signature, timestamp or secret does not. The
// signer's own output (src/features/delivery/signing.ts) is checked over many random inputs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { generateWebhookSecret, signWebhook } from '../../../src/features/delivery/signing.ts';
import {
  createDeveloper,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../../../test/helpers/app.ts';
import { call, setUrl } from '../../../test/helpers/webhook-api.ts';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../test/helpers/webhook-receiver.ts';
import {
  constructWebhookEvent,
  verifyServiceSignature,
  verifyStandardWebhook,
  WebhookVerificationError,
} from '../src/webhooks.ts';

describe('@tributary/client webhook verification', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let delivery: ReceivedRequest;
  /** When the delivery was signed (its webhook-timestamp), so tolerance checks do not depend on the wall clock. */
  let signedAt: Date;

  before(async () => {
    service = await startTestService();
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
    assert.equal((await call(service, developer, 'POST', '/v2/webhook/test')).status, 202);
    await receiver.waitForCount(1);
    delivery = receiver.received[0]!;
    signedAt = new Date(Number(delivery.headers['webhook-timestamp']) * 1000);
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  const options = (secret: string | string[] = developer.webhookSecret) => ({ secret, now: signedAt });

  test('a real delivery verifies in both schemes and parses to its event', async () => {
    assert.deepEqual(await verifyStandardWebhook(delivery.body, delivery.headers, options()), {
      valid: true,
    });
    assert.deepEqual(await verifyServiceSignature(delivery.body, delivery.headers, options()), {
      valid: true,
    });
    // As bytes, and with a Fetch Headers object, too.
    const headers = new Headers(delivery.headers as Record<string, string>);
    assert.deepEqual(
      await verifyStandardWebhook(new TextEncoder().encode(delivery.body), headers, options()),
      {
        valid: true,
      },
    );
    const event = await constructWebhookEvent(delivery.body, delivery.headers, options());
    assert.equal((event as { type?: unknown }).type, 'healthcheck');
    // Without the webhook-* headers (a proxy dropped them), service-signature decides.
    const { 'webhook-signature': _dropped, ...serviceOnly } = delivery.headers;
    assert.equal(
      ((await constructWebhookEvent(delivery.body, serviceOnly, options())) as { type?: unknown }).type,
      'healthcheck',
    );
  });

  test('a tampered delivery fails: body, signature, timestamp, secret', async () => {
    const tamperedBody = delivery.body.replace('healthcheck', 'healthcheckX');
    assert.notEqual(tamperedBody, delivery.body);
    assert.deepEqual(await verifyStandardWebhook(tamperedBody, delivery.headers, options()), {
      valid: false,
      reason: 'no matching signature',
    });
    assert.deepEqual(await verifyServiceSignature(tamperedBody, delivery.headers, options()), {
      valid: false,
      reason: 'no matching signature',
    });
    await assert.rejects(
      constructWebhookEvent(tamperedBody, delivery.headers, options()),
      WebhookVerificationError,
    );

    const signature = String(delivery.headers['webhook-signature']);
    const flipped = signature.slice(0, 5) + (signature[5] === 'A' ? 'B' : 'A') + signature.slice(6);
    const badSignature = { ...delivery.headers, 'webhook-signature': flipped };
    assert.equal((await verifyStandardWebhook(delivery.body, badSignature, options())).valid, false);

    // The id is signed too: the same signature under another webhook-id fails.
    const otherId = { ...delivery.headers, 'webhook-id': 'msg_other' };
    assert.equal((await verifyStandardWebhook(delivery.body, otherId, options())).valid, false);

    // A timestamp moved (to look fresh) breaks the signature; a stale one is refused outright.
    const moved = {
      ...delivery.headers,
      'webhook-timestamp': String(Number(delivery.headers['webhook-timestamp']) + 1),
    };
    assert.equal((await verifyStandardWebhook(delivery.body, moved, options())).valid, false);
    const later = { secret: developer.webhookSecret, now: new Date(signedAt.getTime() + 301_000) };
    assert.deepEqual(await verifyStandardWebhook(delivery.body, delivery.headers, later), {
      valid: false,
      reason: 'timestamp outside tolerance',
    });
    assert.deepEqual(await verifyServiceSignature(delivery.body, delivery.headers, later), {
      valid: false,
      reason: 'timestamp outside tolerance',
    });

    const stranger = generateWebhookSecret();
    assert.equal(
      (await verifyStandardWebhook(delivery.body, delivery.headers, options(stranger))).valid,
      false,
    );
    assert.equal(
      (await verifyServiceSignature(delivery.body, delivery.headers, options(stranger))).valid,
      false,
    );
    // Several secrets: one of them matching is enough (a receiver rolling its configuration).
    assert.equal(
      (
        await verifyStandardWebhook(
          delivery.body,
          delivery.headers,
          options([stranger, developer.webhookSecret]),
        )
      ).valid,
      true,
    );
  });

  test('during a rotation a delivery verifies with the new secret and with the old one', async () => {
    const rotated = await call(service, developer, 'POST', '/v2/webhook/rotate-secret');
    assert.equal(rotated.status, 200);
    const secret = String(rotated.body.secret);
    const before = receiver.received.length;
    assert.equal((await call(service, developer, 'POST', '/v2/webhook/test')).status, 202);
    await receiver.waitForCount(before + 1);
    const next = receiver.received[before]!;
    const at = new Date(Number(next.headers['webhook-timestamp']) * 1000);
    for (const each of [secret, developer.webhookSecret]) {
      assert.deepEqual(await verifyStandardWebhook(next.body, next.headers, { secret: each, now: at }), {
        valid: true,
      });
      assert.deepEqual(await verifyServiceSignature(next.body, next.headers, { secret: each, now: at }), {
        valid: true,
      });
    }
  });

  test("whatever the service's signer signs, the client verifies; one changed byte, it does not", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 512 }),
        fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }),
        fc.integer({ min: 24, max: 64 }),
        fc.nat(),
        async (body, timestamp, keyBytes, flipAt) => {
          const secret = `whsec_${randomBytes(keyBytes).toString('base64')}`;
          const headers = signWebhook({
            id: `msg_${timestamp}`,
            timestamp,
            rawBody: body,
            secrets: [secret],
          });
          const now = new Date(timestamp * 1000);
          assert.equal((await verifyStandardWebhook(body, headers, { secret, now })).valid, true);
          assert.equal((await verifyServiceSignature(body, headers, { secret, now })).valid, true);
          if (body.length === 0) return;
          const changed = Uint8Array.from(body);
          changed[flipAt % body.length]! ^= 0x01;
          assert.equal((await verifyStandardWebhook(changed, headers, { secret, now })).valid, false);
          assert.equal((await verifyServiceSignature(changed, headers, { secret, now })).valid, false);
        },
      ),
      { numRuns: 100 },
    );
  });
});
