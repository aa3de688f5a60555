import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays, isoDateToDayNumber } from '../../src/model/time.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { startTrainingPeaksFake, type TrainingPeaksFake } from '../fakes/trainingpeaks.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectThroughFake, untilBackfilled } from '../helpers/connections.ts';
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
        TRAININGPEAKS_POLL_MINUTES: '0.05',
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
      },
    });
    developer = await createDeveloper(service.ctx);
    userId = (await connectThroughFake(service.app, developer, 'TRAININGPEAKS', fake, 'tp-plan')).userId;
    await untilBackfilled(service, userId, { types: 6 });
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

  test('a threshold heart-rate target is written as the wiki’s PercentOfThresholdHr IntensityTarget (issue 41)', async () => {
    const threshold = [
      {
        ...drills[0],
        targets: [
          {
            type: 'HRPlannedWorkoutStepTarget',
            target_type: 'HEART_RATE_THRESHOLD_PERCENTAGE',
            hr_percentage_low: 70,
            hr_percentage_high: 80,
          },
        ],
      },
    ];
    const created = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [plan(addDays(today(), 6), threshold)],
    });
    assert.equal(created.statusCode, 201, created.body);
    const [logId] = (created.json() as { log_ids: string[] }).log_ids;
    const summary = await call('GET', `/v2/plannedWorkouts/${logId}?user_id=${userId}`);
    const providerId = Number((summary.json() as { provider_workout_id: string }).provider_workout_id);
    const [step] = JSON.parse(String(fake.planned.get(providerId)?.Structure)) as Json[];
    assert.deepEqual(step!.IntensityTarget, {
      Unit: 'PercentOfThresholdHr',
      Value: 75,
      MinValue: 70,
      MaxValue: 80,
    });
  });

  test('a window of the coming ten days reads every planned workout in it (issue 41)', async () => {
    const from = today();
    const response = await call(
      'GET',
      `/v2/plannedWorkout?user_id=${userId}&start_date=${from}&end_date=${addDays(from, 10)}&to_webhook=false`,
    );
    assert.equal(response.statusCode, 200, response.body);
    const data = (response.json() as { data: { planned_date?: string; metadata?: Json }[] }).data;
    const days = new Set(
      data.map((workout) => String(workout.planned_date ?? workout.metadata?.planned_date).slice(0, 10)),
    );
    // The fake's calendar has a plan on every day ahead.
    for (const ahead of [3, 6, 9])
      assert.ok(days.has(addDays(from, ahead)), `day +${ahead} in ${[...days].join(', ')}`);
  });

  test('workouts deleted at TrainingPeaks disappear from reads and are announced (issue 41)', async () => {
    const events = async () =>
      (
        await service.ctx.db
          .selectFrom('events')
          .select(['type', 'body'])
          .where('user_id', '=', userId)
          .execute()
      ).map((event) => ({ type: event.type, body: JSON.parse(event.body) as Json }));
    // A completed ride three weeks ago, and a plan five days ahead (both in the store now).
    const done = [20, 21, 22, 23]
      .map((back) => addDays(today(), -back))
      .find((day) => isoDateToDayNumber(day) % 9 !== 0)!;
    const ahead = addDays(today(), 5);
    const read = async (type: 'activity' | 'plannedWorkout', day: string) => {
      const response = await call(
        'GET',
        `/v2/${type}?user_id=${userId}&start_date=${day}&end_date=${addDays(day, 1)}&to_webhook=false`,
      );
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as { data: { provider_workout_id?: string; metadata: Json }[] }).data.map(
        (record) => String(record.metadata.summary_id ?? record.provider_workout_id ?? record.metadata.id),
      );
    };
    const activityId = String(isoDateToDayNumber(done) * 10);
    const planId = String(isoDateToDayNumber(ahead) * 10);
    assert.ok((await read('activity', done)).includes(activityId), 'the ride is served');
    assert.ok((await read('plannedWorkout', ahead)).includes(planId), 'the plan is served');

    fake.deleteWorkout(Number(activityId));
    fake.deleteWorkout(Number(planId));
    await until(
      'both deletions applied by the poll of /v2/workouts/changed',
      async () =>
        !(await read('activity', done)).includes(activityId) &&
        !(await read('plannedWorkout', ahead)).includes(planId),
      { timeoutMs: 60_000 },
    );
    const sent = await events();
    const ride = sent
      .filter((event) => event.type === 'activity')
      .flatMap((event) => event.body.data as { metadata: Json }[])
      .filter((record) => record.metadata.summary_id === activityId);
    assert.equal(ride.length, 1);
    assert.equal(ride[0]!.metadata.upload_type, 4, 'the ride is sent marked Delete');
    const notice = sent.find(
      (event) =>
        event.type === 'data_deleted' &&
        (event.body.deleted as { metadata: Json }[]).some((entry) => entry.metadata.id === planId),
    );
    assert.ok(notice, 'a data_deleted event names the plan');
    assert.equal(notice.body.data_type, 'plannedWorkout');
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
