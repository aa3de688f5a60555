import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import {
  buildDeliveryHeaders,
  generateWebhookSecret,
  isValidWebhookSecret,
  signingKey,
  signingSecretsAt,
  signWebhook,
  verifyServiceSignature,
  verifyStandardWebhook,
} from '../../src/features/delivery/signing.ts';

// Independent reference implementations, written from the two specs rather than from signing.ts.
function referenceStandardSignature(
  secret: string,
  id: string,
  timestamp: string,
  body: string | Buffer,
): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`), Buffer.from(body)]))
    .digest('base64');
}

function referenceServiceSignature(secret: string, timestamp: string, body: string | Buffer): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.from(body)]))
    .digest('hex');
}

function parseServiceHeader(value: string): { t: string; v1: string[] } {
  const parts = value.split(',').map((element) => element.split('='));
  return {
    t: parts.find(([name]) => name === 't')?.[1] ?? '',
    v1: parts.filter(([name]) => name === 'v1').map(([, hex]) => hex ?? ''),
  };
}

// The Standard Webhooks specification's published test vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const AT_VECTOR_TIME = new Date(VECTOR.timestamp * 1000);

test('Standard Webhooks signature matches the specification test vector', () => {
  const headers = signWebhook({
    id: VECTOR.id,
    timestamp: VECTOR.timestamp,
    rawBody: VECTOR.body,
    secrets: [VECTOR.secret],
  });
  assert.equal(headers['webhook-signature'], VECTOR.signature);
  assert.equal(headers['webhook-id'], VECTOR.id);
  assert.equal(headers['webhook-timestamp'], '1614265330');
  const verdict = verifyStandardWebhook({
    rawBody: VECTOR.body,
    headers: {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': VECTOR.signature,
    },
    secret: VECTOR.secret,
    now: AT_VECTOR_TIME,
  });
  assert.deepEqual(verdict, { valid: true });
});

test('both schemes agree with independent implementations, over raw bytes', () => {
  const secret = generateWebhookSecret();
  const body = Buffer.from('{"type":"sleep","note":"naïve ☾"}', 'utf8');
  const headers = signWebhook({ id: 'evt_1', timestamp: 1700000000, rawBody: body, secrets: [secret] });
  assert.equal(
    headers['webhook-signature'],
    `v1,${referenceStandardSignature(secret, 'evt_1', '1700000000', body)}`,
  );
  const service = parseServiceHeader(headers['service-signature']);
  assert.equal(service.t, '1700000000');
  assert.deepEqual(service.v1, [referenceServiceSignature(secret, '1700000000', body)]);
  assert.match(service.v1[0] ?? '', /^[0-9a-f]{64}$/);
  // A string body and the same bytes as a Buffer sign identically.
  const fromString = signWebhook({
    id: 'evt_1',
    timestamp: 1700000000,
    rawBody: body.toString(),
    secrets: [secret],
  });
  assert.deepEqual(fromString, headers);
});

test('rotation: two secrets give two signatures in each scheme, each verifiable on its own', () => {
  const current = generateWebhookSecret();
  const previous = generateWebhookSecret();
  const body = '{"type":"healthcheck"}';
  const headers = signWebhook({
    id: 'evt_2',
    timestamp: 1700000100,
    rawBody: body,
    secrets: [current, previous],
  });
  const standard = headers['webhook-signature'].split(' ');
  assert.deepEqual(standard, [
    `v1,${referenceStandardSignature(current, 'evt_2', '1700000100', body)}`,
    `v1,${referenceStandardSignature(previous, 'evt_2', '1700000100', body)}`,
  ]);
  assert.deepEqual(parseServiceHeader(headers['service-signature']).v1, [
    referenceServiceSignature(current, '1700000100', body),
    referenceServiceSignature(previous, '1700000100', body),
  ]);
  const now = new Date(1700000100 * 1000);
  for (const secret of [current, previous]) {
    assert.equal(verifyStandardWebhook({ rawBody: body, headers, secret, now }).valid, true);
    assert.equal(verifyServiceSignature({ rawBody: body, headers, secret, now }).valid, true);
  }
  const stranger = generateWebhookSecret();
  assert.equal(verifyStandardWebhook({ rawBody: body, headers, secret: stranger, now }).valid, false);
  assert.equal(verifyServiceSignature({ rawBody: body, headers, secret: stranger, now }).valid, false);
});

test('every replaced secret signs until its own overlap ends, newest first, then stops', () => {
  const signsUntil = (iso: string) => new Date(iso);
  const state = {
    current: 'whsec_newest',
    retired: [
      { secret: 'whsec_first', signsUntil: signsUntil('2025-03-02T12:00:00Z') },
      { secret: 'whsec_second', signsUntil: signsUntil('2025-03-02T13:00:00Z') },
    ],
  };
  assert.deepEqual(signingSecretsAt(state, new Date('2025-03-02T11:59:59Z')), [
    'whsec_newest',
    'whsec_second',
    'whsec_first',
  ]);
  assert.deepEqual(signingSecretsAt(state, new Date('2025-03-02T12:00:00Z')), [
    'whsec_newest',
    'whsec_second',
  ]);
  assert.deepEqual(signingSecretsAt(state, new Date('2025-03-02T13:00:00Z')), ['whsec_newest']);
  assert.deepEqual(signingSecretsAt({ current: 'whsec_newest' }, new Date()), ['whsec_newest']);
});

test('verification rejects tampering, wrong secrets, stale or future timestamps and missing headers', () => {
  const secret = generateWebhookSecret();
  const body = '{"type":"deauth"}';
  const timestamp = 1700000000;
  const headers = signWebhook({ id: 'evt_3', timestamp, rawBody: body, secrets: [secret] });
  const now = new Date(timestamp * 1000);
  const verifiers = [verifyStandardWebhook, verifyServiceSignature];
  for (const verify of verifiers) {
    assert.equal(verify({ rawBody: body, headers, secret, now }).valid, true);
    assert.equal(verify({ rawBody: `${body} `, headers, secret, now }).valid, false);
    assert.equal(verify({ rawBody: body, headers, secret: generateWebhookSecret(), now }).valid, false);
    const late = new Date((timestamp + 301) * 1000);
    assert.deepEqual(verify({ rawBody: body, headers, secret, now: late }), {
      valid: false,
      reason: 'timestamp outside tolerance',
    });
    const early = new Date((timestamp - 301) * 1000);
    assert.equal(verify({ rawBody: body, headers, secret, now: early }).valid, false);
    assert.equal(verify({ rawBody: body, headers, secret, now: late, toleranceSeconds: 600 }).valid, true);
    assert.equal(verify({ rawBody: body, headers: {}, secret, now }).valid, false);
  }
  // The id is signed: a replay under another id fails.
  const otherId = { ...headers, 'webhook-id': 'evt_4' };
  assert.equal(verifyStandardWebhook({ rawBody: body, headers: otherId, secret, now }).valid, false);
  // The timestamp is signed: moving t fails even inside the tolerance.
  const movedT = {
    'service-signature': headers['service-signature'].replace(`t=${timestamp}`, `t=${timestamp + 1}`),
  };
  assert.equal(verifyServiceSignature({ rawBody: body, headers: movedT, secret, now }).valid, false);
});

test('verification reads header names case-insensitively and array values', () => {
  const secret = generateWebhookSecret();
  const body = '{}';
  const signed = signWebhook({ id: 'evt_5', timestamp: 1700000000, rawBody: body, secrets: [secret] });
  const now = new Date(1700000000 * 1000);
  const shouted = {
    'Webhook-Id': signed['webhook-id'],
    'WEBHOOK-TIMESTAMP': [signed['webhook-timestamp']],
    'Webhook-Signature': `v1a,garbage ${signed['webhook-signature']}`,
    'Service-Signature': signed['service-signature'],
  };
  assert.equal(verifyStandardWebhook({ rawBody: body, headers: shouted, secret, now }).valid, true);
  assert.equal(verifyServiceSignature({ rawBody: body, headers: shouted, secret, now }).valid, true);
});

test('generated secrets are whsec_ + base64 of 32 random bytes', () => {
  const first = generateWebhookSecret();
  const second = generateWebhookSecret();
  assert.match(first, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(first.slice(6), 'base64').length, 32);
  assert.notEqual(first, second);
  assert.equal(isValidWebhookSecret(first), true);
  assert.equal(isValidWebhookSecret(VECTOR.secret), true);
  assert.equal(isValidWebhookSecret('whsec_short'), false);
  assert.equal(isValidWebhookSecret('whsec_not base64 at all!!'), false);
  assert.throws(
    () => signWebhook({ id: 'x', timestamp: 1, rawBody: '{}', secrets: ['whsec_short'] }),
    TypeError,
  );
  assert.throws(() => signWebhook({ id: 'x', timestamp: 1, rawBody: '{}', secrets: [] }), TypeError);
  assert.throws(() => signWebhook({ id: 'x', timestamp: 1.5, rawBody: '{}', secrets: [first] }), TypeError);
});

test('delivery headers carry JSON content type, a Tributary user-agent and the reference', () => {
  const secret = generateWebhookSecret();
  const headers = buildDeliveryHeaders({
    id: 'evt_6',
    timestamp: 1700000000,
    rawBody: '{}',
    secrets: [secret],
    version: '0.1.0',
    reference: 'ref_123',
    orderingTimestamp: new Date('2026-12-01T10:00:00.123Z'),
  });
  assert.equal(headers['content-type'], 'application/json');
  assert.equal(headers['service-trace-id'], 'evt_6');
  assert.equal(headers['service-ordering-timestamp'], String(Date.parse('2026-12-01T10:00:00.123Z')));
  assert.match(headers['user-agent'] ?? '', /^Tributary\/0\.1\.0\b/);
  assert.equal(headers['service-reference'], 'ref_123');
  assert.ok(headers['webhook-signature'] && headers['service-signature']);
  const withoutReference = buildDeliveryHeaders({
    id: 'evt_6',
    timestamp: 1700000000,
    rawBody: '{}',
    secrets: [secret],
    version: '0.1.0',
    orderingTimestamp: new Date(),
  });
  assert.equal('service-reference' in withoutReference, false);
});

test('secrets made into keys once sign exactly as the secret strings do, rotation included', () => {
  const [current, retired] = [generateWebhookSecret(), generateWebhookSecret()];
  const input = { id: 'evt_keys', timestamp: 1700000000, rawBody: '{"a":"ü"}' };
  assert.deepEqual(
    signWebhook({ ...input, secrets: [signingKey(current), signingKey(retired)] }),
    signWebhook({ ...input, secrets: [current, retired] }),
  );
  assert.throws(() => signingKey('whsec_short'), TypeError);
});
