// Backwards compatibility (issue 14, item 5): clients built against the older contract (the 2.1 SDK,
// the V5 document, the docs' numeric forms) keep working where the vendor's current schema allows.
// What they send in the older shapes is accepted and stored in the current one; the older
// /v2/plannedWorkout read keeps its {metadata, steps} shape over the same store as /plannedWorkouts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { insertUser } from '../helpers/users.ts';

type Json = Record<string, unknown>;

describe('backwards compatibility with the older contract', () => {
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

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    service.app.inject({
      method,
      url,
      headers: developer.headers,
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });

  test('planned workouts posted with SDK names, V5 step kinds, docs numbers and misspellings are accepted', async () => {
    const sdk = {
      metadata: {
        name: 'Pool session',
        type: 'SWIMMING',
        planned_date: '2025-02-03T06:30:00.000000+01:00',
        estimated_duration_seconds: 2400,
      },
      steps: [
        {
          type: 'SwimmingPlannedWorkoutStep',
          order: 1,
          intensity: 'WARMUP',
          stroke_type: 'FREESTYLE',
          equipement_type: 'SWIM_KICKBOARD',
          durations: [
            {
              type: 'DistancePlannedWorkoutStepDuration',
              duration_type: 'DISTANCE_METERS',
              distance_meters: 200,
            },
          ],
          targets: [{ type: 'PlannedWorkoutStepTarget', target_type: 'OPEN' }],
        },
        {
          type: 'PlannedWorkoutRepeatStep',
          order: 2,
          durations: [{ type: 'RepsPlannedWorkoutStepDuration', reps: 6 }],
          steps: [{ type: 'SwimmingPlannedWorkoutStep', order: 3, intensity: 'INTERVAL' }],
        },
      ],
    };
    const v5AndDocs = {
      metadata: { name: 'Legs', type: 80, planned_date: '2025-02-04' },
      steps: [
        {
          type: 'STEP',
          order: 1,
          intensity: 5,
          exercice_name: 'Back squat',
          exercice_category: 'SQUAT',
          weight_kg: 60,
          durations: [{ duration_type: 9, reps: 8 }],
        },
        { type: 'REPEAT_STEP', order: 2, durations: [{ duration_type: 'REPS', reps: 3 }], steps: [] },
      ],
    };
    const created = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, { data: [sdk, v5AndDocs] });
    assert.equal(created.statusCode, 201, created.body);
    const logIds = (created.json() as { log_ids: string[] }).log_ids;
    assert.equal(logIds.length, 2);

    // The current API shows both in the current schema's numeric form.
    const listed = (
      await call('GET', `/v2/plannedWorkouts?user_id=${userId}&start_date=2025-02-03&end_date=2025-02-04`)
    ).json() as { planned_workout_id: string; planned_date: string; details: Json & { steps: Json[] } }[];
    const byId = new Map(listed.map((entry) => [entry.planned_workout_id, entry]));
    const swim = byId.get(logIds[0]!)!;
    assert.equal(swim.planned_date, '2025-02-03', 'the local date of the posted datetime');
    assert.equal((swim.details.metadata as Json).type, 82);
    assert.deepEqual(swim.details.steps[0], {
      type: 0,
      order: 1,
      intensity: 1,
      stroke_type: 1,
      equipment_type: [2],
      durations: [{ duration_type: 1, distance_meters: 200 }],
      targets: [{ target_type: 2 }],
    });
    assert.equal(swim.details.steps[1]!.type, 1, 'the SDK repeat step is a repetition block');
    const legs = byId.get(logIds[1]!)!;
    assert.deepEqual(legs.details.steps[0], {
      type: 0,
      order: 1,
      intensity: 5,
      exercise_name: 'Back squat',
      exercise_category: 29,
      weight_kg: 60,
      durations: [{ duration_type: 9, reps: 8 }],
    });
    assert.deepEqual(legs.details.steps[1]!.durations, [{ duration_type: 9, reps: 3 }]);
  });

  test('the older read keeps {metadata, steps} with the ids its DELETE takes, provider ids included', async () => {
    const created = await call('POST', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [{ metadata: { name: 'Tempo', type: 'RUNNING', planned_date: '2025-03-10' }, steps: [] }],
    });
    const [logId] = (created.json() as { log_ids: string[] }).log_ids;
    const read = await call(
      'GET',
      `/v2/plannedWorkout?user_id=${userId}&start_date=2025-03-10&end_date=2025-03-11&to_webhook=false`,
    );
    assert.equal(read.statusCode, 200, read.body);
    const body = read.json() as { type: string; user: Json; data: { metadata: Json; steps: unknown[] }[] };
    assert.equal(body.type, 'plannedWorkout');
    assert.equal((body.user as { user_id: string }).user_id, userId);
    const [record] = body.data.filter((entry) => entry.metadata.id === logId);
    assert.ok(record, 'listed under the id POST returned');
    assert.equal(record.metadata.name, 'Tempo');
    assert.equal(record.metadata.planned_date, '2025-03-10');
    assert.deepEqual(record.steps, []);

    // A client that kept the provider's id (what log_ids were before) can delete with it.
    const current = (await call('GET', `/v2/plannedWorkouts/${logId}?user_id=${userId}`)).json() as {
      provider_workout_id: string;
    };
    const deleted = await call('DELETE', `/v2/plannedWorkout?user_id=${userId}`, {
      data: [current.provider_workout_id],
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual((deleted.json() as { processed_data: unknown[] }).processed_data, [
      { id: current.provider_workout_id, response_code: 200 },
    ]);
    assert.equal((await call('GET', `/v2/plannedWorkouts/${logId}?user_id=${userId}`)).statusCode, 404);
  });

  test('records an SDK or connector still sends in older shapes are stored and served in the current ones', async () => {
    // An on-device source: nothing is fetched on read, so the read shows exactly what was stored.
    const appleUser = await insertUser(service.ctx, { developerId: developer.devId, provider: 'APPLE' });
    const user = await service.ctx.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', appleUser)
      .executeTakeFirstOrThrow();
    const day = {
      start_time: '2023-05-01T00:00:00.000000+00:00',
      end_time: '2023-05-02T00:00:00.000000+00:00',
    };
    await service.ctx.db.transaction().execute((trx) =>
      service.ctx.data.ingest(
        trx,
        user,
        'menstruation',
        [
          {
            metadata: day,
            menstruation_data: {
              current_phase: 'follicular',
              cycle_length_days: '29',
              is_predicted_cycle: 'true',
            },
          },
        ],
        undefined,
        { emit: false },
      ),
    );
    await service.ctx.db.transaction().execute((trx) =>
      service.ctx.data.ingest(
        trx,
        user,
        'sleep',
        [
          {
            metadata: { ...day, summary_id: 'legacy-night', upload_type: 1 },
            data_enrichment: {
              sleep_contributors: [{ contributor_name: 'efficiency', contributor_score: 91 }],
            },
          },
        ],
        undefined,
        { emit: false },
      ),
    );
    const read = async (type: string) =>
      (
        (
          await call(
            'GET',
            `/v2/${type}?user_id=${appleUser}&start_date=2023-05-01&end_date=2023-05-02&to_webhook=false`,
          )
        ).json() as { data: Json[] }
      ).data;
    const [menstruation] = (await read('menstruation')).filter(
      (record) => (record.metadata as Json).start_time === day.start_time,
    );
    assert.deepEqual(menstruation?.menstruation_data, {
      current_phase: 2,
      cycle_length_days: 29,
      is_predicted_cycle: true,
    });
    const [sleep] = (await read('sleep')).filter(
      (record) => (record.metadata as Json).summary_id === 'legacy-night',
    );
    assert.deepEqual((sleep?.data_enrichment as Json).sleep_contributors, { efficiency: 91 });
  });
});
