// Rotating the signing secret (issue 13, item 5): rotations of one destination are serialised,
// and every secret handed out signs deliveries for its whole documented overlap (24 h), a second
// rotation included; past the limit of secrets in their overlap a rotation is refused (429 with
// Retry-After) rather than cut an overlap short. The concurrent case runs on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_RETIRED_SECRETS, SECRET_ROTATION_OVERLAP_MS } from '../../src/features/delivery/signing.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { call, serviceSignatureMatches, setUrl, standardSignatureMatches } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

describe('webhook secret rotation', () => {
  let service: TestService;
  let receiver: WebhookReceiver;
  const clock = { shiftMs: 0, now: () => new Date(Date.now() + clock.shiftMs) };

  before(async () => {
    service = await startTestService({ clock, env: { WEBHOOK_RETRY_SCALE: '0.001' } });
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  const rotate = (developer: TestDeveloper) => call(service, developer, 'POST', '/v2/webhook/rotate-secret');

  /** Sends a test event and returns the secrets among `candidates` that signed it (both schemes). */
  async function signersOf(developer: TestDeveloper, candidates: readonly string[]) {
    const before = receiver.received.length;
    const sent = await call(service, developer, 'POST', '/v2/webhook/test');
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    await receiver.waitForCount(before + 1);
    const delivery = receiver.received[before];
    assert.ok(delivery);
    const signers = candidates.filter((secret) =>
      standardSignatureMatches(delivery.headers, delivery.body, secret),
    );
    for (const secret of candidates)
      assert.equal(
        serviceSignatureMatches(delivery.headers, delivery.body, secret),
        signers.includes(secret),
        'both schemes are signed by the same secrets',
      );
    return { signers, count: String(delivery.headers['webhook-signature']).split(' ').length };
  }

  test('a second rotation keeps the original secret signing for its 24 h, then each stops on time', async () => {
    const developer = await createDeveloper(service.ctx);
    await setUrl(service, developer, receiver.url);
    const original = developer.webhookSecret;
    const first = await rotate(developer);
    clock.shiftMs = 60 * 60_000;
    const second = await rotate(developer);
    try {
      const secrets = [original, String(first.body.secret), String(second.body.secret)];
      assert.deepEqual((await signersOf(developer, secrets)).signers.sort(), [...secrets].sort());
      const state = await call(service, developer, 'GET', '/v2/webhook');
      assert.equal(state.body.previous_secret_expires_at, second.body.previous_secret_expires_at);

      // 24 h after the first rotation the original stops; the first rotation's secret goes on.
      clock.shiftMs = SECRET_ROTATION_OVERLAP_MS + 1_000;
      assert.deepEqual((await signersOf(developer, secrets)).signers.sort(), secrets.slice(1).sort());
      // 24 h after the second, only the current secret signs.
      clock.shiftMs = 60 * 60_000 + SECRET_ROTATION_OVERLAP_MS + 1_000;
      const last = await signersOf(developer, secrets);
      assert.deepEqual(last.signers, [secrets[2]]);
      assert.equal(last.count, 1);
      assert.equal(
        (await call(service, developer, 'GET', '/v2/webhook')).body.previous_secret_expires_at,
        null,
      );
    } finally {
      clock.shiftMs = 0;
    }
  });

  test(`past ${MAX_RETIRED_SECRETS} secrets in their overlap a rotation is refused until the oldest expires`, async () => {
    const developer = await createDeveloper(service.ctx);
    await setUrl(service, developer, receiver.url);
    const handedOut = [developer.webhookSecret];
    for (let rotation = 0; rotation < MAX_RETIRED_SECRETS; rotation += 1) {
      const rotated = await rotate(developer);
      assert.equal(rotated.status, 200);
      handedOut.push(String(rotated.body.secret));
    }
    const refused = await service.app.inject({
      method: 'POST',
      url: '/v2/webhook/rotate-secret',
      headers: developer.headers,
    });
    assert.equal(refused.statusCode, 429);
    assert.match(String(refused.headers['content-type']), /application\/problem\+json/);
    const wait = Number(refused.headers['retry-after']);
    assert.ok(wait > 0 && wait <= SECRET_ROTATION_OVERLAP_MS / 1000);
    const { signers, count } = await signersOf(developer, handedOut);
    assert.deepEqual(signers.sort(), [...handedOut].sort(), 'every secret handed out signs');
    assert.equal(count, MAX_RETIRED_SECRETS + 1);

    clock.shiftMs = wait * 1000;
    try {
      assert.equal((await rotate(developer)).status, 200, 'allowed again once the oldest expired');
    } finally {
      clock.shiftMs = 0;
    }
  });
});

describe('concurrent rotations', () => {
  test('20 at once: each answer is a secret that signs, or a refusal; none is lost', async () => {
    const service = await startTestService({ env: { WEBHOOK_RETRY_SCALE: '0.001' } });
    const receiver = await startWebhookReceiver();
    try {
      const developer = await createDeveloper(service.ctx);
      await setUrl(service, developer, receiver.url);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          service.app.inject({
            method: 'POST',
            url: '/v2/webhook/rotate-secret',
            headers: developer.headers,
          }),
        ),
      );
      const granted = answers.filter((answer) => answer.statusCode === 200);
      assert.equal(granted.length, MAX_RETIRED_SECRETS);
      assert.ok(answers.every((answer) => answer.statusCode === 200 || answer.statusCode === 429));
      const handedOut = [
        developer.webhookSecret,
        ...granted.map((answer) => String(answer.json<{ secret: string }>().secret)),
      ];
      assert.equal(new Set(handedOut).size, handedOut.length);

      assert.equal((await call(service, developer, 'POST', '/v2/webhook/test')).status, 202);
      await receiver.waitForCount(1);
      const [delivery] = receiver.received;
      assert.ok(delivery);
      for (const secret of handedOut) {
        assert.ok(standardSignatureMatches(delivery.headers, delivery.body, secret), 'every secret signs');
        assert.ok(serviceSignatureMatches(delivery.headers, delivery.body, secret));
      }
    } finally {
      await service.close();
      await receiver.close();
    }
  });
});
