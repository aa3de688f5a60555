// The provider-side body of a planned workout in the current schema's form: whatever the older
// contract sent (SDK names, the docs' numbers, V5 step kinds, misspelt keys), one numeric shape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  externalPlannedWorkout,
  legacyPlannedWorkout,
  toCurrentDetails,
} from '../../src/model/planned-workout-current.ts';

const sdkBody = {
  metadata: {
    id: 'p-1',
    name: 'Swim',
    type: 'SWIMMING',
    planned_date: '2024-09-02T07:00:00.000000+02:00',
    created_date: '2024-08-30T10:00:00.000000+02:00',
  },
  steps: [
    {
      type: 'PlannedWorkoutRepeatStep',
      durations: [{ type: 'RepsPlannedWorkoutStepDuration', reps: 4 }],
      steps: [
        {
          type: 'SwimmingPlannedWorkoutStep',
          intensity: 'INTERVAL',
          stroke_type: 'BUTTERFLY',
          equipement_type: 'SWIM_FINS',
          durations: [{ type: 'DistancePlannedWorkoutStepDuration', distance_meters: 100 }],
          targets: [{ type: 'HRPlannedWorkoutStepTarget', hr_bpm_low: 120 }],
        },
      ],
    },
    { type: 'STEP', intensity: 2, exercice_name: 'Squat', exercice_category: 'SQUAT' },
  ],
};

test('SDK names, docs numbers, V5 kinds and misspelt keys come out as one numeric shape', () => {
  const current = toCurrentDetails(sdkBody);
  assert.deepEqual(current, {
    metadata: {
      id: 'p-1',
      name: 'Swim',
      type: 82,
      planned_date: '2024-09-02',
      created_date: '2024-08-30T10:00:00.000000+02:00',
    },
    steps: [
      {
        type: 1,
        durations: [{ duration_type: 9, reps: 4 }],
        steps: [
          {
            type: 0,
            intensity: 4,
            stroke_type: 4,
            equipment_type: [1],
            durations: [{ duration_type: 1, distance_meters: 100 }],
            targets: [{ target_type: 1, hr_bpm_low: 120 }],
          },
        ],
      },
      { type: 0, intensity: 2, exercise_name: 'Squat', exercise_category: 29 },
    ],
  });
  assert.deepEqual(toCurrentDetails(current), current, 'the current form is a fixed point');
});

test('a provider-held workout as the current wire object, and back to the older read shape', () => {
  const external = externalPlannedWorkout(sdkBody);
  assert.equal(external.is_external, true);
  assert.equal(external.planned_workout_id, null);
  assert.equal(external.provider_workout_id, 'p-1');
  assert.equal(external.planned_date, '2024-09-02');
  assert.equal(external.created_at, '2024-08-30T10:00:00.000000+02:00');
  const legacy = legacyPlannedWorkout(external) as { metadata: Record<string, unknown>; steps: unknown[] };
  assert.equal(legacy.metadata.id, 'p-1');
  assert.equal(legacy.metadata.planned_date, '2024-09-02');
  assert.equal(legacy.steps.length, 2);
  const own = legacyPlannedWorkout({ ...external, planned_workout_id: '42', is_external: false });
  assert.equal(
    (own.metadata as Record<string, unknown>).id,
    '42',
    'Tributary’s id is what the older DELETE takes',
  );
});
