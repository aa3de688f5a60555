// TrainingPeaks normalizers against payloads written from the wiki's examples ("Workouts
// Object", "v2 Metrics Get Athlete Metrics"; no recorded payloads are public): local times
// placed in the athlete's zone, an evening in Denver that is the next UTC day, placeholder zeros,
// a basic athlete's nulls, metrics grouped by local day.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { Activity, ActivityType, Athlete, Body, Daily, Sleep } from '../../src/model/index.ts';
import { undeclaredKeys } from '../../src/model/schema-walk.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { metricDays } from '../../src/providers/trainingpeaks/normalize/metrics.ts';
import { trainingPeaksNormalizers } from '../../src/providers/trainingpeaks/normalize/index.ts';
import { isCompleted } from '../../src/providers/trainingpeaks/normalize/workout.ts';
import { fromTpWorkout, tpStructure } from '../../src/providers/trainingpeaks/planned-workouts.ts';

const context: NormalizeContext = { userOffsetMinutes: null };
function valid(schema: unknown, record: unknown) {
  assert.ok(
    Value.Check(schema as never, record),
    JSON.stringify([...Value.Errors(schema as never, record)].slice(0, 3)),
  );
  assert.deepEqual(undeclaredKeys(schema, record), []);
}

// The wiki's "Workouts Object" example.
const wikiWorkout = {
  AthleteId: 1234567,
  CadenceAverage: 81,
  CadenceMaximum: 122,
  Calories: 742,
  Completed: false,
  Distance: 39647.4609375,
  ElevationAverage: 1603.83,
  ElevationGain: 313.0,
  ElevationLoss: 306.0,
  ElevationMaximum: 1735.0,
  ElevationMinimum: 1548.6,
  Energy: 742.105,
  HeartRateAverage: 153,
  HeartRateMaximum: 178,
  HeartRateMinimum: 90,
  IF: 0.9356,
  Id: 1234567890,
  NormalizedPower: 187.0,
  PowerAverage: 167,
  PowerMaximum: 524,
  StartTime: '2014-04-15T12:57:59',
  TotalTime: 1.2443747520446777,
  TssActual: 108.16,
  TssCalculationMethod: 'Power',
  VelocityAverage: 8.85,
  VelocityMaximum: 19.807,
  WorkoutDay: '2014-04-15T00:00:00',
  WorkoutType: 'Bike',
};

describe('TrainingPeaks normalizers', () => {
  test('the wiki workout: a completed ride in Denver summer time', () => {
    assert.equal(
      isCompleted(wikiWorkout),
      true,
      'an actual TotalTime makes it completed, whatever Completed says',
    );
    const [record] = trainingPeaksNormalizers.workout.normalize(
      { workout: wikiWorkout, timezone: 'America/Denver' },
      context,
    );
    valid(Activity, record);
    assert.equal(record!.metadata.start_time, '2014-04-15T12:57:59.000000-06:00');
    assert.equal(record!.metadata.type, ActivityType.BIKING);
    assert.equal(record!.active_durations_data?.activity_seconds, 4480);
    // Energy expended is the calories (742 kcal); `Energy` is the power meter's work output.
    assert.ok(Math.abs((record!.energy_data?.energy_kilojoules ?? 0) - 742 * 4.184) < 1e-6);
    assert.equal(record!.work_data?.work_kilojoules, 742.105);
    assert.equal(record!.TSS_data?.TSS_samples?.[0]?.normalized_power_watts, 187);
    assert.equal(record!.power_data?.max_watts, 524);
  });

  test('energy_kilojoules keeps one meaning whether or not a power meter recorded Energy (issue 41)', () => {
    const normalize = (workout: Record<string, unknown>) =>
      trainingPeaksNormalizers.workout.normalize(
        { workout: workout as never, timezone: 'America/Denver' },
        context,
      )[0]!;
    const ride = normalize({ ...wikiWorkout, Calories: 1358, Energy: 1526 });
    const run = normalize({ ...wikiWorkout, Calories: 1358, Energy: null, WorkoutType: 'run' });
    assert.equal(ride.energy_data?.energy_kilojoules, run.energy_data?.energy_kilojoules);
    assert.ok(Math.abs((ride.energy_data?.energy_kilojoules ?? 0) - 1358 * 4.184) < 1e-6);
    assert.equal(ride.work_data?.work_kilojoules, 1526);
    assert.equal(run.work_data?.work_kilojoules, null, 'no power meter, no work output');
  });

  test('an evening in Denver winter time keeps its local day; zeros and a basic athlete’s nulls are left out', () => {
    const [record] = trainingPeaksNormalizers.workout.normalize(
      {
        workout: {
          Id: 5,
          WorkoutDay: '2026-11-20T00:00:00',
          StartTime: '2026-11-20T21:30:00',
          WorkoutType: 'strength',
          TotalTime: 0.75,
          Distance: 0,
          HeartRateAverage: 0,
          Calories: null,
          VelocityAverage: 0,
        },
        timezone: 'America/Denver',
      },
      context,
    );
    valid(Activity, record);
    assert.equal(record!.metadata.start_time, '2026-11-20T21:30:00.000000-07:00');
    assert.equal(record!.metadata.type, ActivityType.STRENGTH_TRAINING);
    assert.equal(record!.distance_data?.summary?.distance_meters, null);
    assert.equal(record!.heart_rate_data?.summary?.avg_hr_bpm, null);
    assert.equal(record!.calories_data?.total_burned_calories, null);
    assert.equal(record!.movement_data?.avg_speed_meters_per_second, null);
    assert.equal(isCompleted({ Id: 6, WorkoutDay: '2026-11-21T00:00:00', TotalTimePlanned: 1 }), false);
    assert.equal(
      isCompleted({ Id: 7, WorkoutDay: '2026-11-21T00:00:00', WorkoutType: 'day off', TotalTime: 1 }),
      false,
    );
  });

  test('the wiki metrics: grouped by local day into daily, body and sleep', () => {
    const days = metricDays(
      [
        {
          MetricId: 'a',
          AthleteId: 1,
          DateTime: '2022-06-01T06:12:34',
          WeightInKilograms: 68.1,
          HRV: 84.1,
          Steps: 12345,
          Stress: 'Low',
          SleepQuality: 'Good',
        },
        { MetricId: 'b', AthleteId: 1, DateTime: '2022-06-02T07:23:45', SleepHours: 8, Pulse: 45 },
      ],
      'America/Denver',
    );
    assert.deepEqual(
      days.map((day) => day.date),
      ['2022-06-01', '2022-06-02'],
    );
    const [daily] = trainingPeaksNormalizers.metricsDaily.normalize(days[0]!, context);
    valid(Daily, daily);
    assert.equal(daily!.distance_data?.steps, 12345);
    assert.equal(daily!.metadata.start_time, '2022-06-01T00:00:00.000000-06:00');
    const [body] = trainingPeaksNormalizers.metricsBody.normalize(days[0]!, context);
    valid(Body, body);
    assert.equal(
      body!.measurements_data?.measurements?.[0]?.measurement_time,
      '2022-06-01T06:12:34.000000-06:00',
    );
    const [pulse] = trainingPeaksNormalizers.metricsBody.normalize(days[1]!, context);
    assert.equal(pulse!.heart_data?.heart_rate_data?.detailed?.hr_samples?.[0]?.bpm, 45);
    const [sleep] = trainingPeaksNormalizers.metricsSleep.normalize(days[1]!, context);
    valid(Sleep, sleep);
    assert.equal(sleep!.sleep_durations_data?.asleep?.duration_asleep_state_seconds, 28_800);
    assert.deepEqual(trainingPeaksNormalizers.metricsSleep.normalize(days[0]!, context), []);
    assert.deepEqual(trainingPeaksNormalizers.metricsDaily.normalize(days[1]!, context), []);
  });

  test('the athlete, and a planned workout read back', () => {
    const [athlete] = trainingPeaksNormalizers.athlete.normalize(
      {
        Id: 123456,
        FirstName: 'John1',
        LastName: 'Doe1',
        Sex: 'm',
        BirthMonth: '1980-10',
        TimeZone: 'America/Denver',
      },
      context,
    );
    valid(Athlete, athlete);
    assert.equal(athlete!.gender, 'male');
    assert.equal(athlete!.date_of_birth, undefined, 'a birth month is not a date of birth');
    const plannedDetails = fromTpWorkout({
      Id: 139283664,
      WorkoutDay: '2014-04-15T00:00:00',
      WorkoutType: 'Bike',
      DistancePlanned: 100000,
      TotalTimePlanned: 1,
      TssPlanned: 80,
      IFPlanned: null,
    });
    assert.equal(plannedDetails.metadata?.estimated_duration_seconds, 3600);
    assert.equal(plannedDetails.metadata?.estimated_tss, 80);
    assert.equal(plannedDetails.metadata?.estimated_if, null);
  });

  test('Structure: distance steps are refused rather than guessed', () => {
    assert.throws(
      () => tpStructure([{ durations: [{ duration_type: 'DISTANCE_METERS', distance_meters: 1000 }] }]),
      /only timed steps/,
    );
  });
});
