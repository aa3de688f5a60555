// One settings schema (issue 27): every module's settings are checked in one pass at start-up and
// every bad value is reported in one message; modules get their typed settings from the config.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/core/config.ts';
import { Value } from 'typebox/value';
import { numberSetting, readSettings } from '../../src/core/settings.ts';
import { dayCompanionsSettings } from '../../src/features/day-companions/settings.ts';
import { webhookSettings } from '../../src/features/delivery/settings.ts';
import { httpSettingsOf } from '../../src/provider-access/http-client.ts';
import { providerSettings } from '../../src/provider-access/settings.ts';
import { ALL_SETTINGS_GROUPS, loadRuntimeConfig, SETTINGS_GROUPS } from '../../src/runtime/settings.ts';

// A valid key: no key file is written, so these tests touch no disk.
const BASE = { ENCRYPTION_KEY: 'a'.repeat(64), DATA_DIR: '/nonexistent' };

const problemsOf = (fn: () => unknown): readonly string[] => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  assert.fail('expected a ConfigError');
};

describe('settings', () => {
  test('three bad values, in three modules, are reported together in one message', () => {
    let caught: unknown;
    try {
      loadRuntimeConfig({
        ...BASE,
        PORT: 'abc',
        WEBHOOK_TIMEOUT: 'soon',
        STRAVA_REQUEST_BUDGET: 'lots',
      });
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof ConfigError);
    // The wording of each setting's own error is kept.
    const expected = [
      'PORT must be an integer between 0 and 65535, got "abc"',
      'STRAVA_REQUEST_BUDGET must be <requests>/<seconds>[,<requests>/<seconds>…], got "lots"',
      'WEBHOOK_TIMEOUT must be a duration such as 500ms, 10s, 24h or 5d, got "soon"',
    ];
    assert.deepEqual(caught.problems, expected);
    assert.equal(caught.message, `3 settings are invalid:\n${expected.map((p) => `  - ${p}`).join('\n')}`);
  });

  test('one bad value is reported in its own words, as before', () => {
    assert.throws(() => loadRuntimeConfig({ ...BASE, LOG_LEVEL: 'loud' }), {
      name: 'ConfigError',
      message: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    });
  });

  test('settings that disagree, and settings of several of one group, are all listed', () => {
    const problems = problemsOf(() =>
      loadRuntimeConfig({
        ...BASE,
        WEBHOOK_FAILING_AFTER: '2d',
        WEBHOOK_DISABLE_AFTER: '1d',
        OURA_CLIENT_ID: 'only-id',
        MOBILE_UPLOAD_PENDING_MAX: '0',
        LAB_REPORT_CONCURRENCY: '65',
        DASHBOARD_SESSION_HOURS: 'soon',
      }),
    );
    assert.deepEqual(problems, [
      'OURA_CLIENT_ID and OURA_CLIENT_SECRET must be set together',
      'WEBHOOK_DISABLE_AFTER must not be shorter than WEBHOOK_FAILING_AFTER',
      'DASHBOARD_SESSION_HOURS must be a number of hours between 0 and 720, got "soon"',
      'LAB_REPORT_CONCURRENCY must be a whole number from 1 to 64, got "65"',
      'MOBILE_UPLOAD_PENDING_MAX must be a whole number ≥ 1, got "0"',
    ]);
  });

  test('core settings are all checked too, before the others', () => {
    const problems = problemsOf(() =>
      loadRuntimeConfig({
        ...BASE,
        PORT: '70000',
        PUBLIC_URL: 'ftp://example.com',
        DATABASE_SCHEMA: 'Bad-Name',
        TRUST_PROXY: 'maybe',
        WEBHOOK_WORKERS: '0',
      }),
    );
    assert.deepEqual(problems, [
      'PORT must be an integer between 0 and 65535, got "70000"',
      'PUBLIC_URL must use http or https, got "ftp://example.com"',
      'DATABASE_SCHEMA must be a lower-case SQL identifier (letters, digits, underscores)',
      'TRUST_PROXY must be true, false or comma-separated addresses/CIDRs, got "maybe"',
      'WEBHOOK_WORKERS must be a positive integer, got "0"',
    ]);
  });

  test('every module gets its typed, parsed settings; defaults when unset', () => {
    const config = loadRuntimeConfig({
      ...BASE,
      WEBHOOK_TIMEOUT: '2s',
      PORT: '9000',
      OURA_USER_SHARE: '0.5',
    });
    assert.equal(config.port, 9000);
    assert.equal(config.publicUrl, 'http://127.0.0.1:9000');
    assert.equal(config.settings.get(webhookSettings).timeoutMs, 2000);
    assert.equal(config.settings.get(webhookSettings).retentionMs, 30 * 86_400_000);
    assert.equal(config.settings.forProvider(providerSettings, 'OURA').userShare, 0.5);
    assert.equal(config.settings.forProvider(providerSettings, 'STRAVA').userShare, undefined);
  });

  test('PROVIDER_HTTP_TIMEOUT_MS is parsed once, strictly, for every client', () => {
    assert.equal(
      httpSettingsOf(loadRuntimeConfig({ ...BASE, PROVIDER_HTTP_TIMEOUT_MS: '1500' })).timeoutMs,
      1500,
    );
    assert.deepEqual(
      problemsOf(() => loadRuntimeConfig({ ...BASE, PROVIDER_HTTP_TIMEOUT_MS: 'soon' })),
      ['PROVIDER_HTTP_TIMEOUT_MS must be a positive number, got "soon"'],
    );
  });

  test('DAY_COMPANIONS_RETENTION_DAYS: 30 days unless set, whole days of at least one', () => {
    const retention = (env: Record<string, string>) =>
      loadRuntimeConfig({ ...BASE, ...env }).settings.get(dayCompanionsSettings).retentionDays;
    assert.equal(retention({}), 30);
    assert.equal(retention({ DAY_COMPANIONS_RETENTION_DAYS: '7' }), 7);
    for (const bad of ['0', '1.5', 'a month'])
      assert.deepEqual(
        problemsOf(() => retention({ DAY_COMPANIONS_RETENTION_DAYS: bad })),
        [`DAY_COMPANIONS_RETENTION_DAYS must be a whole number of days, at least 1, got "${bad}"`],
      );
  });

  test('a configuration loaded without the declarations parses a group when first used', () => {
    const config = loadConfig({ ...BASE, WEBHOOK_BATCH_SIZE: 'many' });
    assert.throws(
      () => config.settings.get(webhookSettings),
      /WEBHOOK_BATCH_SIZE must be a positive integer/,
    );
    assert.equal(readSettings(webhookSettings, {}).batchSize, 50);
  });

  test('every setting is declared once, by one group', () => {
    const seen = new Map<string, string>();
    for (const group of ALL_SETTINGS_GROUPS) {
      const names = group.kind === 'group' ? Object.keys(group.settings) : Object.keys(group.templates);
      for (const name of names) {
        const key = group.kind === 'group' ? name : `<PROVIDER>_${name}`;
        assert.equal(seen.get(key), undefined, `${key} declared by ${seen.get(key)} and ${group.id}`);
        seen.set(key, group.id);
      }
    }
    assert.ok(SETTINGS_GROUPS.length >= 10);
  });
});

describe('number settings', () => {
  // The bound check is written out (TypeBox's value checker is not loaded at start-up): it must
  // accept exactly what the setting's own TypeBox type accepts.
  test('accept exactly what their TypeBox type accepts', () => {
    const specs = [
      { integer: true, minimum: 1, maximum: 10 },
      { integer: false, exclusiveMinimum: 0 },
      { integer: true, exclusiveMinimum: -1, maximum: 0 },
      { integer: false, minimum: 0.5, maximum: 2.5 },
      {},
    ];
    const values = [-2, -1, -0.5, 0, 0.25, 0.5, 1, 1.5, 2, 2.5, 3, 9.99, 10, 10.5, 11, 1e9];
    for (const bounds of specs) {
      const setting = numberSetting({
        description: 'a number',
        default: undefined,
        problem: 'is bad',
        ...bounds,
      });
      for (const value of values) {
        let accepted = true;
        try {
          setting.parse(String(value), 'N');
        } catch (error) {
          assert.ok(error instanceof ConfigError);
          accepted = false;
        }
        assert.equal(accepted, Value.Check(setting.schema, value), `${JSON.stringify(bounds)} ${value}`);
      }
    }
  });
});
