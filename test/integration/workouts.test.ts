// Workout templates and planned workouts (issue 14, item 2): templates per developer, planning
// pushes to the provider (SANDBOX) or queues for an on-device source, list/get/reschedule/delete,
// provider-created workouts in the list with their body under details, and the older
// /v2/plannedWorkout alias over the same store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { insertUser } from '../helpers/users.ts';

type Json = Record<string, unknown>;
type Planned = Json & {
  planned_workout_id: string | null;
  workout_id: string | null;
  planned_date: string;
  provider_workout_id: string | null;
  is_external: boolean;
  coercion_warnings: string | null;
  athlete_metrics: Json | null;
  details: { metadata: Json; steps: (Json & { steps?: Json[] })[] };
};

const template = (overrides: Json = {}): Json => ({
  name: 'Threshold intervals',
  description: '4 × 5 min',
  sport: 'running',
  environment: 'outdoor',
  step_blocks: [
    {
      completion_condition: { type: 'reps', value: 1 },
      steps: [{ completion_condition: { type: 'time', value: 600 }, intensity_type: 'warmup' }],
    },
    {
      completion_condition: { type: 'reps', value: 4 },
      steps: [
        {
          completion_condition: { type: 'time', value: 300 },
          intensity_type: 'active',
          intensity_targets: [
            { target_type: 'heart_rate_threshold_percentage', value_low: 95, value_high: 100 },
          ],
        },
        { completion_condition: { type: 'distance', value: 400 }, intensity_type: 'recovery' },
      ],
    },
  ],
  estimated_duration_seconds: 2700,
  ...overrides,
});

describe('workout templates and planned workouts', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    service = await startTestService({ env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
    developer = await createDeveloper(service.ctx);
    ({ userId } = await connectSandboxUser(service.app, developer));
  });
  after(async () => {
    await service?.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    who = developer,
  ) =>
    service.app.inject({
      method,
      url,
      headers: who.headers,
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });
  const createTemplate = async (body: Json = template()) => {
    const response = await call('POST', '/v2/workouts', body);
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { workout_id: string }).workout_id;
  };
  const plan = async (workoutId: string, body: Json, user = userId) => {
    const response = await call('POST', `/v2/workouts/${workoutId}/plan?user_id=${user}`, body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json() as {
      planned_workout_id: string;
      provider_workout_id?: string;
      coercion_warnings?: string;
    };
  };
  const list = async (query = '', user = userId) => {
    const response = await call('GET', `/v2/plannedWorkouts?user_id=${user}${query}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Planned[];
  };

  test('templates: create, list, get (with workout_id), another developer sees none', async () => {
    const id = await createTemplate(template({ workout_id: 'ignored' }));
    assert.match(id, /^\d+$/);
    const listed = (await call('GET', '/v2/workouts')).json() as Json[];
    assert.ok(listed.some((entry) => entry.workout_id === id && entry.name === 'Threshold intervals'));
    const one = (await call('GET', `/v2/workouts/${id}`)).json() as Json;
    assert.equal(one.workout_id, id);
    assert.equal(one.sport, 'running');

    const stranger = await createDeveloper(service.ctx);
    assert.deepEqual((await call('GET', '/v2/workouts', undefined, stranger)).json(), []);
    assert.equal((await call('GET', `/v2/workouts/${id}`, undefined, stranger)).statusCode, 404);
    assert.equal(
      problemOf(await call('GET', '/v2/workouts/abc')).body.detail,
      'invalid workout_id: expected a positive integer id',
    );
    assert.equal(
      (await call('POST', '/v2/workouts', { name: 'x', sport: 'sailing', step_blocks: [] })).statusCode,
      400,
    );
  });

  test('planning pushes to the provider, personalises targets, and lists with the body in numeric form', async () => {
    const id = await createTemplate();
    const planned = await plan(id, { planned_date: '2024-10-05', threshold_heart_rate: 170 });
    assert.match(planned.planned_workout_id, /^\d+$/);
    assert.ok(planned.provider_workout_id, 'the SANDBOX provider assigns its id');

    const [mine] = (await list('&start_date=2024-10-05&end_date=2024-10-05')).filter(
      (entry) => entry.planned_workout_id === planned.planned_workout_id,
    );
    assert.ok(mine);
    assert.equal(mine.workout_id, id);
    assert.equal(mine.planned_date, '2024-10-05');
    assert.equal(mine.is_external, false);
    assert.equal(mine.provider_workout_id, planned.provider_workout_id);
    assert.deepEqual(mine.athlete_metrics, {
      threshold_heart_rate: 170,
      max_heart_rate: null,
      threshold_speed: null,
      ftp: null,
      pool_length_meters: null,
    });
    assert.equal(mine.details.metadata.type, 8, 'running is ActivityType 8');
    assert.equal(mine.details.metadata.planned_date, '2024-10-05');
    assert.equal(mine.details.metadata.id, planned.provider_workout_id);
    const [warmup, repeat] = mine.details.steps;
    assert.deepEqual(warmup, {
      type: 0,
      order: 1,
      name: null,
      description: null,
      intensity: 1,
      durations: [{ duration_type: 0, seconds: 600 }],
      targets: [],
    });
    assert.equal(repeat?.type, 1, 'a block done 4 times is a repetition step');
    assert.deepEqual(repeat?.durations, [{ duration_type: 9, reps: 4 }]);
    const [work, rest] = repeat?.steps ?? [];
    // 95–100 % of a 170 bpm threshold, for this plan: 161.5–170 bpm.
    assert.deepEqual(work?.targets, [{ target_type: 1, hr_bpm_low: 161.5, hr_bpm_high: 170 }]);
    assert.deepEqual(rest?.durations, [{ duration_type: 1, distance_meters: 400 }]);

    const summary = (
      await call('GET', `/v2/plannedWorkouts/${planned.planned_workout_id}?user_id=${userId}`)
    ).json();
    assert.deepEqual(summary, {
      planned_workout_id: planned.planned_workout_id,
      planned_date: '2024-10-05',
      is_external: false,
      workout_id: id,
      provider_workout_id: planned.provider_workout_id,
    });
  });

  test('without metrics, percentage targets stay percentages; what cannot be said is a coercion warning', async () => {
    const id = await createTemplate(
      template({
        step_blocks: [
          {
            completion_condition: { type: 'reps', value: 1 },
            steps: [
              {
                completion_condition: { type: 'power_percentage', value: 90 },
                intensity_type: 'active',
                intensity_targets: [
                  { target_type: 'heart_rate_max_percentage', value_low: 70, value_high: 80 },
                ],
                controls: [{ type: 'grade', value: 0.02 }],
              },
            ],
          },
        ],
      }),
    );
    const planned = await plan(id, { planned_date: '2024-10-09' });
    assert.match(planned.coercion_warnings ?? '', /power_percentage completion without ftp became open/);
    assert.match(planned.coercion_warnings ?? '', /equipment controls/);
    const [mine] = (await list('&start_date=2024-10-09&end_date=2024-10-09')).filter(
      (entry) => entry.planned_workout_id === planned.planned_workout_id,
    );
    assert.equal(mine?.athlete_metrics, null);
    assert.deepEqual(mine?.details.steps[0]?.targets, [
      { target_type: 13, hr_percentage_low: 70, hr_percentage_high: 80 },
    ]);
    assert.deepEqual(mine?.details.steps[0]?.durations, [{ duration_type: 5 }]);
  });

  test('provider-created workouts appear in the list as external, with their body under details', async () => {
    const listed = await list('&start_date=2024-10-01&end_date=2024-10-31');
    const external = listed.filter((entry) => entry.is_external);
    assert.ok(external.length > 0, 'the SANDBOX generates a plan on about two days in five');
    for (const entry of external) {
      assert.equal(entry.planned_workout_id, null);
      assert.equal(entry.workout_id, null);
      assert.equal(entry.provider_workout_id, entry.details.metadata.id);
      assert.equal(typeof entry.details.metadata.type, 'number');
      assert.equal(entry.planned_date, entry.details.metadata.planned_date);
      assert.ok(entry.planned_date >= '2024-10-01' && entry.planned_date <= '2024-10-31');
    }
    const dates = listed.map((entry) => entry.planned_date);
    assert.deepEqual(dates, [...dates].sort(), 'by planned date');
    assert.equal(
      (await call('GET', `/v2/plannedWorkouts?user_id=${userId}&start_date=2024-10-02&end_date=2024-10-01`))
        .statusCode,
      400,
    );
  });

  test('reschedule replaces the provider copy; delete removes it; unknown and foreign ids are 404', async () => {
    const id = await createTemplate();
    const planned = await plan(id, { planned_date: '2024-11-03' });
    const moved = await call('PATCH', `/v2/plannedWorkouts/${planned.planned_workout_id}?user_id=${userId}`, {
      planned_date: '2024-11-04',
    });
    assert.equal(moved.statusCode, 200, moved.body);
    const summary = moved.json() as Json;
    assert.equal(summary.planned_date, '2024-11-04');
    assert.notEqual(
      summary.provider_workout_id,
      planned.provider_workout_id,
      'pushed again for the new date',
    );
    assert.equal(
      (await list('&start_date=2024-11-03&end_date=2024-11-03')).some(
        (e) => e.planned_workout_id === planned.planned_workout_id,
      ),
      false,
    );
    assert.equal(
      (await list('&start_date=2024-11-04&end_date=2024-11-04')).some(
        (e) => e.planned_workout_id === planned.planned_workout_id,
      ),
      true,
    );

    const removed = await call(
      'DELETE',
      `/v2/plannedWorkouts/${planned.planned_workout_id}?user_id=${userId}`,
    );
    assert.equal(removed.statusCode, 204);
    assert.equal(removed.body, '');
    assert.equal(
      (await call('GET', `/v2/plannedWorkouts/${planned.planned_workout_id}?user_id=${userId}`)).statusCode,
      404,
    );
    assert.equal(
      (await call('DELETE', `/v2/plannedWorkouts/${planned.planned_workout_id}?user_id=${userId}`))
        .statusCode,
      404,
    );

    const stranger = await createDeveloper(service.ctx);
    assert.equal(
      (
        await call(
          'POST',
          `/v2/workouts/${id}/plan?user_id=${userId}`,
          { planned_date: '2024-11-05' },
          stranger,
        )
      ).statusCode,
      404,
    );
    const invalid = problemOf(
      await call('POST', `/v2/workouts/${id}/plan?user_id=${userId}`, { planned_date: '2024-02-30' }),
    );
    assert.equal(invalid.body.detail, 'invalid planned_date: expected YYYY-MM-DD, a real calendar date');
  });

  test('deleting a template deletes every workout planned from it, at the provider too', async () => {
    const id = await createTemplate();
    const first = await plan(id, { planned_date: '2024-12-01' });
    const second = await plan(id, { planned_date: '2024-12-02' });
    const response = await call('DELETE', `/v2/workouts/${id}`);
    assert.equal(response.statusCode, 204, response.body);
    assert.equal((await call('GET', `/v2/workouts/${id}`)).statusCode, 404);
    for (const planned of [first, second])
      assert.equal(
        (await call('GET', `/v2/plannedWorkouts/${planned.planned_workout_id}?user_id=${userId}`)).statusCode,
        404,
      );
  });

  test('an on-device source (APPLE): the plan is queued for the mobile SDK, with no provider id', async () => {
    const appleUser = await insertUser(service.ctx, { developerId: developer.devId, provider: 'APPLE' });
    const id = await createTemplate();
    const planned = await plan(id, { planned_date: '2024-12-10' }, appleUser);
    assert.equal(planned.provider_workout_id, undefined);
    const [mine] = await list('&start_date=2024-12-10&end_date=2024-12-10', appleUser);
    assert.equal(mine?.planned_workout_id, planned.planned_workout_id);
    assert.equal(mine?.provider_workout_id, null);
    const ouraUser = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const refused = problemOf(
      await call('POST', `/v2/workouts/${id}/plan?user_id=${ouraUser}`, { planned_date: '2024-12-10' }),
    );
    assert.equal(refused.status, 400);
    assert.equal(refused.body.detail, 'invalid user_id: planned workouts cannot be written to provider OURA');
  });

  test('the older /v2/plannedWorkout is an alias over the same store', async () => {
    const created = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [
        {
          metadata: { name: 'Easy run', type: 'RUNNING', planned_date: '2025-01-06T07:00:00.000000+00:00' },
          steps: [],
        },
      ],
    });
    assert.equal(created.statusCode, 201, created.body);
    const [logId] = (created.json() as { log_ids: string[] }).log_ids;
    const [viaNew] = (await list('&start_date=2025-01-06&end_date=2025-01-06')).filter(
      (entry) => entry.planned_workout_id === logId,
    );
    assert.ok(viaNew, 'an alias write is listed by /plannedWorkouts');
    assert.equal(viaNew.workout_id, null);
    assert.equal(viaNew.details.metadata.name, 'Easy run');
    assert.equal(viaNew.details.metadata.type, 8);

    const id = await createTemplate();
    const planned = await plan(id, { planned_date: '2025-01-07' });
    const legacy = await call(
      'GET',
      `/v2/plannedWorkout?user_id=${userId}&start_date=2025-01-06&end_date=2025-01-08&to_webhook=false`,
    );
    const records = (legacy.json() as { data: { metadata: Json }[] }).data;
    // The SANDBOX provider also plans workouts of its own on days seeded by the user id (listed by
    // their provider ids, UUIDs); Tributary's planned_workout_ids are numbers.
    const ours = records.filter((record) => /^\d+$/.test(String(record.metadata.id)));
    assert.deepEqual(
      ours.map((record) => [record.metadata.id, record.metadata.planned_date]),
      [
        [logId, '2025-01-06'],
        [planned.planned_workout_id, '2025-01-07'],
      ],
      'the older read shows both, {metadata, steps}, metadata.id the id its DELETE takes',
    );
    const deleted = await call('DELETE', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [planned.planned_workout_id, logId],
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal(
      (await list('&start_date=2025-01-06&end_date=2025-01-08')).filter((e) => !e.is_external).length,
      0,
    );
  });
});
