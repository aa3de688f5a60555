import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Clock } from '../../src/core/clock.ts';
import { MOST_RECENT_DATA_GRAIN_MS } from '../../src/features/connections/stamps-repo.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { DashboardClient } from '../helpers/dashboard.ts';

/**
 * A user's `most_recent_data_at` (the wire's user object, the dashboard's "Most recent data") is
 * when records were last stored for that connection: written with each batch of records, moved
 * forward only, at most once per MOST_RECENT_DATA_GRAIN_MS; a read that stores nothing leaves it.
 */
describe('most_recent_data_at', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let now = Date.parse('2026-11-20T10:00:00Z');
  const clock: Clock = { now: () => new Date(now) };

  before(async () => {
    service = await startTestService({ clock, work: false });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => service?.close());

  const userInfo = async (userId: string) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/userInfo?user_id=${userId}`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return JSON.parse(response.body) as { user: { most_recent_data_at: string | null } };
  };
  const read = async (userId: string, start: string, end: string) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/activity?user_id=${userId}&start_date=${start}&end_date=${end}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return JSON.parse(response.body) as { data: unknown[] };
  };

  test('is null until records are stored, then the time they were, and the dashboard shows it', async () => {
    const { userId } = await connectSandboxUser(service.app, developer, { referenceId: 'recent' });
    assert.equal((await userInfo(userId)).user.most_recent_data_at, null);

    now += 1_000;
    const stored = await read(userId, '2026-11-01', '2026-11-15');
    assert.ok(stored.data.length > 0, 'the sandbox provider had activities to store');
    const first = (await userInfo(userId)).user.most_recent_data_at;
    assert.equal(first && Date.parse(first), now);

    const dashboard = new DashboardClient(service.app);
    assert.equal((await dashboard.signIn(developer.devId, developer.apiKey)).statusCode, 303);
    const page = await dashboard.get(`/dashboard/users/${userId}`);
    assert.equal(page.statusCode, 200);
    const shown = /<th>Most recent data<\/th><td>(.*?)<\/td>/.exec(page.body)?.[1];
    assert.equal(shown, `<time datetime="${new Date(first!).toISOString()}">2026-11-20 10:00:01 UTC</time>`);

    // Within the grain a new batch does not touch the row; past it, the stamp moves on.
    now += MOST_RECENT_DATA_GRAIN_MS / 2;
    await read(userId, '2026-10-01', '2026-10-15');
    assert.equal((await userInfo(userId)).user.most_recent_data_at, first);
    now += MOST_RECENT_DATA_GRAIN_MS;
    await read(userId, '2026-09-01', '2026-09-15');
    const later = (await userInfo(userId)).user.most_recent_data_at;
    assert.equal(later && Date.parse(later), now);

    // A read of days already synced stores nothing: the stamp stays.
    now += 2 * MOST_RECENT_DATA_GRAIN_MS;
    await read(userId, '2026-09-01', '2026-09-15');
    assert.equal((await userInfo(userId)).user.most_recent_data_at, later);
  });
});
