// Huawei Health Kit normalizers and notification parsing, against payloads written from Huawei's
// public REST reference (field names per docs/providers.md#huawei-health-kit): an activity at
// 00:30 in +08:00 (the previous UTC day), day statistics that are 0 placeholders, weights with a
// 0 body-fat placeholder, sleep records with and without `timeZone`, times in nanoseconds past
// 2^53 written as strings, and the signed notification (HMAC over openId_eventType_eventTime).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { Activity, Body, Daily, Sleep } from '../../src/model/index.ts';
import { undeclaredKeys } from '../../src/model/schema-walk.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { huaweiNotifications } from '../../src/providers/huawei/connector.ts';
import { type HuaweiSamplePoint, huaweiNormalizers } from '../../src/providers/huawei/normalize/index.ts';
import { nanosToMs, zoneOf, zoneOffsetMinutes } from '../../src/providers/huawei/normalize/values.ts';

const context: NormalizeContext = { userOffsetMinutes: null };

function valid(schema: unknown, record: unknown) {
  assert.ok(
    Value.Check(schema as never, record),
    JSON.stringify([...Value.Errors(schema as never, record)].slice(0, 3)),
  );
  assert.deepEqual(undeclaredKeys(schema, record), []);
}

const ns = (iso: string) => String(BigInt(Date.parse(iso)) * 1_000_000n);

describe('Huawei values', () => {
  test('zones, nanoseconds', () => {
    assert.equal(zoneOffsetMinutes('+0800'), 480);
    assert.equal(zoneOffsetMinutes('-0530'), -330);
    assert.equal(zoneOffsetMinutes('+08:00'), 480);
    assert.equal(zoneOffsetMinutes('Asia/Shanghai'), null);
    assert.equal(zoneOffsetMinutes('+2500'), null);
    assert.equal(zoneOf(0), '+0000');
    assert.equal(zoneOf(-330), '-0530');
    assert.equal(nanosToMs('1764000000123456789'), 1764000000123);
    assert.equal(nanosToMs(1.5e18), 1.5e12);
    assert.equal(nanosToMs('12ab'), null);
  });
});

describe('Huawei activity records', () => {
  test('a run at 00:30 in +08:00 keeps its local day and offset', () => {
    const start = Date.parse('2026-11-09T16:30:00Z');
    const [record] = huaweiNormalizers.activityRecord.normalize(
      {
        id: 'run-1',
        name: 'Morning run',
        startTime: start,
        endTime: start + 45 * 60_000,
        activeTime: 42 * 60_000,
        activityType: 56,
        timeZone: '+0800',
        activitySummary: {
          dataSummary: [
            {
              dataTypeName: 'com.huawei.continuous.steps.total',
              value: [{ fieldName: 'steps', integerValue: 6200 }],
            },
            {
              dataTypeName: 'com.huawei.continuous.distance.total',
              value: [{ fieldName: 'distance', floatValue: 5012.5 }],
            },
            {
              dataTypeName: 'com.huawei.continuous.calories.burnt.total',
              value: [{ fieldName: 'calories_total', floatValue: 410 }],
            },
            {
              dataTypeName: 'com.huawei.continuous.exercise_heart_rate.statistics',
              value: [
                { fieldName: 'avg', floatValue: 148 },
                { fieldName: 'max', floatValue: 176 },
              ],
            },
          ],
        },
      },
      context,
    );
    valid(Activity, record);
    assert.equal(record!.metadata.start_time, '2026-11-10T00:30:00.000000+08:00');
    assert.equal(record!.distance_data?.summary?.distance_meters, 5012.5);
    assert.equal(record!.distance_data?.summary?.steps, 6200);
    assert.equal(record!.heart_rate_data?.summary?.avg_hr_bpm, 148);
    assert.equal(record!.active_durations_data?.activity_seconds, 42 * 60);
    assert.equal(record!.active_durations_data?.rest_seconds, 3 * 60);
  });

  test('without a summary, a zone or a name: nulls, UTC, the type number named', () => {
    const [record] = huaweiNormalizers.activityRecord.normalize(
      {
        id: 'bare',
        startTime: Date.parse('2026-11-10T10:00:00Z'),
        endTime: Date.parse('2026-11-10T10:30:00Z'),
        activityType: 7,
      },
      context,
    );
    valid(Activity, record);
    assert.equal(record!.metadata.name, 'Huawei activity type 7');
    assert.equal(record!.calories_data?.total_burned_calories, null);
    assert.equal(record!.heart_rate_data?.summary?.avg_hr_bpm, null);
    assert.equal(record!.metadata.timestamp_localization, 0);
    assert.throws(
      () => huaweiNormalizers.activityRecord.normalize({ id: 'x', startTime: 5 }, context),
      /without id or a valid span/,
    );
  });
});

describe('Huawei day statistics', () => {
  const point = (dataTypeName: string, fieldName: string, value: number) => ({
    dataTypeName,
    value: [{ fieldName, floatValue: value }],
  });
  const group = (points: HuaweiSamplePoint[]) => ({
    startTime: Date.parse('2026-11-10T00:00:00Z'),
    endTime: Date.parse('2026-11-11T00:00:00Z'),
    sampleSet: [{ samplePoints: points }],
  });

  test('steps, distance, active calories, heart rate, resting heart rate, SpO2', () => {
    const [day] = huaweiNormalizers.dailyStatistics.normalize(
      {
        date: '2026-11-10',
        offsetMinutes: 0,
        group: group([
          point('com.huawei.continuous.steps.total', 'steps', 9000),
          point('com.huawei.continuous.distance.total', 'distance', 6750),
          point('com.huawei.continuous.calories.burnt.total', 'calories_total', 360),
          point('com.huawei.continuous.heart_rate.statistics', 'avg', 71),
          point('com.huawei.continuous.resting_heart_rate.statistics', 'avg', 52),
          point('com.huawei.continuous.spo2.statistics', 'saturation_avg', 97),
        ]),
      },
      context,
    );
    valid(Daily, day);
    assert.equal(day!.metadata.start_time, '2026-11-10T00:00:00.000000+00:00');
    assert.equal(day!.distance_data?.steps, 9000);
    assert.equal(day!.calories_data?.net_activity_calories, 360);
    assert.equal(day!.heart_rate_data?.summary?.resting_hr_bpm, 52);
    assert.equal(day!.oxygen_data?.avg_saturation_percentage, 97);
  });

  test('a day of 0 placeholders yields nothing; a 0 next to real figures is null', () => {
    assert.deepEqual(
      huaweiNormalizers.dailyStatistics.normalize(
        {
          date: '2026-11-10',
          offsetMinutes: 0,
          group: group([
            point('com.huawei.continuous.steps.total', 'steps', 0),
            point('com.huawei.continuous.distance.total', 'distance', 0),
          ]),
        },
        context,
      ),
      [],
    );
    const [day] = huaweiNormalizers.dailyStatistics.normalize(
      {
        date: '2026-11-10',
        offsetMinutes: 0,
        group: group([
          point('com.huawei.continuous.steps.total', 'steps', 1200),
          point('com.huawei.continuous.calories.burnt.total', 'calories_total', 0),
        ]),
      },
      context,
    );
    assert.equal(day!.calories_data?.net_activity_calories, null);
  });
});

describe('Huawei body samples', () => {
  test('weight without bmi and a 0 body fat, blood pressure, glucose in mg/dL', () => {
    const [body] = huaweiNormalizers.bodySamples.normalize(
      {
        date: '2026-11-10',
        offsetMinutes: 0,
        points: [
          {
            startTime: ns('2026-11-10T07:10:00Z'),
            dataTypeName: 'com.huawei.instantaneous.body_weight',
            value: [
              { fieldName: 'body_weight', floatValue: 61.4 },
              { fieldName: 'body_fat_rate', floatValue: 0 },
            ],
          },
          {
            startTime: ns('2026-11-10T08:00:00Z'),
            dataTypeName: 'com.huawei.instantaneous.blood_pressure',
            value: [
              { fieldName: 'systolic_pressure', floatValue: 121 },
              { fieldName: 'diastolic_pressure', floatValue: 79 },
            ],
          },
          {
            startTime: ns('2026-11-10T09:00:00Z'),
            dataTypeName: 'com.huawei.instantaneous.blood_glucose',
            value: [{ fieldName: 'level', floatValue: 5.5 }],
          },
        ],
      },
      context,
    );
    valid(Body, body);
    assert.equal(body!.measurements_data?.day_avg_weight_kg, 61.4);
    assert.equal(body!.measurements_data?.day_avg_bmi, null);
    assert.equal(body!.measurements_data?.day_avg_bodyfat_percentage, null, 'the 0 is a placeholder');
    assert.equal(body!.blood_pressure_data?.day_avg_systolic_bp, 121);
    assert.equal(
      body!.blood_pressure_data?.blood_pressure_samples?.[0]?.timestamp,
      '2026-11-10T08:00:00.000000+00:00',
    );
    assert.equal(body!.glucose_data?.day_avg_blood_glucose_mg_per_dL, 99.1);
    assert.deepEqual(
      huaweiNormalizers.bodySamples.normalize({ date: '2026-11-10', offsetMinutes: 0, points: [] }, context),
      [],
    );
  });
});

describe('Huawei sleep records', () => {
  const record = (timeZone?: string) => ({
    id: 'night-1',
    startTime: ns('2026-11-09T14:40:00Z'),
    endTime: ns('2026-11-09T23:05:00Z'),
    ...(timeZone ? { timeZone } : {}),
    value: [
      { fieldName: 'fall_asleep_time', longValue: Date.parse('2026-11-09T15:00:00Z') },
      { fieldName: 'wakeup_time', longValue: Date.parse('2026-11-09T23:00:00Z') },
      { fieldName: 'all_sleep_time', integerValue: 460 },
      { fieldName: 'light_sleep_time', integerValue: 250 },
      { fieldName: 'deep_sleep_time', integerValue: 100 },
      { fieldName: 'dream_time', integerValue: 110 },
      { fieldName: 'awake_time', integerValue: 20 },
      { fieldName: 'wakeup_count', integerValue: 0 },
    ],
  });

  test('its own zone; stages in seconds; no score when none is given', () => {
    const [sleep] = huaweiNormalizers.sleepRecord.normalize(record('+0800'), context);
    valid(Sleep, sleep);
    assert.equal(sleep!.metadata.start_time, '2026-11-09T23:00:00.000000+08:00');
    assert.equal(sleep!.metadata.end_time, '2026-11-10T07:00:00.000000+08:00');
    assert.equal(sleep!.sleep_durations_data?.asleep?.duration_REM_sleep_state_seconds, 110 * 60);
    assert.equal(sleep!.sleep_durations_data?.awake?.num_wakeup_events, 0);
    assert.equal(sleep!.scores?.sleep, null);
  });

  test('without a zone: the user offset, else UTC', () => {
    const [utc] = huaweiNormalizers.sleepRecord.normalize(record(), context);
    assert.equal(utc!.metadata.end_time, '2026-11-09T23:00:00.000000+00:00');
    const [user] = huaweiNormalizers.sleepRecord.normalize(record(), { userOffsetMinutes: 60 });
    assert.equal(user!.metadata.end_time, '2026-11-10T00:00:00.000000+01:00');
  });
});

describe('Huawei notifications', () => {
  const secret = Buffer.from('subscriber-secret').toString('base64');
  const event = {
    openId: 'open-1',
    eventType: 'ACTIVITY_RECORD_EVENT$DELETE',
    eventTime: '1764000000000',
    subscriptionId: 's-1',
    metaData: { startTime: 1763900000000, endTime: 1764000000000, activityType: 56, timeZone: '+0800' },
  };
  const sign = (body: typeof event, key = secret) =>
    createHmac('sha256', Buffer.from(key, 'base64'))
      .update(`${body.openId}_${body.eventType}_${body.eventTime}`)
      .digest('base64');
  const request = (body: unknown, signature: string | undefined, key: string | null = secret) => ({
    headers: signature ? { 'x-notification-signature': signature } : {},
    rawBody: Buffer.from(JSON.stringify(body)),
    secret: key,
    clientId: null,
    subscriptionIds: [],
    now: new Date(),
  });

  test('the signature is over openId_eventType_eventTime with the Base64-decoded secret', () => {
    assert.equal(huaweiNotifications.verify(request(event, sign(event))), 'valid');
    assert.equal(
      huaweiNotifications.verify(request(event, sign(event, Buffer.from('other').toString('base64')))),
      'invalid',
    );
    assert.equal(huaweiNotifications.verify(request({ ...event, openId: 'open-2' }, sign(event))), 'invalid');
    assert.equal(huaweiNotifications.verify(request(event, undefined)), 'invalid');
    assert.equal(huaweiNotifications.verify(request(event, sign(event), null)), 'unconfigured');
  });

  test('events: activity change with its span, withdrawal, others ignored', async () => {
    const [activity] = huaweiNotifications.parse(Buffer.from(JSON.stringify(event)), new Date());
    assert.equal(activity?.kind, 'data');
    if (activity?.kind !== 'data') return;
    assert.equal(activity.dataKind, 'activity');
    assert.equal(activity.action, 'delete');
    assert.deepEqual(activity.span, {
      start: new Date(1763900000000).toISOString(),
      end: new Date(1764000000000).toISOString(),
    });
    const located = await huaweiNotifications.locate(activity, {} as never);
    assert.deepEqual(located, {
      types: ['activity'],
      startDate: '2025-11-22',
      endDate: '2025-11-26',
      deleted: true,
    });

    const [revoked] = huaweiNotifications.parse(
      Buffer.from(JSON.stringify({ openId: 'open-1', eventType: 'USER_EVENT$REVOKE_ALL', eventTime: '1' })),
      new Date(),
    );
    assert.deepEqual(revoked, { kind: 'revoked', providerUserId: 'open-1' });
    const [token] = huaweiNotifications.parse(
      Buffer.from(
        JSON.stringify({ openId: 'open-1', eventType: 'USER_EVENT$REFRESH_TOKEN_INVALID', eventTime: '1' }),
      ),
      new Date(),
    );
    assert.equal(token?.kind, 'ignored');
    const [spanless] = huaweiNotifications.parse(
      Buffer.from(
        JSON.stringify({ openId: 'open-1', eventType: 'SAMPLE_POINT_EVENT$UPDATE', eventTime: '1' }),
      ),
      new Date(),
    );
    assert.equal(spanless?.kind, 'ignored');
  });
});
