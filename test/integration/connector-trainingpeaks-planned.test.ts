import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays } from '../../src/model/time.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { startTrainingPeaksFake, type TrainingPeaksFake } from '../fakes/trainingpeaks.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectThroughFake } from '../helpers/connections.ts';
import { until } from '../helpers/until.ts';

// TrainingPeaks planned workouts end to end: a planned workout posted here is created with
// POST /v2/workouts/plan (a timed, repeated structure with a cadence target, as the wiki's
// Structure example writes them) and deleted with DELETE /v2/workouts/id/{id}; a target the wiki
// gives no form for, or a day outside 7 days back to a year ahead, is a 400 naming it with
// nothing written; a basic athlete's future workout is refused by TrainingPeaks (403) and
// reported; /v2/integrations lists the provider once its credentials are set.
type Json = Record<string, unknown>;
const today = () => new Date().toISOString().slice(0, 10);
const time = (seconds: number) => ({
  type: 'TimePlannedWorkoutStepDuration',
  duration_type: 'TIME',
  seconds,
});
const plan = (date: string, steps: Json[]) => ({
  metadata: {
    name: 'Cadence drills',
    type: 'BIKING',
    planned_date: `${date}T00:00:00-07:00`,
    estimated_duration_seconds: 3600,
    estimated_tss: 55,
  },
  steps,
});
const drills: Json[] = [
  {
    type: 'CyclingPlannedWorkoutStep',
    name: 'Warm up',
    intensity: 'WARMUP',
    durations: [time(600)],
    targets: [],
  },
  {
    type: 'PlannedWorkoutRepeatStep',
    durations: [{ type: 'RepsPlannedWorkoutStepDuration', duration_type: 'REPS', reps: 5 }],
    steps: [
      {
        type: 'CyclingPlannedWorkoutStep',
        intensity: 'INTERVAL',
        durations: [time(60)],
        targets: [
          {
            type: 'CadencePlannedWorkoutStepTarget',
            target_type: 'CADENCE',
            cadence_low: 105,
            cadence_high: 115,
          },
        ],
      },
      { type: 'CyclingPlannedWorkoutStep', intensity: 'RECOVERY', durations: [time(120)], targets: [] },
    ],
  },
];

describe('TRAININGPEAKS planned workouts and integrations', () => {
  let fake: TrainingPeaksFake;
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

  before(async () => {
    fake = await startTrainingPeaksFake();
    service = await startTestService({
      env: {
        ...providerEnv('TRAININGPEAKS', fake),
        TRAININGPEAKS_REQUEST_BUDGET: '100000/60',
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
      },
    });
    developer = await createDeveloper(service.ctx);
    userId = (await connectThroughFake(service.app, developer, 'TRAININGPEAKS', fake, 'tp-plan')).userId;
    await until(
      'the backfill',
      async () => {
        const progress = await service.ctx.connectors.backfill.progress(userId);
        return progress.length === 6 && progress.every((row) => row.status === 'done');
      },
      { timeoutMs: 120_000 },
    );
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  test('/v2/integrations lists TrainingPeaks when configured', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/v2/integrations' });
    assert.ok((response.json() as { providers: string[] }).providers.includes('TRAININGPEAKS'));
  });

  test('a planned workout is created with its Structure; DELETE removes it there', async () => {
    const date = addDays(today(), 10);
    const created = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [plan(date, drills)],
    });
    assert.equal(created.statusCode, 201, created.body);
    const [logId] = (created.json() as { log_ids: string[] }).log_ids;
    const summary = await call('GET', `/v2/plannedWorkouts/${logId}?user_id=${userId}`);
    const providerId = Number((summary.json() as { provider_workout_id: string }).provider_workout_id);
    const workout = fake.planned.get(providerId);
    assert.ok(workout, 'created at TrainingPeaks');
    assert.equal(workout.WorkoutDay, `${date}T00:00:00`);
    assert.equal(workout.WorkoutType, 'bike');
    assert.equal(workout.TotalTimePlanned, 1);
    assert.equal(workout.TSSPlanned, 55);
    assert.deepEqual(JSON.parse(String(workout.Structure)), [
      { Type: 'Step', Name: 'Warm up', IntensityClass: 'WarmUp', Length: { Unit: 'Second', Value: 600 } },
      {
        Type: 'Repetition',
        Length: { Unit: 'Repetition', Value: 5 },
        Steps: [
          {
            Type: 'Step',
            IntensityClass: 'Active',
            Length: { Unit: 'Second', Value: 60 },
            CadenceTarget: { Unit: 'rpm', MinValue: 105, MaxValue: 115 },
          },
          { Type: 'Step', IntensityClass: 'Rest', Length: { Unit: 'Second', Value: 120 } },
        ],
      },
    ]);
    const deleted = await call('DELETE', `/v2/plannedWorkout?user_id=${userId}`, { data: [logId] });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal(fake.planned.has(providerId), false);
  });

  test('an undocumented target or an out-of-range day is a 400 naming it; nothing is written', async () => {
    const before = fake.planned.size;
    const power = [
      {
        ...drills[0],
        targets: [
          {
            type: 'PowerPlannedWorkoutStepTarget',
            target_type: 'POWER',
            power_percentage_low: 90,
            power_percentage_high: 95,
          },
        ],
      },
    ];
    const refused = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [plan(addDays(today(), 3), drills), plan(addDays(today(), 4), power)],
    });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.body, /steps\[0\].*POWER target/);
    const late = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [plan(addDays(today(), -30), drills)],
    });
    assert.equal(late.statusCode, 400, late.body);
    assert.match(late.body, /7 days ago to a year ahead/);
    assert.equal(fake.planned.size, before);
  });

  test('a basic athlete’s future workout is refused by TrainingPeaks and reported, not a broken connection', async () => {
    fake.basic.add('account-1');
    const refused = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [plan(addDays(today(), 5), drills)],
    });
    fake.basic.delete('account-1');
    assert.ok(refused.statusCode >= 400 && refused.statusCode !== 500, refused.body);
    const status = await service.ctx.db
      .selectFrom('connections')
      .select('status')
      .where('id', '=', userId)
      .executeTakeFirst();
    assert.equal(status?.status, 'active');
  });
});
