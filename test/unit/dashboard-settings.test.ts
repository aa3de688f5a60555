import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/core/config.ts';
import { parseDashboardSettings } from '../../src/features/dashboard/settings.ts';

describe('dashboard settings', () => {
  test('operator sign-in is off unless OPERATOR_TOKEN is set, and a short token refuses to start', () => {
    assert.equal(parseDashboardSettings({}).operatorToken, undefined);
    assert.equal(parseDashboardSettings({ OPERATOR_TOKEN: '  ' }).operatorToken, undefined);
    const token = 'a'.repeat(32);
    assert.equal(parseDashboardSettings({ OPERATOR_TOKEN: token }).operatorToken, token);
    assert.throws(() => parseDashboardSettings({ OPERATOR_TOKEN: 'short' }), ConfigError);
  });

  test('session lifetime: 8 hours unless DASHBOARD_SESSION_HOURS says otherwise', () => {
    assert.equal(parseDashboardSettings({}).sessionTtlMs, 8 * 3_600_000);
    assert.equal(parseDashboardSettings({ DASHBOARD_SESSION_HOURS: '0.5' }).sessionTtlMs, 1_800_000);
    for (const bad of ['0', '-1', 'soon', '1000']) {
      assert.throws(() => parseDashboardSettings({ DASHBOARD_SESSION_HOURS: bad }), ConfigError, bad);
    }
  });
});
