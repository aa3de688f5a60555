// Intervals.icu normalizers and webhook parsing: against the payloads captured from the real
// service (../shared/reference/provider-specs/intervals_icu, SOURCES.md there; those tests skip
// without it) and against payloads written from the OpenAPI schema for the edge cases: an
// activity without `start_date` placed by its `timezone`, placeholder zeros, a local morning
// that is the previous UTC day, wellness days with nothing or zeros entered.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Value } from 'typebox/value';
import { Activity, ActivityType, Body, Daily, Sleep, Athlete } from '../../src/model/index.ts';
import { undeclaredKeys } from '../../src/model/schema-walk.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { intervalsIcuNotifications } from '../../src/providers/intervals_icu/connector.ts';
import { intervalsIcuNormalizers } from '../../src/providers/intervals_icu/normalize/index.ts';
import { durationText, stepsOfText, workoutText } from '../../src/providers/intervals_icu/workout-text.ts';
import { describeWithShared } from '../helpers/shared-reference.ts';

// <repository>/../shared/reference, or SHARED_REFERENCE_DIR (a worktree checked out elsewhere).
const SAMPLES = process.env.SHARED_REFERENCE_DIR
  ? pathToFileURL(join(process.env.SHARED_REFERENCE_DIR, 'provider-specs/intervals_icu/'))
  : new URL('../../../shared/reference/provider-specs/intervals_icu/', import.meta.url);
const missing = existsSync(SAMPLES)
  ? undefined
  : '../shared/reference/provider-specs/intervals_icu is absent';
const sample = (name: string) => JSON.parse(readFileSync(new URL(name, SAMPLES), 'utf8'));
const context: NormalizeContext = { userOffsetMinutes: null };

function valid(schema: unknown, record: unknown) {
  assert.ok(
    Value.Check(schema as never, record),
    JSON.stringify([...Value.Errors(schema as never, record)].slice(0, 3)),
  );
  assert.deepEqual(undeclaredKeys(schema, record), []);
}

describeWithShared('Intervals.icu captured payloads', missing, () => {
  test('a virtual ride: offset from start_date, power, load, zones', () => {
    const activity = sample('webhook-activity-uploaded-ride.json').events[0].activity;
    const [record] = intervalsIcuNormalizers.activity.normalize(activity, context);
    valid(Activity, record);
    assert.equal(record!.metadata.summary_id, 'i140254351');
    assert.equal(record!.metadata.start_time, '2026-04-16T07:28:47.000000+02:00');
    assert.equal(record!.metadata.type, ActivityType.STATIONARY_BIKING);
    assert.equal(record!.power_data?.avg_watts, 131);
    assert.equal(record!.TSS_data?.TSS_samples?.[0]?.actual, 41);
    assert.equal(record!.TSS_data?.TSS_samples?.[0]?.normalized_power_watts, 139);
    assert.equal(record!.heart_rate_data?.summary?.hr_zone_data?.[1]?.duration_seconds, 2253);
    assert.equal(record!.distance_data?.summary?.distance_meters, 28451.42);
  });

  test('a workout without distance: no distance invented, OTHER type', () => {
    const activity = sample('webhook-activity-uploaded-workout.json').events[0].activity;
    const [record] = intervalsIcuNormalizers.activity.normalize(activity, context);
    valid(Activity, record);
    assert.equal(record!.metadata.type, ActivityType.OTHER);
    assert.equal(record!.distance_data?.summary?.distance_meters, null);
    assert.equal(record!.heart_rate_data?.summary?.user_max_hr_bpm, 190);
    assert.equal(record!.active_durations_data?.rest_seconds, 60);
  });

  test('a wellness record: daily, body and sleep of its day', () => {
    const wellness = sample('webhook-wellness-updated.json').events[0].records[0];
    const payload = { wellness, timezone: 'Europe/Madrid' };
    const [daily] = intervalsIcuNormalizers.wellnessDaily.normalize(payload, context);
    const [body] = intervalsIcuNormalizers.wellnessBody.normalize(payload, context);
    const [sleep] = intervalsIcuNormalizers.wellnessSleep.normalize(payload, context);
    valid(Daily, daily);
    valid(Body, body);
    valid(Sleep, sleep);
    assert.equal(daily!.metadata.start_time, '2026-04-15T00:00:00.000000+02:00');
    assert.equal(daily!.distance_data?.steps, 11208);
    assert.equal(daily!.heart_rate_data?.summary?.resting_hr_bpm, 59);
    assert.equal(body!.measurements_data?.day_avg_weight_kg, 77.36);
    assert.equal(body!.measurements_data?.day_avg_bodyfat_percentage, 24.6);
    assert.equal(sleep!.sleep_durations_data?.asleep?.duration_asleep_state_seconds, 22242);
    assert.equal(sleep!.scores?.sleep, 76);
  });

  test('webhooks: the secret is in the body; wellness names its days; a scope change is not a withdrawal', () => {
    const raw = Buffer.from(JSON.stringify(sample('webhook-wellness-updated.json')));
    const now = new Date();
    const base = { headers: {}, clientId: null, subscriptionIds: [], now };
    assert.equal(intervalsIcuNotifications.verify({ ...base, rawBody: raw, secret: '***' }), 'valid');
    assert.equal(intervalsIcuNotifications.verify({ ...base, rawBody: raw, secret: 'other' }), 'invalid');
    assert.equal(intervalsIcuNotifications.verify({ ...base, rawBody: raw, secret: null }), 'unconfigured');
    const [wellness] = intervalsIcuNotifications.parse(raw, now);
    assert.deepEqual(
      { ...wellness, eventTime: undefined },
      {
        kind: 'data',
        providerUserId: 'i317960',
        dataKind: 'wellness',
        objectId: '2026-04-15',
        action: 'update',
        eventTime: undefined,
      },
    );
    const [scope] = intervalsIcuNotifications.parse(
      Buffer.from(JSON.stringify(sample('webhook-app-scope-changed.json'))),
      now,
    );
    assert.equal(scope!.kind, 'ignored');
    const revoked = sample('webhook-app-scope-changed.json');
    revoked.events[0].deauthorized = true;
    assert.deepEqual(intervalsIcuNotifications.parse(Buffer.from(JSON.stringify(revoked)), now), [
      { kind: 'revoked', providerUserId: 'i317960' },
    ]);
  });
});

describe('Intervals.icu edge cases written from the schema', () => {
  test('no start_date: placed by timezone; a morning in +13:00 keeps its local day', () => {
    const [record] = intervalsIcuNormalizers.activity.normalize(
      {
        id: 'i9',
        start_date_local: '2026-11-20T00:20:00',
        type: 'WeightTraining',
        timezone: 'Pacific/Auckland',
        moving_time: 1800,
        elapsed_time: 2000,
        distance: 0,
        average_heartrate: 0,
        average_cadence: 0,
        calories: 0,
      },
      context,
    );
    valid(Activity, record);
    assert.equal(record!.metadata.start_time, '2026-11-20T00:20:00.000000+13:00');
    assert.equal(record!.metadata.type, ActivityType.STRENGTH_TRAINING);
    // Placeholder zeros are not readings.
    assert.equal(record!.distance_data?.summary?.distance_meters, null);
    assert.equal(record!.heart_rate_data?.summary?.avg_hr_bpm, null);
    assert.equal(record!.movement_data?.avg_cadence_rpm, null);
    assert.equal(record!.calories_data?.total_burned_calories, null);
  });

  test('a Strava stub (an id, a local start, the source) gives no record, not a zero-length activity (issue 41)', () => {
    const stub = {
      id: '1234567899',
      icu_athlete_id: 'i1',
      start_date_local: '2026-11-20T07:00:00',
      source: 'STRAVA',
    };
    assert.deepEqual(intervalsIcuNormalizers.activity.normalize(stub, context), []);
    assert.equal(
      intervalsIcuNormalizers.activity.normalize({ ...stub, source: 'MANUAL', moving_time: 600 }, context)
        .length,
      1,
      'an activity with a length is kept',
    );
  });

  test('ACTIVITY_DELETED removes the activity by its id (issue 41)', async () => {
    const [notification] = intervalsIcuNotifications.parse(
      Buffer.from(
        JSON.stringify({
          secret: 's',
          events: [
            {
              athlete_id: 'i1',
              type: 'ACTIVITY_DELETED',
              timestamp: '2026-11-20T08:00:00Z',
              activity: { id: 'i77' },
            },
          ],
        }),
      ),
      new Date(),
    );
    assert.equal(notification?.kind, 'data');
    const changed = await intervalsIcuNotifications.locate(notification as never, {} as never);
    assert.deepEqual(changed && 'removed' in changed ? changed.removed : null, {
      types: ['activity'],
      ids: ['i77'],
    });
    assert.deepEqual(changed && 'types' in changed ? changed.types : null, [], 'nothing to fetch again');
  });

  test('wellness days with nothing or only zeros entered give no records', () => {
    for (const wellness of [
      { id: '2026-11-20', ctl: 40, atl: 30 },
      { id: '2026-11-21', weight: 0, restingHR: 0, steps: 0, sleepSecs: 0 },
    ]) {
      const payload = { wellness, timezone: 'Pacific/Auckland' };
      assert.deepEqual(intervalsIcuNormalizers.wellnessDaily.normalize(payload, context), []);
      assert.deepEqual(intervalsIcuNormalizers.wellnessBody.normalize(payload, context), []);
      assert.deepEqual(intervalsIcuNormalizers.wellnessSleep.normalize(payload, context), []);
    }
  });

  test('a wellness day in the athlete zone, else the user offset', () => {
    const wellness = { id: '2026-11-20', steps: 5000 };
    const [nz] = intervalsIcuNormalizers.wellnessDaily.normalize(
      { wellness, timezone: 'Pacific/Auckland' },
      context,
    );
    assert.equal(nz!.metadata.start_time, '2026-11-20T00:00:00.000000+13:00');
    const [user] = intervalsIcuNormalizers.wellnessDaily.normalize(
      { wellness, timezone: null },
      { userOffsetMinutes: -480 },
    );
    assert.equal(user!.metadata.end_time, '2026-11-21T00:00:00.000000-08:00');
  });

  test('the athlete profile', () => {
    const [athlete] = intervalsIcuNormalizers.athlete.normalize(
      { id: 'i5', sex: 'F', icu_date_of_birth: '1990-04-02', firstname: 'A' },
      context,
    );
    valid(Athlete, athlete);
    assert.equal(athlete!.gender, 'female');
    assert.equal(athlete!.provider_user_id, 'i5');
  });

  test('workout text: durations, distances, repeats, and back again', () => {
    assert.equal(durationText(90), '1m30s');
    assert.equal(durationText(3600), '1h');
    const text = workoutText([
      {
        type: 'PlannedWorkoutStep',
        name: 'Warmup',
        durations: [{ duration_type: 'TIME', seconds: 600 }],
        targets: [{ target_type: 'POWER', power_watt_low: 150, power_watt_high: 180 }],
      },
      {
        type: 'PlannedWorkoutRepeatStep',
        durations: [{ duration_type: 'REPS', reps: 5 }],
        steps: [
          {
            durations: [{ duration_type: 'DISTANCE_METERS', distance_meters: 400 }],
            targets: [{ target_type: 'CADENCE', cadence: 95 }],
          },
        ],
      },
    ]);
    assert.equal(text, '- Warmup 10m 150-180w\n\n5x\n- 400mtr 95rpm');
    const back = stepsOfText(text);
    assert.equal(back[0]!.durations![0]!.seconds, 600);
    assert.equal(back[1]!.durations![0]!.reps, 5);
    assert.equal(back[1]!.steps![0]!.durations![0]!.distance_meters, 400);
  });

  test('workout text: every percentage target the syntax guide writes (issue 41)', () => {
    const step = (target: Record<string, unknown>) => ({
      type: 'PlannedWorkoutStep' as const,
      durations: [{ duration_type: 'TIME', seconds: 300 }],
      targets: [target],
    });
    const text = workoutText([
      step({ target_type: 'POWER_PERCENTAGE', power_percentage_low: 55, power_percentage_high: 65 }),
      step({ target_type: 'POWER_PERCENTAGE', power_percentage: 90 }),
      step({ target_type: 'HEART_RATE_MAX_PERCENTAGE', hr_percentage_low: 70, hr_percentage_high: 75 }),
      step({ target_type: 'HEART_RATE_THRESHOLD_PERCENTAGE', hr_percentage_low: 90, hr_percentage_high: 95 }),
      step({ target_type: 'SPEED_PERCENTAGE', speed_percentage_low: 78, speed_percentage_high: 82 }),
    ]);
    assert.equal(
      text,
      ['- 5m 55-65%', '- 5m 90%', '- 5m 70-75% HR', '- 5m 90-95% LTHR', '- 5m 78-82% Pace'].join('\n'),
    );
    const back = stepsOfText(text).map((read) => read.targets![0]!);
    assert.deepEqual(
      back.map((target) => target.target_type),
      ['POWER', 'POWER', 'HEART_RATE', 'HEART_RATE_THRESHOLD_PERCENTAGE', 'SPEED_PERCENTAGE'],
    );
    assert.equal(back[3]!.hr_percentage_low, 90);
    assert.equal(back[4]!.speed_percentage_high, 82);
  });
});
