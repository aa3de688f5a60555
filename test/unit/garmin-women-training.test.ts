// Garmin's Women's Health normalizer and Training API conversion, pinned without a server:
// cycle summaries become valid Menstruation records (latest update of a day wins, phases and the
// fertile window as dates, garbage skipped without a TypeError); a unified workout with a swim
// pool, percentage targets and a strength step converts to Garmin's words, and a Garmin workout
// reads back as a valid planned workout body.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { MenstruationInterval } from '../../src/model/enums.ts';
import { Menstruation } from '../../src/model/menstruation.ts';
import { PlannedWorkoutDetails } from '../../src/model/planned-workout.ts';
import { undeclaredKeys } from '../../src/model/schema-walk.ts';
import { garminNormalizers } from '../../src/providers/garmin/normalize/index.ts';
import { garminPlanRefusal } from '../../src/providers/garmin/training.ts';
import { fromGarminWorkout } from '../../src/providers/garmin/training-from-garmin.ts';
import { toGarminWorkout } from '../../src/providers/garmin/training-to-garmin.ts';
import type { NormalizeContext } from '../../src/provider-kit/normalize/normalize.ts';
import { workoutProblem } from '../fakes/garmin-training.ts';

const context: NormalizeContext = { userOffsetMinutes: 120, now: Date.parse('2026-03-20T00:00:00Z') };

function assertRecord(schema: TSchema, value: unknown, label: string): void {
  const errors = [...Value.Errors(schema, value)].slice(0, 5);
  assert.equal(errors.length, 0, `${label}: ${JSON.stringify(errors)}`);
  assert.deepEqual(undeclaredKeys(schema, value), [], `${label}: undeclared keys`);
}

describe("Garmin Women's Health (mct)", () => {
  const summary = {
    userId: 'u',
    summaryId: 's-1',
    periodStartDate: '2026-03-01',
    dayInCycle: 12,
    periodLength: 5,
    currentPhaseType: 'FERTILE',
    lengthOfCurrentPhase: 2,
    daysUntilNextPhase: 2,
    predictedCycleLength: 28,
    isPredictedCycle: false,
    cycleLength: 29,
    fertileWindowStart: 10,
    lengthOfFertileWindow: 6,
    lastUpdatedTimeInSeconds: Date.parse('2026-03-12T18:00:00Z') / 1000,
  };

  test('one valid record for the day it describes, in the user offset; the latest update wins', () => {
    const older = { ...summary, currentPhaseType: 'FOLLICULAR', lastUpdatedTimeInSeconds: 1 };
    const records = garminNormalizers.mct.normalize({ mct: [summary, older] }, context);
    assert.equal(records.length, 1);
    const [record] = records;
    assertRecord(Menstruation, record, 'menstruation');
    assert.equal(record!.metadata.start_time.slice(0, 10), '2026-03-12');
    assert.match(record!.metadata.start_time, /\+02:00$/);
    assert.equal(record!.metadata.timestamp_localization, 1);
    const data = record!.menstruation_data!;
    assert.equal(data.current_phase, MenstruationInterval.FERTILE_WINDOW);
    assert.equal(data.day_in_cycle, 12);
    assert.equal(data.cycle_length_days, 29);
    assert.equal(data.fertility_window_start, '2026-03-10');
    assert.equal(data.fertility_window_end, '2026-03-15');
    assert.equal(data.last_updated_time?.slice(0, 19), '2026-03-12T20:00:00');
  });

  test('unknown phases are UNKNOWN; shapes Garmin never sends are skipped, not a TypeError', () => {
    const records = garminNormalizers.mct.normalize(
      {
        mct: [
          { ...summary, currentPhaseType: 'SOMETHING_NEW' },
          null as never,
          { periodStartDate: 'yesterday', dayInCycle: 3 },
          { periodStartDate: '2026-03-01', dayInCycle: -1 },
          { periodStartDate: 17 as never, dayInCycle: '2' as never },
        ],
      },
      context,
    );
    assert.equal(records.length, 1);
    assert.equal(records[0]!.menstruation_data!.current_phase, MenstruationInterval.UNKNOWN);
  });
});

describe('Garmin Training API conversion', () => {
  const swim = {
    metadata: { name: 'Pool set', type: 'SWIMMING', pool_length_meters: 25, planned_date: '2026-04-02' },
    steps: [
      {
        type: 'SwimmingPlannedWorkoutStep',
        order: 0,
        intensity: 'ACTIVE',
        stroke_type: 'BREASTSTROKE',
        equipment_type: ['SWIM_PULL_BUOY'],
        durations: [{ duration_type: 'DISTANCE_METERS', distance_meters: 200 }],
        targets: [
          { target_type: 'HEART_RATE_MAX_PERCENTAGE', hr_percentage_low: 70, hr_percentage_high: 80 },
        ],
      },
      {
        type: 'StrengthPlannedWorkoutStep',
        order: 1,
        intensity: 0,
        exercise_name: 'push up',
        exercise_category: 'PUSH_UP',
        weight_kg: 10,
        durations: [
          { duration_type: 'STEPS', steps: 100 },
          { duration_type: 'TIME', seconds: 60 },
        ],
        targets: [
          { target_type: 'TSS', tss: 50 },
          { target_type: 'POWER', power_percentage_low: 90, power_percentage_high: 105 },
        ],
      },
    ],
  };

  test("a swim with a pool, percentage targets and a strength step in Garmin's words", () => {
    const workout = toGarminWorkout(swim as never);
    assert.equal(workoutProblem(workout), null);
    assert.equal(workout.sport, 'LAP_SWIMMING');
    assert.equal(workout.poolLength, 25);
    assert.equal(workout.poolLengthUnit, 'METER');
    const [first, second] = (workout.segments as { steps: Record<string, unknown>[] }[])[0]!.steps;
    assert.equal(first!.strokeType, 'BREASTSTROKE');
    assert.equal(first!.equipmentType, 'SWIM_PULLBUOY');
    assert.deepEqual(
      [first!.targetType, first!.targetValueLow, first!.targetValueHigh, first!.targetValueType],
      ['HEART_RATE', 70, 80, 'PERCENT'],
    );
    // REST by number; STEPS has no Garmin word (lap button); TSS neither, so the POWER % is secondary.
    assert.equal(second!.intensity, 'REST');
    assert.equal(second!.durationType, 'OPEN');
    assert.equal(second!.targetType, 'OPEN');
    assert.deepEqual(
      [second!.secondaryTargetType, second!.secondaryTargetValueLow, second!.secondaryTargetValueType],
      ['POWER', 90, 'PERCENT'],
    );
    assert.equal(second!.exerciseName, 'PUSH_UP');
    assert.equal(second!.exerciseCategory, 'PUSH_UP');
    assert.deepEqual([second!.weightValue, second!.weightDisplayUnit], [10, 'KILOGRAM']);
  });

  test('a Garmin workout reads back as a valid planned workout, repeat group included', () => {
    const garmin = toGarminWorkout({
      metadata: { name: 'Reps', type: 'RUNNING' },
      steps: [
        {
          type: 'REPEAT_STEP',
          durations: [{ duration_type: 'REPS', reps: 3 }],
          steps: [
            { type: 'STEP', intensity: 'INTERVAL', durations: [{ duration_type: 'TIME', seconds: 60 }] },
          ],
        },
      ],
    } as never);
    const details = fromGarminWorkout({ ...garmin, workoutId: 42 }, '2026-04-03');
    assertRecord(PlannedWorkoutDetails, details, 'planned workout');
    assert.equal(details.metadata?.id, '42');
    assert.equal(details.metadata?.planned_date?.slice(0, 10), '2026-04-03');
    const [repeat] = details.steps!;
    assert.equal(repeat!.type, 'PlannedWorkoutRepeatStep');
    assert.equal(repeat!.durations?.[0]?.reps, 3);
    assert.equal(repeat!.steps?.[0]?.durations?.[0]?.seconds, 60);
  });

  test('WORKOUT_IMPORT: refused only when the known permissions lack it', () => {
    const user = { id: '1', providerUserId: 'g' };
    assert.equal(garminPlanRefusal({ ...user, scopes: null }), null);
    assert.equal(garminPlanRefusal({ ...user, scopes: 'ACTIVITY_EXPORT WORKOUT_IMPORT' }), null);
    assert.match(String(garminPlanRefusal({ ...user, scopes: 'ACTIVITY_EXPORT' })), /WORKOUT_IMPORT/);
  });
});
