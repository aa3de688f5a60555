// Suunto normalizers against the public WORKOUT_CREATED sample (read in place from
// ../shared/reference/provider-samples), payloads written from the field list captured in
// open-wearables' tests (providers-3.md §5), and FIT exports built with Garmin's SDK Encoder.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { Activity, ActivityType, Sleep, SleepUploadType, UploadType } from '../../src/model/index.ts';
import { NormalizationError } from '../../src/provider-kit/normalize/errors.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { suuntoNotifications } from '../../src/providers/suunto/connector.ts';
import { type SuuntoWorkout, suuntoNormalizers } from '../../src/providers/suunto/normalize/index.ts';
import { buildActivityFit } from '../fakes/fit-files.ts';
import {
  missingProviderSamples,
  readProviderSample,
  readProviderSampleText,
} from '../helpers/provider-samples.ts';
import { describeWithShared } from '../helpers/shared-reference.ts';

/**
 * Why the blocks that read the shared provider samples are skipped (undefined when present);
 * samples read at module level are read only when present (`undefined as never` otherwise).
 */
const skip = missingProviderSamples();

const context: NormalizeContext = { userOffsetMinutes: null };
const sample = skip
  ? (undefined as never)
  : readProviderSample<{ type: string; username: string; workout: SuuntoWorkout }>(
      'suunto-webhook_workout_created',
    );
const normalize = (payload: Parameters<typeof suuntoNormalizers.workout.normalize>[0], ctx = context) => {
  const [record] = suuntoNormalizers.workout.normalize(payload, ctx);
  assert.ok(record);
  assert.ok(Value.Check(Activity, record), JSON.stringify([...Value.Errors(Activity, record)].slice(0, 3)));
  return record;
};

describeWithShared('Suunto workout (public WORKOUT_CREATED sample) -> Activity', skip, () => {
  const record = normalize({ workout: sample.workout });

  test('times at timeOffsetInMinutes, end from totalTime (no stopTime), type from activityId', () => {
    assert.deepEqual(record.metadata, {
      summary_id: '67604889401b942184624cb8',
      start_time: '2023-12-16T14:20:00.000000+02:00',
      end_time: '2023-12-16T15:20:00.000000+02:00',
      type: ActivityType.CROSS_COUNTRY_SKIING,
      upload_type: UploadType.AUTOMATIC,
      name: null,
      timestamp_localization: 1,
    });
  });

  test('totals, heart rate, speed, steps and the start position (x is the longitude)', () => {
    assert.equal(record.distance_data?.summary?.distance_meters, 10000);
    assert.equal(record.distance_data?.summary?.steps, 8500);
    assert.equal(record.distance_data?.summary?.elevation?.gain_actual_meters, 120.5);
    assert.equal(record.distance_data?.summary?.elevation?.loss_actual_meters, 110.3);
    assert.equal(record.calories_data?.total_burned_calories, 500);
    assert.equal(record.heart_rate_data?.summary?.avg_hr_bpm, 145);
    assert.equal(record.heart_rate_data?.summary?.max_hr_bpm, 175);
    assert.equal(record.movement_data?.avg_speed_meters_per_second, 2.78);
    assert.equal(record.movement_data?.max_speed_meters_per_second, 6);
    assert.deepEqual(record.position_data?.start_pos_lat_lng_deg, [60.27185791, 24.97242731]);
    assert.equal(record.active_durations_data?.activity_seconds, 3600);
  });
});

describe('Suunto workout + FIT export', () => {
  const workout: SuuntoWorkout = {
    workoutKey: 'abc123',
    activityId: 2,
    startTime: Date.parse('2026-09-01T05:00:00Z'),
    totalTime: 1800,
    hrdata: { workoutAvgHR: 0, workoutMaxHR: 0 },
    tss: { calculationMethod: 'POWER', trainingStressScore: 41.5 },
  };
  const fit = buildActivityFit({
    seed: 'suunto-unit',
    startMs: workout.startTime,
    durationSeconds: 1800,
    offsetMinutes: 180,
    sport: 'cycling',
    stepSeconds: 10,
    manufacturer: 'suunto',
    omitMaxima: true,
  });

  test('no offset in the document: the FIT device clock gives it; samples and maxima from the file', () => {
    const record = normalize({ workout, fit: fit.bytes });
    assert.equal(record.metadata.start_time, '2026-09-01T08:00:00.000000+03:00');
    assert.equal(record.metadata.type, ActivityType.BIKING);
    assert.equal(record.heart_rate_data?.summary?.max_hr_bpm, fit.facts.maxHr, '0 in hrdata is no reading');
    assert.equal(record.heart_rate_data?.summary?.avg_hr_bpm, fit.facts.avgHr);
    assert.equal(record.power_data?.max_watts, fit.facts.maxPower);
    assert.equal(record.heart_rate_data?.detailed?.hr_samples?.length, fit.facts.records);
    assert.equal(record.lap_data?.laps?.length, 2);
    assert.equal(record.TSS_data?.TSS_samples?.[0]?.actual, 41.5);
    assert.equal(record.device_data?.manufacturer, 'suunto');
  });

  test('a manually added workout: MANUAL, and its 0 m is no distance', () => {
    const record = normalize({ workout: { ...workout, isManuallyAdded: true, totalDistance: 0 } });
    assert.equal(record.metadata.upload_type, UploadType.MANUAL);
    assert.equal(record.distance_data?.summary?.distance_meters, null);
    assert.equal(record.heart_rate_data?.summary?.avg_hr_bpm, null);
  });

  test('shapes not documented: a clean NormalizationError', () => {
    assert.throws(
      () =>
        suuntoNormalizers.workout.normalize({ workout: { ...workout, startTime: 'x' as never } }, context),
      NormalizationError,
    );
    assert.throws(
      () => suuntoNormalizers.workout.normalize({ workout, fit: new Uint8Array(20) }, context),
      (error) => error instanceof NormalizationError && /SUUNTO workout abc123/.test(error.message),
    );
  });
});

describe('Suunto 24/7 sleep sample -> Sleep', () => {
  // The shape and values of the sample in open-wearables' tests (providers-3.md §5), rewritten.
  const sample = {
    timestamp: '2026-05-17T02:13:00.000+02:00',
    entryData: {
      BedtimeStart: '2026-05-17T02:13:00.000+02:00',
      BedtimeEnd: '2026-05-17T09:19:00.000+02:00',
      Duration: 25_560,
      DeepSleepDuration: 5610,
      LightSleepDuration: 17_970,
      REMSleepDuration: 1710,
      HRAvg: 67,
      HRMin: 52,
      SleepQualityScore: 75,
      IsNap: false,
      SleepId: 1_778_976_780,
    },
  };

  test('bedtimes at their own offset, stages summed, time in bed, heart rate, score', () => {
    const [record] = suuntoNormalizers.sleep.normalize({ sleep: sample }, context);
    assert.ok(Value.Check(Sleep, record), JSON.stringify([...Value.Errors(Sleep, record)].slice(0, 3)));
    assert.deepEqual(record?.metadata, {
      start_time: '2026-05-17T02:13:00.000000+02:00',
      end_time: '2026-05-17T09:19:00.000000+02:00',
      upload_type: SleepUploadType.AUTOMATIC,
      is_nap: false,
      summary_id: '1778976780',
      timestamp_localization: 1,
    });
    assert.equal(record?.sleep_durations_data?.asleep?.duration_asleep_state_seconds, 25_290);
    assert.equal(record?.sleep_durations_data?.other?.duration_in_bed_seconds, 25_560);
    // Suunto gives no awake time: it is the time in bed the stages leave (25560 - 25290).
    assert.deepEqual(record?.sleep_durations_data?.awake, { duration_awake_state_seconds: 270 });
    assert.deepEqual(record?.heart_rate_data?.summary, {
      avg_hr_bpm: 67,
      min_hr_bpm: 52,
      resting_hr_bpm: 52,
    });
    assert.equal(record?.scores?.sleep, 75);
  });

  test('a nap without heart rate (0 bpm) and without Duration: no readings, time in bed from the span', () => {
    const { Duration: _duration, ...entry } = sample.entryData;
    const [nap] = suuntoNormalizers.sleep.normalize(
      { sleep: { ...sample, entryData: { ...entry, IsNap: true, HRAvg: 0, HRMin: 0 } } },
      context,
    );
    assert.deepEqual(nap?.heart_rate_data?.summary, {
      avg_hr_bpm: null,
      min_hr_bpm: null,
      resting_hr_bpm: null,
    });
    assert.equal(nap?.sleep_durations_data?.other?.duration_in_bed_seconds, 25_560);
    assert.throws(
      () => suuntoNormalizers.sleep.normalize({ sleep: { timestamp: 7 } as never }, context),
      NormalizationError,
    );
  });
});

describe('Suunto 24/7 sleep: samples without a sleep', () => {
  test('an empty sample (Duration 0, no bedtimes, no stages) is no sleep, not a zero-length one', () => {
    const empty = {
      timestamp: '2026-05-18T00:00:00.000+02:00',
      entryData: {
        Duration: 0,
        DeepSleepDuration: 0,
        LightSleepDuration: 0,
        REMSleepDuration: 0,
        HRAvg: 0,
        HRMin: 0,
      },
    };
    assert.deepEqual(suuntoNormalizers.sleep.normalize({ sleep: empty }, context), []);
    assert.deepEqual(
      suuntoNormalizers.sleep.normalize({ sleep: { timestamp: empty.timestamp, entryData: {} } }, context),
      [],
    );
  });

  test('stages adding up past the time in bed leave the awake time unknown, never negative', () => {
    const [record] = suuntoNormalizers.sleep.normalize(
      {
        sleep: {
          timestamp: '2026-05-17T23:00:00.000+02:00',
          entryData: {
            BedtimeStart: '2026-05-17T23:00:00.000+02:00',
            Duration: 3600,
            DeepSleepDuration: 2000,
            LightSleepDuration: 2000,
            REMSleepDuration: 0,
          },
        },
      },
      context,
    );
    assert.equal(record?.sleep_durations_data?.awake, null);
  });
});

describeWithShared('Suunto webhook (public sample body)', skip, () => {
  const raw = Buffer.from(readProviderSampleText('suunto-webhook_workout_created'));
  const signed = (secret: string) => createHmac('sha256', secret).update(raw).digest('hex');
  const request = (signature: string | undefined, secret: string | null) => ({
    headers: signature === undefined ? {} : { 'x-hmac-sha256-signature': signature },
    rawBody: raw,
    secret,
    clientId: null,
    subscriptionIds: [],
    now: new Date(),
  });

  test('hex HMAC-SHA256 of the raw body under the notification secret', () => {
    assert.equal(suuntoNotifications.verify(request(signed('s3cret'), 's3cret')), 'valid');
    assert.equal(suuntoNotifications.verify(request(signed('s3cret').toUpperCase(), 's3cret')), 'valid');
    assert.equal(suuntoNotifications.verify(request(signed('other'), 's3cret')), 'invalid');
    assert.equal(suuntoNotifications.verify(request(undefined, 's3cret')), 'invalid');
    assert.equal(suuntoNotifications.verify(request(signed('s3cret'), null)), 'unconfigured');
  });

  test('WORKOUT_CREATED names the user, the workout and its local day', async () => {
    const [notification] = suuntoNotifications.parse(raw, new Date('2026-11-01T00:00:00Z'));
    assert.deepEqual(notification, {
      kind: 'data',
      providerUserId: 'johndoe123',
      dataKind: 'workout',
      objectId: '67604889401b942184624cb8',
      action: 'create',
      eventTime: '2023-12-16',
    });
    assert.deepEqual(await suuntoNotifications.locate(notification as never, null as never), {
      types: ['activity'],
      startDate: '2023-12-15',
      endDate: '2023-12-18',
    });
    const sleep = Buffer.from(JSON.stringify({ type: 'SUUNTO_247_SLEEP_CREATED', username: 'johndoe123' }));
    assert.equal(suuntoNotifications.parse(sleep, new Date('2026-11-01T00:00:00Z'))[0]?.kind, 'ignored');
  });
});
