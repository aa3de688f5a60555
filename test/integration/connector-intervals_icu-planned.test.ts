import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { providerEnv } from '../fakes/fake-server.ts';
import { type IntervalsIcuFake, startIntervalsIcuFake } from '../fakes/intervals_icu.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectThroughFake, untilBackfilled } from '../helpers/connections.ts';
import { ActivityType } from '../../src/model/activity-type.ts';
import { plannedWorkoutTargetTypes } from '../../src/model/planned-workout-enums.ts';
import { addDays, isoDateToDayNumber } from '../../src/model/time.ts';

// Intervals.icu planned workouts end to end: a planned workout posted here becomes a WORKOUT
// event on the athlete's Intervals.icu calendar, its steps in Intervals.icu's workout text;
// DELETE removes it there; a step the text cannot say is a 400 naming it, with nothing written;
// a user who did not grant CALENDAR:WRITE gets a 400 naming the scope. Also: /v2/integrations
// lists the provider as enabled once its credentials are set.
type Json = Record<string, unknown>;

const plan = (date: string, steps: Json[]) => ({
  metadata: {
    name: 'Threshold run',
    type: 'RUNNING',
    planned_date: `${date}T00:00:00+13:00`,
    estimated_duration_seconds: 3000,
  },
  steps,
});
const time = (seconds: number) => ({
  type: 'TimePlannedWorkoutStepDuration',
  duration_type: 'TIME',
  seconds,
});
const steps: Json[] = [
  {
    type: 'RunningPlannedWorkoutStep',
    order: 0,
    name: 'Warmup',
    durations: [time(600)],
    targets: [
      {
        type: 'HRPlannedWorkoutStepTarget',
        target_type: 'HEART_RATE',
        hr_percentage_low: 65,
        hr_percentage_high: 75,
      },
    ],
  },
  {
    type: 'PlannedWorkoutRepeatStep',
    order: 1,
    durations: [{ type: 'RepsPlannedWorkoutStepDuration', duration_type: 'REPS', reps: 4 }],
    steps: [
      {
        type: 'RunningPlannedWorkoutStep',
        order: 0,
        durations: [
          {
            type: 'DistancePlannedWorkoutStepDuration',
            duration_type: 'DISTANCE_METERS',
            distance_meters: 1000,
          },
        ],
        targets: [
          { type: 'PacePlannedWorkoutStepTarget', target_type: 'PACE', pace_minutes_per_kilometer: 4.25 },
        ],
      },
      { type: 'RunningPlannedWorkoutStep', order: 1, durations: [time(90)], targets: [] },
    ],
  },
];

describe('INTERVALS_ICU planned workouts and integrations', () => {
  let fake: IntervalsIcuFake;
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
    fake = await startIntervalsIcuFake();
    service = await startTestService({
      env: {
        ...providerEnv('INTERVALS_ICU', fake),
        INTERVALS_ICU_REQUEST_BUDGET: '100000/1',
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
      },
    });
    developer = await createDeveloper(service.ctx);
    userId = (await connectThroughFake(service.app, developer, 'INTERVALS_ICU', fake, 'icu-plan')).userId;
    await untilBackfilled(service, userId, { types: 6 });
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  test('/v2/integrations lists Intervals.icu as enabled when configured', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/v2/integrations' });
    assert.equal(response.statusCode, 200);
    assert.ok((response.json() as { providers: string[] }).providers.includes('INTERVALS_ICU'));
  });

  test('a planned workout becomes a WORKOUT event in workout text; DELETE removes it there', async () => {
    const created = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [plan('2030-01-08', steps)],
    });
    assert.equal(created.statusCode, 201, created.body);
    const [logId] = (created.json() as { log_ids: string[] }).log_ids;
    const summary = await call('GET', `/v2/plannedWorkouts/${logId}?user_id=${userId}`);
    assert.equal(summary.statusCode, 200, summary.body);
    const providerId = Number((summary.json() as { provider_workout_id: string }).provider_workout_id);
    const event = fake.events.get(providerId);
    assert.ok(event, 'the event exists at Intervals.icu');
    assert.equal(event.category, 'WORKOUT');
    assert.equal(event.start_date_local, '2030-01-08T00:00:00', 'filed under its local date');
    assert.equal(event.type, 'Run');
    assert.equal(event.moving_time, 3000);
    assert.equal(event.description, '- Warmup 10m 65-75% HR\n\n4x\n- 1km 4:15/km Pace\n- 1m30s');

    const deleted = await call('DELETE', `/v2/plannedWorkout?user_id=${userId}`, { data: [logId] });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal(fake.events.has(providerId), false, 'deleted at Intervals.icu');
  });

  test('a step the workout text cannot say is a 400 naming it, and nothing is written', async () => {
    const before = fake.events.size;
    const bpm = [
      {
        ...steps[0],
        targets: [
          {
            type: 'HRPlannedWorkoutStepTarget',
            target_type: 'HEART_RATE',
            hr_bpm_low: 120,
            hr_bpm_high: 140,
          },
        ],
      },
    ];
    const refused = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [plan('2030-01-09', steps), plan('2030-01-10', bpm)],
    });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.body, /steps\[0\] \(\\?"Warmup\\?"\).*percentage of max HR/);
    assert.equal(fake.events.size, before, 'the valid workout of the batch was not written either');
  });

  test('the calendar’s workouts are read back as planned workouts, steps parsed', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const response = await call(
      'GET',
      `/v2/plannedWorkout?user_id=${userId}&start_date=${from}&end_date=${today}&to_webhook=false`,
    );
    assert.equal(response.statusCode, 200, response.body);
    const data = (response.json() as { data: { metadata: Json; steps: Json[] }[] }).data;
    assert.ok(data.length >= 3, `the coach's weekly rides (${data.length})`);
    const [first] = data;
    assert.equal(first!.metadata.type, ActivityType.BIKING);
    assert.equal(first!.metadata.estimated_tss, 78);
    assert.equal(first!.metadata.estimated_if, 0.825);
    const repeat = first!.steps.find((step) => Array.isArray(step.steps)) as {
      steps: Json[];
      durations: Json[];
    };
    assert.equal(repeat.durations[0]!.reps, 3);
    const [target] = repeat.steps[0]!.targets as Json[];
    assert.equal(target!.target_type, plannedWorkoutTargetTypes.indexOf('POWER'));
    assert.equal(target!.power_percentage_low, 88);
    assert.equal(target!.power_percentage_high, 94);
  });

  test('a window of the coming ten days reads every plan in it, not only tomorrow’s (issue 41)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const ids = [3, 6, 9].map((ahead) => {
      const id = 900_000 + ahead;
      fake.events.set(id, {
        id,
        athlete: fake.consent.account,
        category: 'WORKOUT',
        start_date_local: `${addDays(today, ahead)}T00:00:00`,
        type: 'Ride',
        name: `Coach’s ride +${ahead}`,
        description: '- 20m 60-70%',
        moving_time: 1200,
      });
      return String(id);
    });
    const response = await call(
      'GET',
      `/v2/plannedWorkout?user_id=${userId}&start_date=${today}&end_date=${addDays(today, 10)}&to_webhook=false`,
    );
    assert.equal(response.statusCode, 200, response.body);
    const data = (response.json() as { data: { provider_workout_id?: string; metadata?: Json }[] }).data;
    const read = new Set(data.map((workout) => String(workout.provider_workout_id ?? workout.metadata?.id)));
    for (const id of ids) assert.ok(read.has(id), `plan ${id} is in the answer (${[...read].join(', ')})`);
  });

  test('percentage targets are written as the workout syntax guide writes them (issue 41)', async () => {
    const percent = (target: Json): Json => ({
      type: 'CyclingPlannedWorkoutStep',
      durations: [time(300)],
      targets: [target],
    });
    const created = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [
        plan('2030-02-01', [
          percent({ target_type: 'POWER_PERCENTAGE', power_percentage_low: 55, power_percentage_high: 65 }),
          percent({
            target_type: 'HEART_RATE_THRESHOLD_PERCENTAGE',
            hr_percentage_low: 90,
            hr_percentage_high: 95,
          }),
        ]),
      ],
    });
    assert.equal(created.statusCode, 201, created.body);
    const [logId] = (created.json() as { log_ids: string[] }).log_ids;
    const summary = await call('GET', `/v2/plannedWorkouts/${logId}?user_id=${userId}`);
    const providerId = Number((summary.json() as { provider_workout_id: string }).provider_workout_id);
    assert.equal(fake.events.get(providerId)?.description, '- 5m 55-65%\n- 5m 90-95% LTHR');
  });

  test('a Strava stub is not stored as an activity; the day’s other activities are (issue 41)', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const day = [2, 3, 4, 5, 6]
      .map((back) => addDays(today, -back))
      .find((date) => isoDateToDayNumber(date) % 5 === 0)!;
    const stubId = String(isoDateToDayNumber(day) * 10 + 9);
    const response = await call(
      'GET',
      `/v2/activity?user_id=${userId}&start_date=${addDays(day, -1)}&end_date=${addDays(day, 2)}&to_webhook=false`,
    );
    assert.equal(response.statusCode, 200, response.body);
    const ids = (response.json() as { data: { metadata: { summary_id: string } }[] }).data.map(
      (record) => record.metadata.summary_id,
    );
    assert.ok(ids.length >= 4, `the day’s activities (${ids.length})`);
    assert.ok(!ids.includes(stubId), 'no record of the stub');
  });

  test('without CALENDAR:WRITE the write is refused naming the scope', async () => {
    fake.consent.account = 'account-2';
    fake.consent.grantScopes = ['ACTIVITY:READ', 'WELLNESS:READ'];
    const other = await connectThroughFake(service.app, developer, 'INTERVALS_ICU', fake, 'icu-no-calendar');
    const refused = await call('POST', `/v2/plannedWorkout?user_id=${other.userId}`, {
      data: [plan('2030-01-11', steps)],
    });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.body, /CALENDAR:WRITE/);
  });

  test('a 401 with no refresh token to fall back on breaks the connection once, reported as such', async () => {
    fake.inject({ kind: 'unauthorized', times: 5, match: '/api/v1/athlete/0/wellness' });
    const read = await call(
      'GET',
      `/v2/daily?user_id=${userId}&start_date=2025-01-01&end_date=2025-01-05&to_webhook=false`,
    );
    assert.notEqual(read.statusCode, 200, 'the read cannot be answered');
    assert.ok(read.statusCode < 500 || read.statusCode === 502 || read.statusCode === 503, read.body);
    const row = await service.ctx.db
      .selectFrom('connections')
      .select('status')
      .where('id', '=', userId)
      .executeTakeFirst();
    assert.notEqual(row?.status, 'active', 'the connection is no longer active');
    assert.equal(
      fake.requests.filter(
        (request) => request.path === '/api/oauth/token' && request.body.includes('refresh_token'),
      ).length,
      0,
      'no refresh was attempted: Intervals.icu issues none',
    );
  });
});
