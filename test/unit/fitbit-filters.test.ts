// Issue 25 class 2: FITBIT's Google Health API filters, built by one builder from a table of
// record types (src/providers/fitbit/filters.ts), against the grammar of Google's filter guide as
// the fake reads it independently (test/fakes/google-health-filters.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  instantsFilter,
  localDaysFilter,
  RECORD_TYPES,
  sleepEndingFilter,
} from '../../src/providers/fitbit/filters.ts';
import { parseFilter } from '../fakes/google-health-filters.ts';

describe('Google Health filters', () => {
  test('local days are asked on each record type’s civil member, in Google’s literal forms', () => {
    const days = { startDate: '2026-06-01', endDate: '2026-06-15' };
    assert.equal(
      localDaysFilter('exercise', days),
      'exercise.interval.civil_start_time >= "2026-06-01T00:00:00" AND exercise.interval.civil_start_time < "2026-06-15T00:00:00"',
    );
    assert.equal(
      localDaysFilter('hydration-log', days),
      'hydration_log.interval.civil_start_time >= "2026-06-01T00:00:00" AND hydration_log.interval.civil_start_time < "2026-06-15T00:00:00"',
    );
    assert.equal(
      localDaysFilter('body-fat', days),
      'body_fat.sample_time.civil_time >= "2026-06-01T00:00:00" AND body_fat.sample_time.civil_time < "2026-06-15T00:00:00"',
    );
    assert.equal(
      localDaysFilter('daily-vo2-max', days),
      'daily_vo2_max.date >= "2026-06-01" AND daily_vo2_max.date < "2026-06-15"',
    );
    assert.equal(
      sleepEndingFilter(days),
      'sleep.interval.civil_end_time >= "2026-06-01T00:00:00" AND sleep.interval.civil_end_time < "2026-06-16T00:00:00"',
    );
    assert.equal(
      instantsFilter('heart-rate', '2026-06-01T07:00:00Z', '2026-06-01T08:00:00Z'),
      'heart_rate.sample_time.physical_time >= "2026-06-01T07:00:00Z" AND heart_rate.sample_time.physical_time < "2026-06-01T08:00:00Z"',
    );
    assert.throws(() => instantsFilter('nutrition-log', 'a', 'b'), /no physical-time filter/);
  });

  // The fake's grammar is written from Google's filter guide, independently of filters.ts: every
  // filter the connector builds must pass it, and the old start-time filters of session types fail.
  test('every filter the connector builds is one Google accepts; the old session filters are refused', () => {
    const days = { startDate: '2026-06-01', endDate: '2026-06-08' };
    for (const dataType of Object.keys(RECORD_TYPES)) {
      const filter = dataType === 'sleep' ? sleepEndingFilter(days) : localDaysFilter(dataType, days);
      assert.ok(!('status' in parseFilter(dataType, filter)), `${dataType}: ${filter}`);
    }
    for (const dataType of ['exercise', 'sleep', 'nutrition-log', 'hydration-log']) {
      const member = `${dataType.replace(/-/g, '_')}.interval.start_time`;
      const refused = parseFilter(
        dataType,
        `${member} >= "2026-06-01T00:00:00Z" AND ${member} < "2026-06-02T00:00:00Z"`,
      );
      assert.ok('status' in refused && refused.status === 400, dataType);
      const detail = (refused as { body: { error: { details: { reason?: string }[] } } }).body.error
        .details[0];
      assert.equal(detail?.reason, 'INVALID_DATA_POINT_FILTER');
    }
  });
});
