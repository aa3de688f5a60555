// Hevy deletions (issue 41): `/v1/workouts/events` carries a deleted workout only as `{type:
// 'deleted', id, deleted_at}`, with no day. The scheduled poll used to note "something was deleted"
// and, with no updated workout beside it, return nothing: the deleted workout was served for ever.
// Now a deletion is applied by id wherever the workout lies: it disappears from reads, and an
// `activity` event carries it marked upload_type 4 (Delete), the contract's mark.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays } from '../../src/model/time.ts';
import { type HevyFake, startHevyFake } from '../fakes/hevy.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { authenticateUser, untilBackfilled } from '../helpers/connections.ts';
import { until } from '../helpers/until.ts';

type Sent = { metadata: { summary_id: string; upload_type: number } };

describe('HEVY: a workout deleted at Hevy is deleted here', () => {
  let fake: HevyFake;
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    fake = await startHevyFake();
    service = await startTestService({
      env: {
        HEVY_ENABLED: 'true',
        HEVY_BASE_URL: fake.baseUrl,
        HEVY_POLL_MINUTES: '0.05',
        HEVY_REQUEST_BUDGET: '100000/1,1000000/3600',
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
      },
    });
    developer = await createDeveloper(service.ctx);
    const link = await authenticateUser(service.app, developer, 'HEVY', { reference_id: 'hevy-deletions' });
    const submitted = await service.app.inject({
      method: 'POST',
      url: link.authUrl.pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        state: link.authUrl.searchParams.get('state') ?? '',
        api_key: fake.newKey('account-1'),
        decision: 'connect',
      }).toString(),
    });
    assert.equal(submitted.statusCode, 303, submitted.body);
    userId = link.userId;
    await untilBackfilled(service, userId);
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  const storedIds = async (day: string) => {
    const read = await service.app.inject({
      method: 'GET',
      url: `/v2/activity?user_id=${userId}&start_date=${day}&end_date=${addDays(day, 1)}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(read.statusCode, 200, read.body);
    return (read.json() as { data: Sent[] }).data.map((record) => record.metadata.summary_id);
  };

  test('the poll removes it from reads and sends it marked Delete', async () => {
    const today = new Date().toISOString().slice(0, 10);
    let day = '';
    let id = '';
    for (let back = 20; back < 60 && !id; back++) {
      day = addDays(today, -back);
      const [workout] = fake.workoutsOn('account-1', day);
      if (workout) id = String(workout.id);
    }
    assert.ok(id, 'a stored workout to delete');
    assert.ok((await storedIds(day)).includes(id), 'served before the deletion');

    fake.deleteWorkout('account-1', id);
    await until('the deletion applied by the poll', async () => !(await storedIds(day)).includes(id), {
      timeoutMs: 60_000,
    });

    const events = await service.ctx.db
      .selectFrom('events')
      .select(['type', 'body'])
      .where('user_id', '=', userId)
      .execute();
    const marked = events
      .filter((event) => event.type === 'activity')
      .flatMap((event) => (JSON.parse(event.body) as { data: Sent[] }).data)
      .filter((record) => record.metadata.summary_id === id);
    assert.equal(marked.length, 1, 'announced once');
    assert.equal(marked[0]!.metadata.upload_type, 4, 'marked upload_type 4 (Delete)');
  });
});
