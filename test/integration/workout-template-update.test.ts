// `PUT /v2/workouts/{workout_id}` (issue 45 item 3; the vendor's changelog, Oct 2026) over a real
// socket: the template is replaced and every upcoming workout planned from it is re-sent — at
// Garmin (Training API fake) the new copy is created and scheduled and the old one deleted, with
// the athlete metrics it was planned with; a past planned workout is left as it was; a body the
// fake refuses as Garmin would (a step lasting 0 s) is a 207 naming the planned workout, which
// keeps its previous copy; the 400s and the 404.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { providerEnv } from '../fakes/fake-server.ts';
import { type GarminFake, startGarminFake } from '../fakes/garmin.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser, connectThroughFake } from '../helpers/connections.ts';
import { socketJson } from '../helpers/socket-json.ts';

type Json = Record<string, unknown>;

const template = (name: string, seconds = 600): Json => ({
  name,
  description: 'Threshold work',
  sport: 'running',
  environment: 'outdoor',
  step_blocks: [
    {
      completion_condition: { type: 'reps', value: 1 },
      steps: [{ completion_condition: { type: 'time', value: seconds }, intensity_type: 'warmup' }],
    },
    {
      completion_condition: { type: 'reps', value: 3 },
      steps: [
        {
          completion_condition: { type: 'time', value: 300 },
          intensity_type: 'active',
          intensity_targets: [
            { target_type: 'heart_rate_threshold_percentage', value_low: 95, value_high: 100 },
          ],
        },
      ],
    },
  ],
});

describe('PUT /v2/workouts/{workout_id}: a template updated and re-sent', () => {
  let garmin: GarminFake;
  let service: TestService;
  let developer: TestDeveloper;
  let base: string;
  let garminUser: string;
  let sandboxUser: string;

  const call = socketJson(
    () => base,
    () => developer.headers,
  );
  const training = () => garmin.accountOf('account-1').training;
  const plan = async (workoutId: string, userId: string, body: Json) => {
    const planned = await call('POST', `/v2/workouts/${workoutId}/plan?user_id=${userId}`, body);
    assert.equal(planned.status, 201, JSON.stringify(planned.json));
    return planned.json as { planned_workout_id: string; provider_workout_id?: string };
  };
  const summary = async (userId: string, plannedId: string) =>
    (await call('GET', `/v2/plannedWorkouts/${plannedId}?user_id=${userId}`)).json as Json;

  before(async () => {
    garmin = await startGarminFake({ offsetMinutes: 60 });
    service = await startTestService({
      env: {
        ...providerEnv('GARMIN', garmin),
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
        SANDBOX_ARRIVAL_MINUTES: 'off',
      },
    });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    garmin.endpointUrl = `${base}/providers/GARMIN/webhook`;
    developer = await createDeveloper(service.ctx);
    garminUser = (await connectThroughFake(service.app, developer, 'GARMIN', garmin, 'tpl-garmin')).userId;
    sandboxUser = (await connectSandboxUser(service.app, developer)).userId;
  });
  after(async () => {
    await service?.close();
    await garmin?.close();
  });

  test('upcoming planned workouts are re-sent from the new template; past ones stay', async () => {
    const created = await call('POST', '/v2/workouts', template('Threshold v1'));
    const workoutId = String(created.json.workout_id);
    const upcoming = await plan(workoutId, garminUser, {
      planned_date: '2030-03-04',
      threshold_heart_rate: 170,
    });
    const past = await plan(workoutId, garminUser, { planned_date: '2020-03-04' });
    const onSandbox = await plan(workoutId, sandboxUser, { planned_date: '2030-03-05' });
    const oldGarminId = Number(upcoming.provider_workout_id);
    assert.equal(training().workouts.get(oldGarminId)?.workoutName, 'Threshold v1');
    const pastGarminId = Number(past.provider_workout_id);

    const put = await call('PUT', `/v2/workouts/${workoutId}`, template('Threshold v2', 900));
    assert.equal(put.status, 200, JSON.stringify(put.json));
    assert.equal(put.json.status, 'success');
    assert.deepEqual(
      [...(put.json.planned_workouts_updated as string[])].sort(),
      [upcoming.planned_workout_id, onSandbox.planned_workout_id].sort(),
    );
    assert.deepEqual(put.json.planned_workouts_failed, []);

    // The template itself.
    const read = await call('GET', `/v2/workouts/${workoutId}`);
    assert.equal(read.json.name, 'Threshold v2');
    assert.equal(read.json.workout_id, workoutId);

    // At Garmin: a new workout with the new body, scheduled on the same day; the old one gone.
    const now = await summary(garminUser, upcoming.planned_workout_id);
    const newGarminId = Number(now.provider_workout_id);
    assert.notEqual(newGarminId, oldGarminId);
    assert.equal(training().workouts.has(oldGarminId), false, 'the previous copy is deleted at Garmin');
    const copy = training().workouts.get(newGarminId) as unknown as Json & { segments: { steps: Json[] }[] };
    assert.equal(copy.workoutName, 'Threshold v2');
    assert.equal(copy.segments[0]!.steps[0]!.durationValue, 900);
    // The metrics it was planned with still personalise it: 95–100 % of 170 bpm.
    const repeat = copy.segments[0]!.steps[1] as { steps: Json[] };
    assert.deepEqual([repeat.steps[0]!.targetValueLow, repeat.steps[0]!.targetValueHigh], [161.5, 170]);
    assert.ok(
      training().schedules.some(
        (schedule) => schedule.workoutId === newGarminId && schedule.date === '2030-03-04',
      ),
    );
    // The past one is as it was.
    assert.equal(
      (await summary(garminUser, past.planned_workout_id)).provider_workout_id,
      String(pastGarminId),
    );
    assert.equal(training().workouts.get(pastGarminId)?.workoutName, 'Threshold v1');
    // The list shows the new body.
    const listed = await call(
      'GET',
      `/v2/plannedWorkouts?user_id=${sandboxUser}&start_date=2030-03-01&end_date=2030-03-31`,
    );
    const mine = (listed.json as unknown as Json[]).find(
      (found) => found.planned_workout_id === onSandbox.planned_workout_id,
    )!;
    assert.equal(((mine.details as Json).metadata as Json).name, 'Threshold v2');
  });

  test('a body the provider refuses: 207 naming the planned workout, which keeps its previous copy', async () => {
    const workoutId = String((await call('POST', '/v2/workouts', template('Tempo'))).json.workout_id);
    const planned = await plan(workoutId, garminUser, { planned_date: '2030-04-01' });
    const onSandbox = await plan(workoutId, sandboxUser, { planned_date: '2030-04-01' });
    // Garmin refuses a step whose duration is not positive (fakes/garmin-training.ts).
    const put = await call('PUT', `/v2/workouts/${workoutId}`, template('Tempo, broken', 0));
    assert.equal(put.status, 207, JSON.stringify(put.json));
    assert.equal(put.json.status, 'partial');
    const failed = put.json.planned_workouts_failed as { planned_workout_id: string; reason: string }[];
    assert.deepEqual(
      failed.map((entry) => entry.planned_workout_id),
      [planned.planned_workout_id],
    );
    assert.match(failed[0]!.reason, /provider/);
    assert.deepEqual(put.json.planned_workouts_updated, [onSandbox.planned_workout_id]);
    const kept = await summary(garminUser, planned.planned_workout_id);
    assert.equal(kept.provider_workout_id, planned.provider_workout_id);
    assert.equal(training().workouts.get(Number(planned.provider_workout_id))?.workoutName, 'Tempo');
    // Fixed and sent again: all re-sent.
    const again = await call('PUT', `/v2/workouts/${workoutId}`, template('Tempo, fixed', 420));
    assert.equal(again.status, 200, JSON.stringify(again.json));
    assert.equal(training().workouts.has(Number(planned.provider_workout_id)), false);
  });

  test('GET /v2/plannedWorkouts with start_date/end_date: ours and the provider’s own plans in the window, and its 400s', async () => {
    const workoutId = String((await call('POST', '/v2/workouts', template('Window'))).json.workout_id);
    // The sandbox provider's own plans are of the past weeks: the window ends today.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const [start, end] = [day(-29), day(0)];
    const inside = await plan(workoutId, sandboxUser, { planned_date: day(-5) });
    await plan(workoutId, sandboxUser, { planned_date: day(40) });
    const listed = await call(
      'GET',
      `/v2/plannedWorkouts?user_id=${sandboxUser}&start_date=${start}&end_date=${end}`,
    );
    assert.equal(listed.status, 200, JSON.stringify(listed.json));
    const workouts = listed.json as unknown as Json[];
    assert.ok(
      workouts.every(
        (found) =>
          String(found.planned_date).slice(0, 10) >= start && String(found.planned_date).slice(0, 10) <= end,
      ),
    );
    assert.deepEqual(
      workouts.filter((found) => !found.is_external).map((found) => found.planned_workout_id),
      [inside.planned_workout_id],
    );
    // The sandbox provider holds plans of its own (another app's, as far as the developer knows).
    const external = workouts.filter((found) => found.is_external);
    assert.ok(external.length > 0, 'the provider’s own plans are listed');
    assert.ok(external.every((found) => found.planned_workout_id === null && found.workout_id === null));
    const expect = async (query: string, detail: RegExp) => {
      const answer = await call('GET', `/v2/plannedWorkouts?user_id=${sandboxUser}${query}`);
      assert.equal(answer.status, 400, JSON.stringify(answer.json));
      assert.match(answer.type, /application\/problem\+json/);
      assert.match(String(answer.json.detail), detail);
    };
    await expect('&start_date=2030-05-31&end_date=2030-05-01', /end_date/);
    await expect('&start_date=2030-02-30', /start_date/);
    await expect('&end_date=31-05-2030', /end_date/);
    await expect('&start_date=2020-01-01&end_date=2030-01-01', /end_date/);
  });

  test('400s and 404', async () => {
    const workoutId = String((await call('POST', '/v2/workouts', template('Easy'))).json.workout_id);
    const expect = async (path: string, body: unknown, status: number, detail: RegExp) => {
      const answer = await call('PUT', path, body);
      assert.equal(answer.status, status, JSON.stringify(answer.json));
      assert.match(answer.type, /application\/problem\+json/);
      assert.match(String(answer.json.detail), detail);
    };
    await expect('/v2/workouts/abc', template('x'), 400, /workout_id/);
    await expect(`/v2/workouts/${workoutId}`, { ...template('x'), name: '' }, 400, /name/);
    await expect(`/v2/workouts/${workoutId}`, { ...template('x'), sport: 'jousting' }, 400, /sport/);
    const { step_blocks: _dropped, ...noBlocks } = template('x');
    await expect(`/v2/workouts/${workoutId}`, noBlocks, 400, /step_blocks/);
    await expect('/v2/workouts/999999999', template('x'), 404, /workout_id 999999999/);
    // Nothing changed by the refusals.
    assert.equal((await call('GET', `/v2/workouts/${workoutId}`)).json.name, 'Easy');
  });
});
