// The receiving side of webhook signing, and the edges of the signing side: what a receiver's
// verifier accepts and refuses (each refusal with its reason), which secrets are valid, and which
// inputs signing refuses. Expectations come from the Standard Webhooks specification's published
// test vector and from HMACs computed once outside this code base, never from the functions under test.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  isValidWebhookSecret,
  SECRET_ROTATION_OVERLAP_MS,
  signWebhook,
  verifyServiceSignature,
  verifyStandardWebhook,
} from '../../src/features/delivery/signing.ts';

// The Standard Webhooks specification's test vector.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';
const STANDARD = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
// HMAC-SHA256 keyed with the whole secret string over "1614265330.{body}", computed independently.
const SERVICE_HEX = '2e37df5d4a028c51a7f3133d64ae1e300d2c2c900f1b1d49d4369ad2530f8964';
const AT = new Date(TIMESTAMP * 1000);
const OTHER_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

const standardHeaders = (overrides: Record<string, string | string[] | undefined> = {}) => ({
  'webhook-id': ID,
  'webhook-timestamp': String(TIMESTAMP),
  'webhook-signature': STANDARD,
  ...overrides,
});
const verifyStandard = (
  headers: Record<string, string | string[] | undefined>,
  secret: string | string[] = SECRET,
  now = AT,
) => verifyStandardWebhook({ rawBody: BODY, headers, secret, now });
const verifyService = (value: string | undefined, secret: string | string[] = SECRET, now = AT) =>
  verifyServiceSignature({ rawBody: BODY, headers: { 'service-signature': value }, secret, now });

describe('webhook secrets', () => {
  const base64Of = (bytes: number) => Buffer.alloc(bytes, 1).toString('base64');

  test('whsec_ plus padded base64 of 24 to 64 bytes is valid; anything else is not', () => {
    assert.equal(isValidWebhookSecret(SECRET), true, 'the specification’s 24-byte secret');
    assert.equal(isValidWebhookSecret(`whsec_${base64Of(64)}`), true);
    assert.equal(isValidWebhookSecret(`whsec_${base64Of(23)}`), false, 'too short');
    assert.equal(isValidWebhookSecret(`whsec_${base64Of(65)}`), false, 'too long');
    const key = base64Of(32);
    assert.equal(isValidWebhookSecret(`whsec_${key.replace(/=+$/, '')}`), false, 'unpadded');
    assert.equal(isValidWebhookSecret(`whsec_!!!!${key}`), false, 'garbage before the base64');
    assert.equal(isValidWebhookSecret(`whsec_${key}!!!!`), false, 'garbage after the base64');
    assert.equal(isValidWebhookSecret('whsec_'), false);
  });

  test('signing refuses an invalid secret, no secret, and a timestamp that is not unix seconds', () => {
    const sign = (secrets: string[], timestamp = TIMESTAMP) =>
      signWebhook({ id: ID, timestamp, rawBody: BODY, secrets });
    assert.throws(() => sign(['whsec_short']), {
      name: 'TypeError',
      message: 'webhook secret must be "whsec_" followed by base64 of 24-64 bytes',
    });
    assert.throws(() => sign([]), { name: 'TypeError', message: 'at least one signing secret is required' });
    assert.throws(() => sign([SECRET], -1), { name: 'TypeError', message: 'timestamp must be unix seconds' });
    assert.throws(() => sign([SECRET], 1.5), {
      name: 'TypeError',
      message: 'timestamp must be unix seconds',
    });
    assert.equal(sign([SECRET], 0)['webhook-timestamp'], '0', 'the epoch itself is a valid timestamp');
  });

  test('a replaced secret keeps signing for the published 24 hours', () => {
    assert.equal(SECRET_ROTATION_OVERLAP_MS, 24 * 3_600_000);
  });

  test('signing reproduces both published signatures', () => {
    const headers = signWebhook({ id: ID, timestamp: TIMESTAMP, rawBody: BODY, secrets: [SECRET] });
    assert.equal(headers['webhook-signature'], STANDARD);
    assert.equal(headers['service-signature'], `t=${TIMESTAMP},v1=${SERVICE_HEX}`);
  });
});

describe('Standard Webhooks verification', () => {
  test('accepts the specification vector, with header names in any case and as arrays', () => {
    assert.deepEqual(verifyStandard(standardHeaders()), { valid: true });
    assert.deepEqual(
      verifyStandard({
        'Webhook-Id': ID,
        'WEBHOOK-TIMESTAMP': String(TIMESTAMP),
        'Webhook-Signature': STANDARD,
      }),
      { valid: true },
    );
    assert.deepEqual(
      verifyStandard(standardHeaders({ 'webhook-signature': `v1,c2hvcnQ= ${STANDARD}` })),
      { valid: true },
      'a candidate of another length is skipped, not compared',
    );
    assert.deepEqual(
      verifyStandard({
        'webhook-id': [ID],
        'webhook-timestamp': [String(TIMESTAMP)],
        'webhook-signature': [STANDARD, 'v1,ignored'],
      }),
      { valid: true },
    );
  });

  test('a missing header, one at a time (absent or undefined), is refused as missing', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const absent: Record<string, string | undefined> = standardHeaders();
      delete absent[name];
      assert.deepEqual(verifyStandard(absent), { valid: false, reason: 'missing webhook-* headers' }, name);
      assert.deepEqual(
        verifyStandard(standardHeaders({ [name]: undefined })),
        { valid: false, reason: 'missing webhook-* headers' },
        `${name} undefined`,
      );
    }
  });

  test('timestamps: digits only, inside the tolerance inclusive', () => {
    const notSeconds = { valid: false, reason: 'timestamp is not unix seconds' };
    for (const raw of ['abc', `x${TIMESTAMP}`, `${TIMESTAMP}x`, '1234567890123456']) {
      assert.deepEqual(verifyStandard(standardHeaders({ 'webhook-timestamp': raw })), notSeconds, raw);
    }
    const atEdge = new Date((TIMESTAMP + 300) * 1000);
    assert.deepEqual(
      verifyStandard(standardHeaders(), SECRET, atEdge),
      { valid: true },
      'exactly 300 s late',
    );
    const early = new Date((TIMESTAMP - 300) * 1000);
    assert.deepEqual(
      verifyStandard(standardHeaders(), SECRET, early),
      { valid: true },
      'exactly 300 s early',
    );
    const late = new Date((TIMESTAMP + 301) * 1000);
    assert.deepEqual(verifyStandard(standardHeaders(), SECRET, late), {
      valid: false,
      reason: 'timestamp outside tolerance',
    });
  });

  test('only v1 signatures that match count; a wrong secret or body does not verify', () => {
    const noMatch = { valid: false, reason: 'no matching signature' };
    const forged = `v1,${Buffer.alloc(32, 9).toString('base64')}`;
    assert.deepEqual(verifyStandard(standardHeaders({ 'webhook-signature': forged })), noMatch);
    assert.deepEqual(
      verifyStandard(standardHeaders({ 'webhook-signature': STANDARD.replace('v1,', 'v2,') })),
      noMatch,
      'a right digest under another version tag',
    );
    assert.deepEqual(verifyStandard(standardHeaders(), OTHER_SECRET), noMatch);
    assert.deepEqual(
      verifyStandardWebhook({ rawBody: `${BODY} `, headers: standardHeaders(), secret: SECRET, now: AT }),
      noMatch,
    );
  });

  test('several secrets: any one of them verifies; an invalid one is reported', () => {
    assert.deepEqual(verifyStandard(standardHeaders(), [OTHER_SECRET, SECRET]), { valid: true });
    assert.deepEqual(verifyStandard(standardHeaders(), ['whsec_nope']), {
      valid: false,
      reason: 'secret is not a valid whsec_ secret',
    });
  });
});

describe('service-signature verification', () => {
  const header = `t=${TIMESTAMP},v1=${SERVICE_HEX}`;

  test('accepts the computed signature, uppercase hex and spaces around elements', () => {
    assert.deepEqual(verifyService(header), { valid: true });
    assert.deepEqual(verifyService(`t=${TIMESTAMP},v1=${SERVICE_HEX.toUpperCase()}`), { valid: true });
    assert.deepEqual(verifyService(` t=${TIMESTAMP} , v1=${SERVICE_HEX} `), { valid: true });
    assert.deepEqual(verifyService(`t=${TIMESTAMP},v1=${'0'.repeat(64)},v1=${SERVICE_HEX}`), { valid: true });
    assert.deepEqual(verifyService(`${header},tx`), { valid: true }, 'an element without = is skipped');
    assert.deepEqual(verifyService(header, [OTHER_SECRET, SECRET]), { valid: true });
  });

  test('refusals, each with its reason', () => {
    assert.deepEqual(verifyService(undefined), { valid: false, reason: 'missing service-signature header' });
    assert.deepEqual(verifyService(`v1=${SERVICE_HEX}`), {
      valid: false,
      reason: 'service-signature has no t=',
    });
    assert.deepEqual(verifyService(`t=soon,v1=${SERVICE_HEX}`), {
      valid: false,
      reason: 'timestamp is not unix seconds',
    });
    assert.deepEqual(verifyService(header, SECRET, new Date((TIMESTAMP + 301) * 1000)), {
      valid: false,
      reason: 'timestamp outside tolerance',
    });
    const noMatch = { valid: false, reason: 'no matching signature' };
    assert.deepEqual(verifyService(header, OTHER_SECRET), noMatch);
    assert.deepEqual(verifyService(`t=${TIMESTAMP},v2=${SERVICE_HEX}`), noMatch, 'another version tag');
    assert.deepEqual(verifyService(`t=${TIMESTAMP},v1=${SERVICE_HEX}zz`), noMatch, 'trailing characters');
    assert.deepEqual(verifyService(`t=${TIMESTAMP},v1=${SERVICE_HEX.slice(2)}`), noMatch, 'too short');
  });
});
