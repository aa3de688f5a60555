// Multisport FIT files (issue 25, class 7): a triathlon is one file of five sessions (swim, T1,
// bike, T2, run). Only the first session was read, so a 52.5 km triathlon became its 1.6 km swim.
// The summary now runs over every session and the legs are kept as laps, one per session. The
// core test uses a triathlon written with Garmin's SDK Encoder (test/fakes/fit-files.ts); a real
// multisport recording (a Fenix 2 file from python-fitparse's test files) is read in place from
// the shared reference when it is there.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { Activity, ActivityType } from '../../src/model/index.ts';
import { decodeFitActivity, fitSamples } from '../../src/provider-kit/normalize/fit.ts';
import { fitLaps, fitSummary } from '../../src/provider-kit/normalize/fit-summary.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { type SuuntoWorkout, suuntoNormalizers } from '../../src/providers/suunto/normalize/index.ts';
import { type WahooWorkout, wahooNormalizers } from '../../src/providers/wahoo/normalize/index.ts';
import { buildMultisportFit } from '../fakes/fit-files.ts';
import { describeWithShared, missingShared, readShared } from '../helpers/shared-reference.ts';

const context: NormalizeContext = { userOffsetMinutes: null, now: Date.parse('2026-11-01T00:00:00Z') };
const startMs = Date.parse('2026-06-14T05:30:00Z');
const triathlon = buildMultisportFit({
  seed: 'triathlon',
  startMs,
  offsetMinutes: 120,
  legs: [
    { sport: 'swimming', durationSeconds: 1920, distanceMeters: 1600 },
    { sport: 'transition', durationSeconds: 240, distanceMeters: 250 },
    { sport: 'cycling', durationSeconds: 4500, distanceMeters: 40_400 },
    { sport: 'transition', durationSeconds: 120, distanceMeters: 150 },
    { sport: 'running', durationSeconds: 2880, distanceMeters: 10_100 },
  ],
});

const valid = (record: Activity | undefined): Activity => {
  assert.ok(record);
  assert.ok(Value.Check(Activity, record), JSON.stringify([...Value.Errors(Activity, record)].slice(0, 3)));
  return record;
};

describe('a triathlon FIT file: every session summarized, the legs kept', () => {
  test('the shared summary adds the legs up', () => {
    const fit = decodeFitActivity(triathlon.bytes, 'triathlon');
    const summary = fitSummary(fit, fitSamples(fit, startMs, 120));
    assert.equal(summary.legs, 5);
    assert.equal(summary.multisport, true);
    assert.equal(summary.sport, 'multisport');
    assert.equal(summary.distanceMeters, 52_500);
    assert.equal(summary.elapsedSeconds, triathlon.facts.elapsedSeconds);
    assert.equal(summary.timerSeconds, triathlon.facts.elapsedSeconds);
    assert.equal(summary.startMs, startMs);
    // Swim strokes, bike rpm and run steps do not average into one figure.
    assert.equal(summary.avgCadence, null);
    assert.equal(summary.maxCadence, null);
    assert.ok((summary.maxWatts ?? 0) >= 150, 'the bike leg’s power is kept');
  });

  test('Suunto: a document without totals gets them from the whole file; type multisport', () => {
    const workout: SuuntoWorkout = { workoutKey: 'tri-1', activityId: 1, startTime: startMs };
    const record = valid(suuntoNormalizers.workout.normalize({ workout, fit: triathlon.bytes }, context)[0]);
    assert.equal(record.distance_data?.summary?.distance_meters, 52_500);
    assert.equal(record.metadata.type, ActivityType.MULTISPORT);
    assert.equal(record.metadata.start_time, '2026-06-14T07:30:00.000000+02:00');
    assert.equal(
      record.metadata.end_time,
      '2026-06-14T10:11:00.000000+02:00',
      'the end of the run, not of the swim',
    );
    assert.equal(record.heart_rate_data?.detailed?.hr_samples?.length, triathlon.facts.records);
  });

  test('the legs are the laps: one per session, in order, each ended by SESSION_END', () => {
    const workout: WahooWorkout = {
      id: 5150,
      starts: new Date(startMs).toISOString(),
      minutes: 161,
      name: 'Triathlon',
      workout_type_id: 0,
      workout_summary: { id: 1, manual: false },
    };
    const record = valid(wahooNormalizers.workout.normalize({ workout, fit: triathlon.bytes }, context)[0]);
    const laps = record.lap_data?.laps ?? [];
    assert.deepEqual(
      laps.map((lap) => lap.distance_meters),
      triathlon.facts.legs.map((leg) => leg.distanceMeters),
    );
    assert.ok(laps.every((lap) => lap.trigger_method === 'SESSION_END'));
    assert.equal(laps[2]?.start_time, '2026-06-14T08:06:00.000000+02:00', 'the bike leg starts after T1');
    assert.equal(record.distance_data?.summary?.distance_meters, 52_500);
    assert.equal(record.metadata.type, ActivityType.MULTISPORT);
  });
});

const REAL_FILE = 'reference/device-files/python-fitparse/activity-large-fenxi2-multisport.fit';

describeWithShared('a real multisport recording (Garmin Fenix 2)', missingShared(REAL_FILE), () => {
  test('seven sessions: distance, legs and the clock span of all of them', () => {
    const fit = decodeFitActivity(new Uint8Array(readShared(REAL_FILE)), 'fenix2');
    assert.equal(fit.sessions.length, 7);
    const summary = fitSummary(fit, fitSamples(fit, Date.parse('2015-08-29T08:00:01Z'), 0));
    // The legs' distances as recorded (25072.07 + 224.24 + 2245.23 + 3.63 + 12740.37 + 617.55 + 28928.27 m).
    assert.ok(Math.abs((summary.distanceMeters ?? 0) - 69_831.36) < 0.01, String(summary.distanceMeters));
    assert.equal(summary.multisport, true);
    assert.equal(summary.elapsedSeconds, 21_907, 'from the first leg’s start to the last leg’s end');
    assert.ok((summary.timerSeconds ?? 0) <= 21_907, 'time in motion never exceeds the clock time');
    const legs = fitLaps(fit, 0);
    assert.equal(legs.length, 7);
    assert.equal(legs[6]?.distance_meters, 28_928.27);
  });
});
