import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { GlucoseFlag, TrendArrow } from '../../src/model/enums.ts';
import { Body } from '../../src/model/index.ts';
import { placeRecord, trendArrowOf } from '../../src/providers/dexcom/normalize/glucose.ts';
import {
  dailyPatterns,
  daySummary,
  dexcomNormalizers,
  gmiOf,
} from '../../src/providers/dexcom/normalize/index.ts';
import type { DexcomDevice, DexcomEgv, DexcomEvent } from '../../src/providers/dexcom/normalize/types.ts';
import { missingProviderSamples, readProviderSample } from '../helpers/provider-samples.ts';
import { describeWithShared } from '../helpers/shared-reference.ts';

/**
 * Why the blocks that read the shared provider samples are skipped (undefined when present);
 * samples read at module level are read only when present (`undefined as never` otherwise).
 */
const skip = missingProviderSamples();

function sample<T>(name: string): T {
  return readProviderSample<T>(name);
}

function assertValid(schema: TSchema, value: unknown, label: string): void {
  if (!Value.Check(schema, value)) {
    const errors = [...Value.Errors(schema, value)].slice(0, 5);
    assert.fail(`${label} is invalid: ${JSON.stringify(errors, null, 2)}`);
  }
}

describe('Dexcom time and enums', () => {
  test('receiver records: the local offset is display minus system time, to the quarter hour', () => {
    assert.deepEqual(
      placeRecord({ systemTime: '2018-02-06T09:12:35', displayTime: '2018-02-06T01:12:35' }, 0),
      {
        atMs: Date.UTC(2018, 1, 6, 9, 12, 35),
        offset: -480,
      },
    );
    // A display clock a few minutes off still gives the zone.
    assert.equal(
      placeRecord({ systemTime: '2024-04-01T07:00:00', displayTime: '2024-04-01T00:03:00' }, 0).offset,
      -420,
    );
  });

  test('app records: the offset written on displayTime wins', () => {
    assert.deepEqual(
      placeRecord({ systemTime: '2024-04-02T07:02:00Z', displayTime: '2024-04-02T00:02:00-07:00' }, 60),
      {
        atMs: Date.UTC(2024, 3, 2, 7, 2),
        offset: -420,
      },
    );
  });

  test('seven Dexcom arrows fold into the five TrendArrow codes', () => {
    assert.equal(trendArrowOf('doubleUp'), TrendArrow.RISING_QUICKLY);
    assert.equal(trendArrowOf('singleUp'), TrendArrow.RISING_QUICKLY);
    assert.equal(trendArrowOf('fortyFiveUp'), TrendArrow.RISING);
    assert.equal(trendArrowOf('flat'), TrendArrow.FLAT);
    assert.equal(trendArrowOf('fortyFiveDown'), TrendArrow.FALLING);
    assert.equal(trendArrowOf('singleDown'), TrendArrow.FALLING_QUICKLY);
    assert.equal(trendArrowOf('doubleDown'), TrendArrow.FALLING_QUICKLY);
    assert.equal(trendArrowOf('notComputable'), TrendArrow.UNKNOWN);
    assert.equal(trendArrowOf('rateOutOfRange'), TrendArrow.UNKNOWN);
    assert.equal(trendArrowOf('none'), TrendArrow.UNKNOWN);
    assert.equal(trendArrowOf(null), TrendArrow.UNKNOWN);
  });

  test('statistics helpers against hand-computed values', () => {
    assert.equal(gmiOf(154), 3.31 + 0.02392 * 154);
    assert.deepEqual(daySummary([60, 100, 200, 150, 110], 1, 0), {
      day_avg_blood_glucose_mg_per_dL: 124,
      gmi: 6.28, // 3.31 + 0.02392 × 124 = 6.27608
      time_in_range: 50, // 100, 150, 110 of 6 readings (the "high" one counts, out of range)
      sensor_usage: 6,
    });
    assert.deepEqual(daySummary([], 0, 0), {
      day_avg_blood_glucose_mg_per_dL: null,
      gmi: null,
      time_in_range: null,
      sensor_usage: 0,
    });
    assert.deepEqual(dailyPatterns([[40, 10, 30, 20]]), [
      // sorted 10,20,30,40: p5 at 0.15 -> 11.5; p25 at 0.75 -> 17.5; p50 25; p75 at 2.25 -> 32.5; p95 at 2.85 -> 38.5
      {
        time_from_midnight: 0,
        percentile_5: 11.5,
        percentile_25: 17.5,
        percentile_50: 25,
        percentile_75: 32.5,
        percentile_95: 38.5,
      },
    ]);
  });
});

describeWithShared('Dexcom EGVs -> Body glucose_data', skip, () => {
  test('the legacy v2 sample, field by field', () => {
    const { egvs } = sample<{ egvs: DexcomEgv[] }>('dexcom-v2_egvs');
    const [body] = dexcomNormalizers.egvs.normalize({ egvs }, { userOffsetMinutes: null });
    assert.ok(body);
    assertValid(Body, body, 'body');
    assert.equal(body.metadata.start_time, '2018-02-06T00:00:00.000000-08:00');
    assert.equal(body.metadata.end_time, '2018-02-07T00:00:00.000000-08:00');
    const glucose = body.glucose_data;
    assert.deepEqual(glucose?.detailed_blood_glucose_samples, [
      {
        timestamp: '2018-02-06T01:07:35.000000-08:00',
        blood_glucose_mg_per_dL: 123,
        glucose_level_flag: GlucoseFlag.NORMAL,
        trend_arrow: TrendArrow.FLAT,
      },
      {
        timestamp: '2018-02-06T01:12:35.000000-08:00',
        blood_glucose_mg_per_dL: 122,
        glucose_level_flag: GlucoseFlag.NORMAL,
        trend_arrow: TrendArrow.FLAT,
      },
    ]);
    assert.equal(glucose?.day_avg_blood_glucose_mg_per_dL, 122.5);
    assert.equal(glucose?.gmi, 6.24); // 3.31 + 0.02392 × 122.5 = 6.2402
    assert.equal(glucose?.time_in_range, 100);
    assert.equal(glucose?.sensor_usage, 2);
  });

  const receiver = (
    local: string,
    value: number | null,
    trend: DexcomEgv['trend'],
    status: DexcomEgv['status'] = 'ok',
  ): DexcomEgv => {
    // Receivers write both times without an offset; the user is on PDT (-07:00).
    const systemMs = Date.parse(`${local}Z`) + 7 * 3_600_000;
    return {
      recordId: `r-${local}`,
      systemTime: new Date(systemMs).toISOString().slice(0, 19),
      displayTime: local,
      transmitterId: 'AAA',
      value,
      status,
      trend,
      unit: 'mg/dL',
      displayDevice: 'receiver',
      transmitterGeneration: 'g6',
    };
  };
  const phone = (local: string, value: number): DexcomEgv => ({
    recordId: `p-${local}`,
    systemTime: `${new Date(Date.parse(`${local}-07:00`)).toISOString().slice(0, 19)}Z`,
    displayTime: `${local}-07:00`,
    transmitterId: 'BBB',
    value,
    status: null,
    trend: 'flat',
    unit: 'mg/dL',
    displayDevice: 'iOS',
    transmitterGeneration: 'g7',
  });
  const egvs: DexcomEgv[] = [
    // Newest first, as Dexcom lists them.
    phone('2024-04-02T13:02:00', 130),
    phone('2024-04-02T00:07:00', 95),
    phone('2024-04-02T00:02:00', 90),
    receiver('2024-04-01T13:05:00', null, 'rateOutOfRange', 'high'),
    receiver('2024-04-01T13:00:00', 110, 'notComputable'),
    receiver('2024-04-01T00:15:00', 150, 'fortyFiveDown'),
    receiver('2024-04-01T00:10:00', 200, 'doubleDown'),
    receiver('2024-04-01T00:05:00', 100, 'singleUp'),
    receiver('2024-04-01T00:00:00', 60, 'flat'),
  ];
  const devices: DexcomDevice[] = [
    {
      transmitterId: 'BBB',
      transmitterGeneration: 'g7',
      displayDevice: 'iOS',
      displayApp: 'G7',
      lastUploadDate: '2024-04-02T21:00:00',
    },
    {
      transmitterId: 'AAA',
      transmitterGeneration: 'g6',
      displayDevice: 'receiver',
      displayApp: null,
      lastUploadDate: '2024-04-01T22:00:00',
    },
  ];
  const events: DexcomEvent[] = [
    {
      systemTime: '2024-04-02T15:00:00Z',
      displayTime: '2024-04-02T08:00:00-07:00',
      eventType: 'insulin',
      eventSubType: 'fastActing',
      value: 4.5,
      unit: 'units',
      eventStatus: 'created',
    },
    {
      systemTime: '2024-04-02T16:00:00Z',
      displayTime: '2024-04-02T09:00:00-07:00',
      eventType: 'insulin',
      eventSubType: 'longActing',
      value: 20,
      unit: 'units',
      eventStatus: 'deleted',
    },
    {
      systemTime: '2024-04-02T15:05:00Z',
      displayTime: '2024-04-02T08:05:00-07:00',
      eventType: 'carbs',
      value: 45,
      unit: 'grams',
      eventStatus: 'created',
    },
  ];
  const days = dexcomNormalizers.egvs.normalize({ egvs, devices, events }, { userOffsetMinutes: 0 });

  test('one valid record per local day, in the device zone', () => {
    assert.deepEqual(
      days.map((day) => day.metadata.start_time),
      ['2024-04-01T00:00:00.000000-07:00', '2024-04-02T00:00:00.000000-07:00'],
    );
    for (const day of days) assertValid(Body, day, `body ${day.metadata.start_time}`);
  });

  test('readings in time order with flags and arrows; quarter-hour samples', () => {
    const readings = days[0]?.glucose_data?.detailed_blood_glucose_samples ?? [];
    assert.deepEqual(
      readings.map((x) => [x.timestamp, x.blood_glucose_mg_per_dL, x.glucose_level_flag, x.trend_arrow]),
      [
        ['2024-04-01T00:00:00.000000-07:00', 60, GlucoseFlag.LOW, TrendArrow.FLAT],
        ['2024-04-01T00:05:00.000000-07:00', 100, GlucoseFlag.NORMAL, TrendArrow.RISING_QUICKLY],
        ['2024-04-01T00:10:00.000000-07:00', 200, GlucoseFlag.HIGH, TrendArrow.FALLING_QUICKLY],
        ['2024-04-01T00:15:00.000000-07:00', 150, GlucoseFlag.NORMAL, TrendArrow.FALLING],
        ['2024-04-01T13:00:00.000000-07:00', 110, GlucoseFlag.NORMAL, TrendArrow.UNKNOWN],
        ['2024-04-01T13:05:00.000000-07:00', null, GlucoseFlag.HIGH, TrendArrow.UNKNOWN],
      ],
    );
    assert.deepEqual(
      days[0]?.glucose_data?.blood_glucose_samples?.map((x) => x.blood_glucose_mg_per_dL),
      [60, 150, 110],
      'the first reading of each quarter hour',
    );
  });

  test('day statistics, hand-computed', () => {
    const first = days[0]?.glucose_data;
    // Numbers 60, 100, 200, 150, 110 -> mean 124; in range: 100, 150, 110 of 6 readings.
    assert.equal(first?.day_avg_blood_glucose_mg_per_dL, 124);
    assert.equal(first?.time_in_range, 50);
    assert.equal(first?.gmi, 6.28);
    assert.equal(first?.sensor_usage, 6);
    const second = days[1]?.glucose_data;
    // 90, 95, 130 -> mean 105, all in range; GMI 3.31 + 0.02392 × 105 = 5.8216.
    assert.equal(second?.day_avg_blood_glucose_mg_per_dL, 105);
    assert.equal(second?.time_in_range, 100);
    assert.equal(second?.gmi, 5.82);
    assert.equal(second?.sensor_usage, 3);
  });

  test('daily patterns across the requested days, per local hour', () => {
    // Hour 0: 60, 90, 95, 100, 150, 200 (both days). Positions p·5: 0.25, 1.25, 2.5, 3.75, 4.75.
    // Hour 13: 110, 130. The null "high" reading has no number to rank.
    const expected = [
      {
        time_from_midnight: 0,
        percentile_5: 67.5,
        percentile_25: 91.3,
        percentile_50: 97.5,
        percentile_75: 137.5,
        percentile_95: 187.5,
      },
      {
        time_from_midnight: 13,
        percentile_5: 111,
        percentile_25: 115,
        percentile_50: 120,
        percentile_75: 125,
        percentile_95: 129,
      },
    ];
    assert.deepEqual(days[0]?.glucose_data?.daily_patterns, expected);
    assert.deepEqual(
      days[1]?.glucose_data?.daily_patterns,
      expected,
      'the same profile on every day of the range',
    );
  });

  test("devices: the day's transmitter first; insulin events as measurements", () => {
    assert.deepEqual(days[0]?.device_data, {
      name: 'receiver',
      manufacturer: 'Dexcom',
      serial_number: 'AAA',
      hardware_version: 'g6',
      last_upload_date: '2024-04-01T15:00:00.000000-07:00',
      other_devices: [
        {
          name: 'G7',
          manufacturer: 'Dexcom',
          serial_number: 'BBB',
          hardware_version: 'g7',
          last_upload_date: '2024-04-02T14:00:00.000000-07:00',
        },
      ],
    });
    assert.equal(days[1]?.device_data?.serial_number, 'BBB');
    assert.deepEqual(days[1]?.measurements_data?.measurements, [
      {
        measurement_time: '2024-04-02T08:00:00.000000-07:00',
        insulin_units: 4.5,
        insulin_type: 'fastActing',
      },
    ]);
    assert.equal(days[0]?.measurements_data, null);
  });

  test('mmol/L readings are converted to mg/dL', () => {
    const [body] = dexcomNormalizers.egvs.normalize(
      { egvs: [{ ...phone('2024-04-03T10:00:00', 7), unit: 'mmol/L' }] },
      { userOffsetMinutes: null },
    );
    assert.equal(body?.glucose_data?.detailed_blood_glucose_samples?.[0]?.blood_glucose_mg_per_dL, 126);
  });
});

test('the table declares egvs with its companions', () => {
  assert.equal(dexcomNormalizers.egvs.unifiedType, 'body');
  assert.deepEqual(dexcomNormalizers.egvs.companions, ['devices', 'events']);
});
