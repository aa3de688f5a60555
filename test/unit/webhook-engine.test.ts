import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/core/config.ts';
import {
  decodeCursor,
  encodeCursor,
  parseSince,
  parseStatus,
} from '../../src/features/delivery/deliveries.ts';
import { EVENTS_PER_JOB, firstAttemptJobs } from '../../src/features/delivery/outbox.ts';
import { loadWebhookSettings, parseDuration } from '../../src/features/delivery/settings.ts';

test('settings: documented defaults, durations with units, and a failed boot on nonsense', () => {
  const defaults = loadWebhookSettings({});
  assert.equal(defaults.timeoutMs, 10_000);
  assert.equal(defaults.failingAfterMs, 24 * 3600_000);
  assert.equal(defaults.disableAfterMs, 5 * 24 * 3600_000);
  assert.equal(defaults.retentionMs, 30 * 24 * 3600_000);
  assert.equal(defaults.retryScale, 1);
  assert.equal(parseDuration('250ms', 'X'), 250);
  assert.equal(parseDuration('1.5s', 'X'), 1500);
  assert.equal(parseDuration('7d', 'X'), 7 * 24 * 3600_000);
  assert.equal(parseDuration('42', 'X'), 42);
  assert.throws(() => loadWebhookSettings({ WEBHOOK_TIMEOUT: 'soon' }), ConfigError);
  assert.throws(() => loadWebhookSettings({ WEBHOOK_WORKERS: '0' }), ConfigError);
  assert.throws(() => loadWebhookSettings({ WEBHOOK_RETRY_SCALE: '-1' }), ConfigError);
  assert.throws(
    () => loadWebhookSettings({ WEBHOOK_FAILING_AFTER: '2d', WEBHOOK_DISABLE_AFTER: '1d' }),
    /DISABLE_AFTER/,
  );
});

test('cursors round-trip and anything else is a 400 naming the parameter', () => {
  assert.equal(decodeCursor(encodeCursor(1234)), 1234);
  for (const bad of [
    '',
    'not!base64',
    Buffer.from('{"s":-1}').toString('base64url'),
    Buffer.from('[]').toString('base64url'),
  ]) {
    assert.throws(() => decodeCursor(bad), /^AppError: invalid cursor: /);
  }
  assert.equal(parseSince('2025-01-01T12:00:00.000000+01:00').toISOString(), '2025-01-01T11:00:00.000Z');
  assert.throws(() => parseSince('2025-01-01'), /invalid since: expected ISO 8601 date-time/);
  assert.throws(() => parseStatus('lost'), /invalid status: expected one of/);
});

test('bulk first attempts share jobs, EVENTS_PER_JOB at a time', () => {
  const events = Array.from({ length: EVENTS_PER_JOB * 2 + 1 }, (_, i) => ({
    id: `evt_${i}`,
    generation: 0,
  }));
  const jobs = firstAttemptJobs(events);
  assert.deepEqual(
    jobs.map((job) => job.data.events.length),
    [EVENTS_PER_JOB, EVENTS_PER_JOB, 1],
  );
  assert.ok(jobs.every((job) => job.data.try === 1));
});
