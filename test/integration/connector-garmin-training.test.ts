import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { followAuthorize } from '../fakes/fake-server.ts';
import { type GarminFake } from '../fakes/garmin.ts';
import { workoutProblem } from '../fakes/garmin-training.ts';
import { createDeveloper, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { startServiceWithGarminFake } from '../helpers/garmin-service.ts';
import { authenticateUser, pathOf, untilScopes, untilBackfilled } from '../helpers/connections.ts';
import { toGarminWorkout } from '../../src/providers/garmin/training-to-garmin.ts';

// Garmin's Training API end to end against its fake: a planned workout posted here becomes a
// Garmin workout (steps, targets, a repeat group) scheduled on its date, the fake refusing any
// body Garmin would refuse; DELETE removes it at Garmin with its schedule; a user without
// WORKOUT_IMPORT gets a 400 naming the permission; and what this app scheduled earlier is read
// back as the provider's planned workouts.
type Json = Record<string, unknown>;

const intervals = (date: string) => ({
  metadata: {
    name: 'Threshold intervals',
    type: 'RUNNING',
    planned_date: `${date}T07:00:00.000000+00:00`,
    estimated_duration_seconds: 2700,
  },
  steps: [
    {
      type: 'RunningPlannedWorkoutStep',
      order: 0,
      name: 'Warm up',
      intensity: 'WARMUP',
      durations: [{ type: 'TimePlannedWorkoutStepDuration', duration_type: 'TIME', seconds: 600 }],
      targets: [
        { type: 'HRPlannedWorkoutStepTarget', target_type: 'HEART_RATE', hr_bpm_low: 120, hr_bpm_high: 140 },
      ],
    },
    {
      type: 'PlannedWorkoutRepeatStep',
      order: 1,
      durations: [{ type: 'RepsPlannedWorkoutStepDuration', duration_type: 'REPS', reps: 5 }],
      steps: [
        {
          type: 'RunningPlannedWorkoutStep',
          order: 0,
          intensity: 'INTERVAL',
          durations: [
            {
              type: 'DistancePlannedWorkoutStepDuration',
              duration_type: 'DISTANCE_METERS',
              distance_meters: 1000,
            },
          ],
          targets: [
            { type: 'PacePlannedWorkoutStepTarget', target_type: 'PACE', pace_minutes_per_kilometer: 4 },
          ],
        },
        {
          type: 'RunningPlannedWorkoutStep',
          order: 1,
          intensity: 5 - 2, // RECOVERY by its number, as the docs send it
          durations: [{ type: 'TimePlannedWorkoutStepDuration', duration_type: 'TIME', seconds: 90 }],
          targets: [{ type: 'PlannedWorkoutStepTarget', target_type: 'OPEN' }],
        },
      ],
    },
    {
      type: 'RunningPlannedWorkoutStep',
      order: 2,
      intensity: 'COOLDOWN',
      durations: [{ type: 'PlannedWorkoutStepDuration', duration_type: 'OPEN' }],
    },
  ],
});

describe('GARMIN Training API: planned workouts', () => {
  let fake: GarminFake;
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    service.app.inject({
      method,
      url,
      headers: developer.headers,
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });
  const training = () => fake.accountOf('account-1').training;

  before(async () => {
    ({ fake, service } = await startServiceWithGarminFake());
    const address = service.app.server.address() as AddressInfo;
    fake.endpointUrl = `http://127.0.0.1:${address.port}/providers/GARMIN/webhook`;
    developer = await createDeveloper(service.ctx);
    const link = await authenticateUser(service.app, developer, 'GARMIN', {
      reference_id: 'garmin-training',
    });
    userId = link.userId;
    const back = await followAuthorize(link.authUrl.toString());
    const landing = await service.app.inject({ method: 'GET', url: pathOf(back) });
    assert.equal(landing.statusCode, 302, landing.body);
    await untilBackfilled(service, userId, { types: 7 });
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  test('the conversion is a body Garmin accepts: steps, targets, a repeat group, orders 1..n', () => {
    const workout = toGarminWorkout(intervals('2030-01-07') as never);
    assert.equal(workoutProblem(workout), null);
    assert.equal(workout.sport, 'RUNNING');
    const [segment] = workout.segments as { steps: Json[] }[];
    const [warmup, repeat, cooldown] = segment!.steps;
    assert.deepEqual(
      { ...warmup, description: undefined },
      {
        type: 'WorkoutStep',
        stepOrder: 1,
        intensity: 'WARMUP',
        description: undefined,
        durationType: 'TIME',
        durationValue: 600,
        targetType: 'HEART_RATE',
        targetValueLow: 120,
        targetValueHigh: 140,
      },
    );
    assert.equal(repeat!.type, 'WorkoutRepeatStep');
    assert.equal(repeat!.stepOrder, 2);
    assert.equal(repeat!.repeatValue, 5);
    const [work, rest] = repeat!.steps as Json[];
    assert.equal(work!.stepOrder, 3);
    assert.equal(work!.durationType, 'DISTANCE');
    assert.equal(work!.durationValue, 1000);
    assert.equal(work!.targetType, 'PACE');
    // 4:00 min/km = 1000 m / 240 s.
    assert.ok(Math.abs((work!.targetValueLow as number) - 1000 / 240) < 1e-9);
    assert.equal(rest!.intensity, 'RECOVERY');
    assert.equal(rest!.targetType, 'OPEN');
    assert.equal(cooldown!.stepOrder, 5);
    assert.equal(cooldown!.durationType, 'OPEN');
    // The fake refuses what Garmin would: a step order out of sequence.
    assert.match(
      String(workoutProblem({ ...workout, segments: [{ steps: [{ ...warmup, stepOrder: 2 }] }] })),
      /out of sequence/,
    );
  });

  test('a planned workout is created and scheduled at Garmin; DELETE removes it there', async () => {
    const date = '2030-01-07';
    const created = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, { data: [intervals(date)] });
    assert.equal(created.statusCode, 201, created.body);
    const [logId] = (created.json() as { log_ids: string[] }).log_ids;
    const summary = await call('GET', `/v2/plannedWorkouts/${logId}?user_id=${userId}`);
    assert.equal(summary.statusCode, 200, summary.body);
    const providerId = Number((summary.json() as { provider_workout_id: string }).provider_workout_id);
    const stored = training().workouts.get(providerId);
    assert.ok(stored, 'the workout exists at Garmin');
    assert.equal(stored.workoutName, 'Threshold intervals');
    assert.equal(stored.workoutProvider, 'Tributary');
    assert.deepEqual(
      training()
        .schedules.filter((schedule) => schedule.workoutId === providerId)
        .map((schedule) => schedule.date),
      [date],
      'scheduled on its planned date',
    );

    const deleted = await call('DELETE', `/v2/plannedWorkout?user_id=${userId}`, { data: [logId] });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal(training().workouts.has(providerId), false, 'deleted at Garmin');
    assert.equal(
      training().schedules.some((schedule) => schedule.workoutId === providerId),
      false,
      'its schedule went with it',
    );
  });

  test('the workouts this app scheduled at Garmin are read back as planned workouts', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const response = await call(
      'GET',
      `/v2/plannedWorkout?user_id=${userId}&start_date=${from}&end_date=${today}&to_webhook=false`,
    );
    assert.equal(response.statusCode, 200, response.body);
    const records = (response.json() as { data: { metadata: Json; steps: Json[] }[] }).data;
    const seeded = records.filter((record) => String(record.metadata.name).startsWith('Easy run'));
    assert.ok(seeded.length >= 4, `weekly workouts over 30 days, got ${seeded.length}`);
    const [first] = seeded;
    assert.equal(first!.steps.length, 2);
    assert.equal(first!.steps[1]!.steps && (first!.steps[1]!.steps as Json[]).length, 1);
  });

  test('without WORKOUT_IMPORT the developer gets a 400 naming the permission, and Garmin is not asked', async () => {
    const answer = await fake.setPermissions(['ACTIVITY_EXPORT', 'HEALTH_EXPORT']);
    assert.equal(answer.status, 200, answer.responseBody);
    await untilScopes(service, userId, 'ACTIVITY_EXPORT HEALTH_EXPORT');
    const posts = fake.requestsTo('/training-api/workout').length;
    const refused = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [intervals('2030-01-08')],
    });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.headers['content-type'] as string, /problem\+json/);
    assert.match((refused.json() as { detail: string }).detail, /WORKOUT_IMPORT/);
    assert.equal(fake.requestsTo('/training-api/workout').length, posts);
  });
});
