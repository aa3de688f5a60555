import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordProblem } from '../../src/model/plausibility.ts';
import { normalizeWorkout } from '../../src/providers/hevy/normalize/workout.ts';
import { validateDeclaration } from '../../src/provider-kit/validate.ts';
import { hevy } from '../../src/providers/hevy/provider.ts';

// Hevy workout -> Activity with strength_data (MAPPING.md), written from the fields of the
// OpenAPI `Workout` schema; payloads are made up here, not copied.
const workout = {
  id: 'w-1',
  title: 'Leg Day',
  start_time: '2026-03-01T23:40:00Z',
  end_time: '2026-03-02T00:45:30Z',
  exercises: [
    {
      index: 0,
      title: 'Squat (Barbell)',
      notes: '',
      exercise_template_id: 'D04AC939',
      supersets_id: null,
      sets: [
        { index: 0, type: 'warmup', weight_kg: 60, reps: 8, distance_meters: 0, duration_seconds: 0, rpe: 0 },
        { index: 1, type: 'normal', weight_kg: 120.5, reps: 5, rpe: 8.5 },
        { index: 2, type: 'mystery', weight_kg: 0, reps: 12 },
      ],
    },
    { title: 'Treadmill', supersets_id: 3, sets: [{ distance_meters: 1200.5, duration_seconds: 420 }] },
  ],
};

test('a workout becomes a strength activity in UTC with its exercises and sets', () => {
  const record = normalizeWorkout(workout, { userOffsetMinutes: null });
  assert.equal(record.metadata.summary_id, 'w-1');
  assert.equal(record.metadata.type, 80);
  assert.equal(record.metadata.start_time, '2026-03-01T23:40:00.000000+00:00');
  assert.equal(record.metadata.end_time, '2026-03-02T00:45:30.000000+00:00');
  assert.equal(record.active_durations_data?.activity_seconds, 3930);
  assert.equal(record.calories_data, null);
  assert.equal(record.distance_data?.summary?.distance_meters, 1200.5);
  const [squat, treadmill] = record.strength_data?.exercises ?? [];
  assert.deepEqual(squat?.sets?.[0], {
    set_index: 0,
    set_type: 'warmup',
    reps: 8,
    weight_kg: 60,
    duration_seconds: null,
    distance_meters: null,
    rpe: null,
  });
  assert.equal(squat?.notes, null, 'an empty note is no note');
  assert.equal(squat?.exercise_id, 'D04AC939');
  assert.equal(squat?.sets?.[1]?.rpe, 8.5);
  assert.equal(squat?.sets?.[2]?.set_type, null, 'an unknown set type is not passed on');
  assert.equal(squat?.sets?.[2]?.weight_kg, 0, 'a bodyweight set lifts 0 kg more');
  assert.equal(treadmill?.exercise_index, 1, 'position when the index is missing');
  assert.equal(treadmill?.superset_id, '3');
  assert.equal(recordProblem(record, Date.parse('2026-03-03T00:00:00Z')), null, 'plausible');
});

test('a known offset places the workout in it; broken workouts are refused', () => {
  const record = normalizeWorkout(workout, { userOffsetMinutes: 60 });
  assert.equal(record.metadata.start_time, '2026-03-02T00:40:00.000000+01:00');
  assert.throws(() => normalizeWorkout({ ...workout, id: '' }, { userOffsetMinutes: null }));
  assert.throws(() => normalizeWorkout({ ...workout, start_time: 'yesterday' }, { userOffsetMinutes: null }));
  const noEnd = normalizeWorkout(
    { ...workout, end_time: '2026-03-01T20:00:00Z' },
    { userOffsetMinutes: null },
  );
  assert.equal(noEnd.active_durations_data?.activity_seconds, null, 'an end before the start is no duration');
});

test('strength fields are checked as lifts, not as body measurements', () => {
  const record = normalizeWorkout(workout, { userOffsetMinutes: null });
  const sets = record.strength_data!.exercises![0]!.sets!;
  sets[1]!.weight_kg = 2000;
  assert.match(recordProblem(record, Date.parse('2026-03-03T00:00:00Z')) ?? '', /lifted_weight_kg/);
});

test('the declaration is valid, and an api_key provider without its key declaration is not', () => {
  assert.deepEqual(validateDeclaration('HEVY', hevy), []);
  const { apiKey: _dropped, ...rest } = hevy.declaration;
  const problems = validateDeclaration('HEVY', { ...hevy, declaration: rest });
  assert.ok(problems.some((problem) => /apiKey declaration/.test(problem.problem)));
});
