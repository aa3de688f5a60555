// What one inbound notification may make Tributary fetch (src/features/connectors/notification-limits.ts):
// spans clamped to the provider's declared maximum and to the connection's life, callbacks only to
// the provider's own declared URLs as this deployment calls them (issue 24 item 6, issue 25).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  clampSpan,
  declaredCallback,
  hasWork,
  keepDeclaredCallbacks,
} from '../../src/features/connectors/notification-limits.ts';
import type { DataNotification } from '../../src/provider-kit/api.ts';

const now = new Date('2026-11-27T10:00:00Z');
const connectedSince = new Date('2026-11-20T00:00:00Z');
const notification = (span: { start: string; end: string }, callbacks?: string[]): DataNotification => ({
  kind: 'data',
  providerUserId: 'u',
  dataKind: 'dailies',
  objectId: 'x',
  action: 'update',
  eventTime: span.end,
  span,
  ...(callbacks ? { callbacks } : {}),
});

describe('notification spans', () => {
  test('a span within the maximum and the connection’s life is kept as it is', () => {
    const given = notification({ start: '2026-11-27T09:00:00.000Z', end: '2026-11-27T09:30:00.000Z' }, ['c']);
    assert.equal(clampSpan(given, 86_400, { connectedSince, now }), given);
  });

  test('1970 → now is clamped to the last day, and its callback dropped', () => {
    const forged = notification({ start: '1970-01-01T00:00:00.000Z', end: now.toISOString() }, ['c']);
    const clamped = clampSpan(forged, 86_400, { connectedSince: null, now });
    assert.deepEqual(clamped?.span, { start: '2026-11-26T10:00:00.000Z', end: now.toISOString() });
    assert.deepEqual(clamped?.callbacks, []);
    assert.equal(hasWork(clamped!), false);
  });

  test('a span that ends before the connection began is dropped; one open when it began is kept', () => {
    const before = notification({ start: '2026-11-19T10:00:00.000Z', end: '2026-11-19T10:05:00.000Z' });
    assert.equal(clampSpan(before, 86_400, { connectedSince, now }), null);
    const open = notification({ start: '2026-11-19T23:59:00.000Z', end: '2026-11-20T00:01:00.000Z' }, ['c']);
    assert.equal(clampSpan(open, 86_400, { connectedSince, now }), open);
  });

  test('a span reaching into the future ends now (with a few minutes for clocks)', () => {
    const ahead = notification({ start: '2026-11-27T09:00:00.000Z', end: '2027-01-01T00:00:00.000Z' });
    assert.equal(clampSpan(ahead, undefined, { connectedSince, now })?.span?.end, '2026-11-27T10:05:00.000Z');
  });

  test('a notification without a span is not touched', () => {
    const plain: DataNotification = { ...notification({ start: '', end: '' }) };
    delete plain.span;
    assert.equal(clampSpan(plain, 86_400, { connectedSince, now }), plain);
  });
});

describe('notification callbacks', () => {
  const declared = ['https://apis.garmin.com/wellness-api/rest/dailies'];
  const viaFake = (url: string) => url.replace('https://apis.garmin.com', 'http://127.0.0.1:4000');

  test('the configured origin and a declared path: kept, as the declared URL with its query', () => {
    assert.equal(
      declaredCallback('http://127.0.0.1:4000/wellness-api/rest/dailies?token=t&a=1', declared, viaFake),
      'https://apis.garmin.com/wellness-api/rest/dailies?token=t&a=1',
    );
    assert.equal(
      declaredCallback('https://apis.garmin.com/wellness-api/rest/dailies?token=t', declared, (url) => url),
      'https://apis.garmin.com/wellness-api/rest/dailies?token=t',
    );
  });

  test('another host, port, scheme, path, credentials or garbage: dropped', () => {
    for (const callback of [
      'https://apis.garmin.com/wellness-api/rest/dailies?token=t', // not this deployment's Garmin
      'http://127.0.0.1:4001/wellness-api/rest/dailies',
      'https://127.0.0.1:4000/wellness-api/rest/dailies',
      'http://127.0.0.1:4000/wellness-api/rest/dailies/../user/registration',
      'http://127.0.0.1:4000/partner-gateway/rest/user/registration',
      'http://user:pass@127.0.0.1:4000/wellness-api/rest/dailies',
      'not a url',
    ])
      assert.equal(declaredCallback(callback, declared, viaFake), null, callback);
  });

  test('a provider that declares no callbacks has every callback dropped', () => {
    const given = notification({ start: '2026-11-27T09:00:00.000Z', end: '2026-11-27T09:30:00.000Z' }, [
      'http://127.0.0.1:4000/wellness-api/rest/dailies',
    ]);
    const kept = keepDeclaredCallbacks(given, undefined, viaFake);
    assert.deepEqual(kept.callbacks, []);
    assert.equal(hasWork(kept), false);
  });
});
