import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { plannedRun } from '../helpers/planned-workouts.ts';
import { authenticateUser, connectSandboxUser } from '../helpers/connections.ts';
import { insertUser } from '../helpers/users.ts';

const workout = plannedRun;

describe('planned workouts', () => {
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

  const call = (method: 'POST' | 'DELETE', user: string, payload: unknown, who: TestDeveloper = developer) =>
    service.app.inject({
      method,
      url: `/v2/plannedWorkout?user_id=${user}`,
      headers: who.headers,
      payload: payload as object,
    });
  const listed = async (start: string, end: string) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/plannedWorkout?user_id=${userId}&start_date=${start}&end_date=${end}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { data: { metadata: { id: string; name: string } }[] }).data;
  };

  test('POST creates them (ids in posted order), GET lists them, DELETE removes them (207 when an id is unknown)', async () => {
    const created = await call('POST', userId, {
      data: [
        workout('Tempo', '2024-09-02T07:00:00.000000+00:00'),
        workout('Long run', '2024-09-04T07:00:00.000000+00:00'),
      ],
    });
    assert.equal(created.statusCode, 201, created.body);
    const body = created.json() as { user: { user_id: string }; log_ids: string[]; message: string };
    assert.equal(body.user.user_id, userId);
    assert.equal(body.message, 'Planned workout successfully created');
    assert.equal(body.log_ids.length, 2);
    assert.notEqual(body.log_ids[0], body.log_ids[1]);

    const names = new Map(
      (await listed('2024-09-01', '2024-09-08')).map((record) => [record.metadata.id, record.metadata.name]),
    );
    assert.equal(names.get(body.log_ids[0]!), 'Tempo');
    assert.equal(names.get(body.log_ids[1]!), 'Long run');

    const unknown = '00000000-0000-4000-8000-000000000001';
    const mixed = await call('DELETE', userId, { data: [body.log_ids[0], unknown] });
    assert.equal(mixed.statusCode, 207, mixed.body);
    assert.deepEqual(mixed.json().processed_data, [
      { id: body.log_ids[0], response_code: 200 },
      { id: unknown, response_code: 404 },
    ]);
    const all = await call('DELETE', userId, { data: [body.log_ids[1]] });
    assert.equal(all.statusCode, 200, all.body);
    assert.deepEqual(all.json().processed_data, [{ id: body.log_ids[1], response_code: 200 }]);

    const remaining = (await listed('2024-09-01', '2024-09-08')).map((record) => record.metadata.id);
    assert.ok(!remaining.includes(body.log_ids[0]!));
    assert.ok(!remaining.includes(body.log_ids[1]!));
  });

  test('the generated SANDBOX plan is readable too, and deletable', async () => {
    const generated = await listed('2024-10-01', '2024-10-31');
    assert.ok(generated.length > 0);
    const [first] = generated;
    const response = await call('DELETE', userId, { data: [first!.metadata.id] });
    assert.equal(response.statusCode, 200);
    assert.ok(
      !(await listed('2024-10-01', '2024-10-31')).some((record) => record.metadata.id === first!.metadata.id),
    );
  });

  test('a provider that cannot accept planned workouts: 400', async () => {
    const ouraUser = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    for (const method of ['POST', 'DELETE'] as const) {
      const payload =
        method === 'POST' ? { data: [workout('x', '2024-09-02T07:00:00.000000+00:00')] } : { data: ['a'] };
      const problem = problemOf(await call(method, ouraUser, payload));
      assert.equal(problem.status, 400);
      assert.equal(
        problem.body.detail,
        'invalid user_id: planned workouts cannot be written to provider OURA',
      );
    }
  });

  test('body and parameter errors: 400 naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /^missing data: required field$/],
      [{ data: [] }, /^invalid data: /],
      [{ data: [{ metadata: { type: 'FLYING_CARPET' } }] }, /^invalid data\.0\.metadata/],
    ];
    for (const [payload, detail] of cases) {
      const problem = problemOf(await call('POST', userId, payload));
      assert.equal(problem.status, 400, JSON.stringify(payload));
      assert.match(problem.body.detail, detail);
    }
    const emptyDelete = problemOf(await call('DELETE', userId, { data: [] }));
    assert.equal(emptyDelete.status, 400);
    assert.match(emptyDelete.body.detail, /^invalid data: /);
    const badUser = problemOf(
      await call('POST', 'nope', { data: [workout('x', '2024-09-02T07:00:00.000000+00:00')] }),
    );
    assert.equal(badUser.body.detail, 'invalid user_id: expected a UUID');
    const missingUser = await service.app.inject({
      method: 'POST',
      url: '/v2/plannedWorkout',
      headers: developer.headers,
      payload: { data: [workout('x', '2024-09-02T07:00:00.000000+00:00')] },
    });
    assert.equal(problemOf(missingUser).body.detail, 'missing user_id: required parameter');
  });

  test('another developer’s user: 404; a pending user: 400', async () => {
    const stranger = await createDeveloper(service.ctx);
    const problem = problemOf(
      await call('POST', userId, { data: [workout('x', '2024-09-02T07:00:00.000000+00:00')] }, stranger),
    );
    assert.equal(problem.status, 404);
    assert.equal(problemOf(await call('DELETE', userId, { data: ['a'] }, stranger)).status, 404);
    const pending = await authenticateUser(service.app, developer, 'SANDBOX');
    const pendingProblem = problemOf(
      await call('POST', pending.userId, { data: [workout('x', '2024-09-02T07:00:00.000000+00:00')] }),
    );
    assert.equal(pendingProblem.status, 400);
    assert.match(pendingProblem.body.detail, /has not completed authentication/);
  });
});
