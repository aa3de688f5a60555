// Zeros for sensors a recording did not have are placeholders, not measurements (issue 25,
// class 5). Rides without a cadence sensor or power meter still carry Wahoo summary strings
// `cadence_avg "0.0"`, normalized power, TSS and `work_accum "0.0"`, the FIT session says 0 for
// the same, a Suunto workout says `cadence {avg: 0, max: 0}`: each became a measurement (0 rpm,
// a 0-watt TSS sample, 0 kJ). The shared rule (measures.ts sensorFigure) keeps a 0 only when the
// recording's samples show the sensor read; payloads are written here from the documented shapes
// (providers-3.md §4, §5), FIT files with Garmin's SDK Encoder.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { Activity } from '../../src/model/index.ts';
import { sensorFigure, sensorRead } from '../../src/provider-kit/normalize/measures.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { stravaNormalizers } from '../../src/providers/strava/normalize/index.ts';
import type { StravaActivity } from '../../src/providers/strava/normalize/types.ts';
import { type SuuntoWorkout, suuntoNormalizers } from '../../src/providers/suunto/normalize/index.ts';
import { type WahooWorkout, wahooNormalizers } from '../../src/providers/wahoo/normalize/index.ts';
import { buildActivityFit } from '../fakes/fit-files.ts';

const context: NormalizeContext = { userOffsetMinutes: 60, now: Date.parse('2026-11-01T00:00:00Z') };
const startMs = Date.parse('2026-10-11T08:00:00Z');

const valid = (record: Activity | undefined): Activity => {
  assert.ok(record);
  assert.ok(Value.Check(Activity, record), JSON.stringify([...Value.Errors(Activity, record)].slice(0, 3)));
  return record;
};

/** A ride recorded with heart rate and speed only: no cadence sensor, no power meter. */
const bareRide = buildActivityFit({
  seed: 'no-sensors',
  startMs,
  durationSeconds: 2400,
  offsetMinutes: 60,
  sport: 'cycling',
  stepSeconds: 10,
  withoutCadenceAndPower: true,
});
const fullRide = buildActivityFit({
  seed: 'all-sensors',
  startMs,
  durationSeconds: 2400,
  offsetMinutes: 60,
  sport: 'cycling',
  stepSeconds: 10,
});

describe('the shared rule', () => {
  test('a 0 is a measurement only when the samples show the sensor read', () => {
    assert.equal(sensorFigure(0, false), null);
    assert.equal(sensorFigure(0, true), 0);
    assert.equal(sensorFigure(86, false), 86);
    assert.equal(sensorFigure(null, true), null);
    assert.equal(sensorFigure(Number.NaN, true), null);
    assert.equal(sensorRead([{ watts: 0 }, { watts: 0 }], 'watts'), false, 'a series of zeros is no sensor');
    assert.equal(sensorRead([{ watts: 0 }, { watts: 180 }], 'watts'), true);
    assert.equal(sensorRead<{ watts: number }, 'watts'>(null, 'watts'), false);
  });
});

describe('Wahoo: "0.0" summary strings on a ride without cadence and power sensors', () => {
  const workout: WahooWorkout = {
    id: 777,
    starts: new Date(startMs).toISOString(),
    minutes: 40,
    name: 'Commute',
    workout_type_id: 0,
    workout_summary: {
      id: 7,
      cadence_avg: '0.0',
      calories_accum: '410.0',
      distance_accum: '15000.0',
      duration_active_accum: '2400.0',
      duration_total_accum: '2400.0',
      heart_rate_avg: '131.0',
      power_avg: '0.0',
      power_bike_np_last: '0.0',
      power_bike_tss_last: '0.0',
      speed_avg: '6.25',
      work_accum: '0.0',
      manual: false,
    },
  };
  const normalize = (fit: Uint8Array | null) =>
    valid(wahooNormalizers.workout.normalize({ workout, fit }, context)[0]);

  test('with its FIT file (no cadence or power records): no cadence, no power, no TSS, no work', () => {
    const record = normalize(bareRide.bytes);
    assert.equal(record.movement_data?.avg_cadence_rpm, null);
    assert.equal(record.movement_data?.max_cadence_rpm, null);
    assert.equal(record.power_data?.avg_watts, null);
    assert.equal(record.power_data?.max_watts, null);
    assert.equal(record.TSS_data, null);
    assert.equal(record.work_data?.work_kilojoules, null);
    // What the sensors it had measured stays.
    assert.equal(record.heart_rate_data?.summary?.avg_hr_bpm, 131);
    assert.equal(record.movement_data?.avg_speed_meters_per_second, 6.25);
  });

  test('without a file there is nothing to show a sensor was there: still no measurement', () => {
    const record = normalize(null);
    assert.equal(record.movement_data?.avg_cadence_rpm, null);
    assert.equal(record.TSS_data, null);
    assert.equal(record.work_data?.work_kilojoules, null);
  });

  test('a file whose records carry cadence and power keeps what the summary says', () => {
    const record = normalize(fullRide.bytes);
    assert.equal(record.movement_data?.avg_cadence_rpm, 0, 'the sensor was there and the summary says 0');
    assert.equal(record.power_data?.max_watts, fullRide.facts.maxPower);
    assert.equal(record.TSS_data?.TSS_samples?.[0]?.actual, 0);
  });
});

describe('Suunto: cadence {avg: 0, max: 0} on a workout without a cadence sensor', () => {
  const workout: SuuntoWorkout = {
    workoutKey: 'no-cadence',
    activityId: 2,
    startTime: startMs,
    totalTime: 2400,
    cadence: { avg: 0, max: 0 },
  };
  const normalize = (fit?: Uint8Array, document: SuuntoWorkout = workout) =>
    valid(suuntoNormalizers.workout.normalize({ workout: document, fit: fit ?? null }, context)[0]);

  test('no cadence, with or without the FIT export', () => {
    for (const record of [normalize(), normalize(bareRide.bytes)]) {
      assert.equal(record.movement_data?.avg_cadence_rpm, null);
      assert.equal(record.movement_data?.max_cadence_rpm, null);
    }
  });

  test('a FIT export with cadence records: a 0 average stands, and the maximum comes from them', () => {
    const record = normalize(fullRide.bytes, { ...workout, cadence: { avg: 0 } });
    assert.equal(record.movement_data?.avg_cadence_rpm, 0, 'the sensor read, so the document’s 0 stands');
    assert.ok((record.movement_data?.max_cadence_rpm ?? 0) >= 75);
  });
});

describe('Strava: the same rule for summary zeros', () => {
  const activity: StravaActivity = {
    id: 99,
    name: 'Spin',
    elapsed_time: 1800,
    moving_time: 1800,
    start_date: '2026-10-11T08:00:00Z',
    utc_offset: 3600,
    sport_type: 'Ride',
    average_cadence: 0,
    average_watts: 0,
    max_watts: 0,
    kilojoules: 0,
  };

  test('0 cadence, watts and kilojoules without streams showing those sensors: null', () => {
    const record = valid(stravaNormalizers.activity.normalize({ activity }, context)[0]);
    assert.equal(record.movement_data?.avg_cadence_rpm, null);
    assert.equal(record.power_data?.avg_watts, null);
    assert.equal(record.power_data?.max_watts, null);
    assert.equal(record.work_data?.work_kilojoules, null);
  });
});
