// The wire payloads of webhook events, built by the features that own them (connections, data,
// the engine's own healthcheck), and the envelopes they hand to the engine.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  buildAuthErrorEvent,
  buildAuthSuccessEvent,
  buildPermissionChangeEvent,
  buildUserNoticeEvent,
  buildUserReauthEvent,
  connectionEnvelope,
} from '../../src/features/connecting/events.ts';
import {
  buildAthleteEvent,
  buildDataEvent,
  buildLargeRequestProcessingEvent,
  buildLargeRequestSendingEvent,
  buildRateLimitHitEvent,
  DATA_EVENT_TYPES,
  dataEnvelope,
} from '../../src/features/data/events.ts';
import { expandForDelivery } from '../../src/features/data/webhook-emit.ts';
import { toWebhookUser } from '../../src/features/connections/webhook-user.ts';
import { buildHealthcheckEvent, healthcheckEnvelope } from '../../src/features/delivery/events.ts';
import { loadWebhookSettings } from '../../src/features/delivery/settings.ts';
import { wireDateTime } from '../../src/model/time.ts';

const ROW = {
  user_id: '6f1c1f3e-0000-4000-8000-000000000001',
  provider: 'OURA',
  reference_id: 'customer-42',
  active: true,
  scopes: ['daily', 'heartrate'],
  created_at: new Date('2025-01-02T03:04:05.678Z'),
  last_webhook_update: null,
  encrypted_access_token: 'must never leak',
};
const USER = {
  user_id: '6f1c1f3e-0000-4000-8000-000000000001',
  provider: 'OURA',
  last_webhook_update: null,
  scopes: 'daily,heartrate',
  reference_id: 'customer-42',
  active: true,
  created_at: '2025-01-02T03:04:05.678000+00:00',
};

test('the user object has exactly the wire keys, with microsecond datetimes', () => {
  assert.deepEqual(toWebhookUser(ROW), USER);
  assert.equal(wireDateTime(new Date('2022-12-12T10:00:00Z')), '2022-12-12T10:00:00.000000+00:00');
  assert.deepEqual(toWebhookUser({ user_id: 'u', provider: 'SANDBOX' }), {
    user_id: 'u',
    provider: 'SANDBOX',
    last_webhook_update: null,
    scopes: null,
    reference_id: null,
    active: true,
    created_at: null,
  });
});

test('connection events use the contract property names', () => {
  assert.deepEqual(buildAuthSuccessEvent(ROW, { widgetSessionId: 'ws_1' }), {
    type: 'auth',
    status: 'success',
    user: USER,
    reference_id: 'customer-42',
    widget_session_id: 'ws_1',
  });
  assert.deepEqual(buildAuthErrorEvent(ROW, { reason: 'access_denied' }), {
    type: 'auth_cancelled',
    status: 'error',
    flow_id: USER.user_id,
    provider: 'OURA',
    message: 'User failed to authenticate and has been deleted',
    reason: 'access_denied',
    reference_id: 'customer-42',
    widget_session_id: null,
  });
  assert.deepEqual(buildUserNoticeEvent('deauth', ROW), {
    type: 'deauth',
    status: 'success',
    message: 'User has deauthenticated',
    user: { ...USER, active: false },
  });
  assert.deepEqual(buildUserNoticeEvent('access_revoked', ROW), {
    type: 'access_revoked',
    status: 'warning',
    message: 'User revoked access',
    user: { ...USER, active: false },
  });
  assert.deepEqual(buildUserNoticeEvent('connection_error', ROW), {
    type: 'connection_error',
    status: 'warning',
    message: 'User connection degraded',
    user: USER,
  });
  const reauth = buildUserReauthEvent(ROW, { ...ROW, user_id: 'old' });
  assert.deepEqual(reauth, {
    type: 'user_reauth',
    status: 'warning',
    message: 'User has reauthenticated and old ID has been deleted',
    new_user: USER,
    old_user: { ...USER, user_id: 'old', active: false },
    version: '2022-03-16',
  });
  assert.deepEqual(buildPermissionChangeEvent(ROW, { added: ['sleep', 'daily'], removed: '' }), {
    type: 'permission_change',
    status: 'warning',
    message: 'User permissions have been modified',
    version: '2022-03-16',
    scopes_added: 'sleep,daily',
    scopes_removed: '',
    user: USER,
  });
});

test('every data type builds {type, user, data, version} plus reference when one exists', () => {
  const data = [{ metadata: { start_time: '2025-01-01T00:00:00.000000+00:00' } }];
  assert.equal(DATA_EVENT_TYPES.length, 8);
  for (const type of DATA_EVENT_TYPES) {
    assert.deepEqual(buildDataEvent(type, { user: ROW, data, reference: 'ref_9' }), {
      // Planned workouts travel as planned_workout (the vendor's current event type).
      type: type === 'plannedWorkout' ? 'planned_workout' : type,
      user: USER,
      data,
      version: '2022-03-16',
      reference: 'ref_9',
    });
    const pushed = buildDataEvent(type, { user: ROW, data });
    assert.deepEqual(Object.keys(pushed), ['type', 'user', 'data', 'version']);
  }
  assert.deepEqual(buildAthleteEvent({ user: ROW, athlete: { first_name: 'Ada' }, reference: 'ref_9' }), {
    type: 'athlete',
    user: USER,
    athlete: { first_name: 'Ada' },
    version: '2022-03-16',
    reference: 'ref_9',
  });
});

test('large-request, rate-limit and healthcheck events use the contract property names', () => {
  const processing = buildLargeRequestProcessingEvent({ user: ROW, reference: 'ref_7' });
  assert.deepEqual(Object.keys(processing).sort(), ['message', 'reference', 'status', 'type', 'user']);
  assert.equal(processing.status, 'processing');
  const sending = buildLargeRequestSendingEvent({ user: ROW, reference: 'ref_7', expectedPayloads: 4 });
  assert.deepEqual(Object.keys(sending).sort(), [
    'expected_payloads',
    'message',
    'reference',
    'type',
    'user',
  ]);
  assert.equal(sending.expected_payloads, 4);
  assert.deepEqual(
    buildRateLimitHitEvent({
      user: ROW,
      startDate: new Date('2025-01-01T00:00:00Z'),
      endDate: '2025-02-01T00:00:00.000000+00:00',
      retryingAt: new Date('2025-03-01T13:00:00Z'),
    }),
    {
      type: 'rate_limit_hit',
      user: USER,
      start_date: '2025-01-01T00:00:00.000000+00:00',
      end_date: '2025-02-01T00:00:00.000000+00:00',
      retrying_at: '2025-03-01T13:00:00.000000+00:00',
      message: 'Rate limit reached whilst processing async query',
    },
  );
  assert.deepEqual(
    buildHealthcheckEvent({
      createdAt: new Date('2025-03-01T13:00:00Z'),
      trendPercentage: 2.5,
      sentWebhooksLastHour: 12,
    }),
    {
      type: 'healthcheck',
      status: 'success',
      creation_timestamp: '2025-03-01T13:00:00.000000+00:00',
      trend_percentage: 2.5,
      sent_webhooks_last_hour: 12,
    },
  );
});

test('each feature wraps its events in the engine envelope: type, user, reference, suppressible', () => {
  const fromData = [
    dataEnvelope(buildDataEvent('sleep', { user: ROW, data: [], reference: 'ref_1' })),
    dataEnvelope(buildLargeRequestSendingEvent({ user: ROW, reference: 'ref_2', expectedPayloads: 1 })),
    dataEnvelope(buildDataEvent('sleep', { user: ROW, data: [] })),
    dataEnvelope(buildAthleteEvent({ user: ROW, athlete: {} }), { userId: 'u-2', reference: 'ref_3' }),
  ];
  assert.deepEqual(
    fromData.map((envelope) => [envelope.type, envelope.userId, envelope.reference, envelope.suppressible]),
    [
      ['sleep', ROW.user_id, 'ref_1', true],
      ['large_request_sending', ROW.user_id, 'ref_2', false],
      ['sleep', ROW.user_id, null, true],
      ['athlete', 'u-2', 'ref_3', true],
    ],
  );
  const deauth = connectionEnvelope(buildUserNoticeEvent('deauth', ROW));
  assert.equal(deauth.userId, ROW.user_id);
  assert.ok(!deauth.suppressible && !deauth.reference, 'connection events are never withheld');
  assert.equal(connectionEnvelope(buildUserReauthEvent(ROW, { ...ROW, user_id: 'old' })).userId, ROW.user_id);
  const healthcheck = healthcheckEnvelope(
    buildHealthcheckEvent({ createdAt: new Date(), trendPercentage: 0, sentWebhooksLastHour: 0 }),
  );
  assert.deepEqual(
    [healthcheck.type, healthcheck.userId ?? null, healthcheck.suppressible ?? false],
    ['healthcheck', null, false],
  );
});

test('only data events are split, and only when too big or over a long range', () => {
  const settings = { ...loadWebhookSettings({}), maxPayloadBytes: 2_000 };
  const user = { user_id: '6f1c1f3e-3f5d-4e0c-9c86-1d5f2f1f9b2a', provider: 'SANDBOX' };
  const athlete = buildAthleteEvent({ user, athlete: { pad: 'x'.repeat(3_000) } });
  assert.equal(expandForDelivery({ event: athlete }, settings).length, 1);
  const small = buildDataEvent('sleep', { user, data: [{ a: 1 }], reference: 'ref-1' });
  assert.deepEqual(
    expandForDelivery({ event: small }, settings).map((entry) => [entry.type, entry.userId, entry.reference]),
    [['sleep', user.user_id, 'ref-1']],
  );
  const longRange = expandForDelivery(
    { event: small, options: { range: { start: new Date('2024-01-01'), end: new Date('2024-03-01') } } },
    settings,
  );
  assert.deepEqual(
    longRange.map((entry) => [entry.type, entry.suppressible]),
    [
      ['large_request_processing', false],
      ['large_request_sending', false],
      ['sleep', true],
    ],
  );
  const big = buildDataEvent('daily', {
    user,
    data: Array.from({ length: 12 }, (_, i) => ({ i, pad: 'x'.repeat(300) })),
  });
  const split = expandForDelivery({ event: big }, settings);
  const chunks = split.filter((entry) => entry.type === 'daily');
  assert.ok(chunks.length >= 2);
  assert.equal(
    new Set(split.map((entry) => entry.reference)).size,
    1,
    'one minted reference for the whole delivery',
  );
  for (const chunk of chunks) assert.ok(Buffer.byteLength(JSON.stringify(chunk.payload)) <= 2_000);
});
