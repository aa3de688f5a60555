// A provider payload in no documented shape (here a Wahoo workout whose FIT file on the CDN is
// damaged) is a clean, logged normalization error: the read still answers 200 with every other
// workout of the range, the damaged one is left out, and the log names it. Never a TypeError,
// never a failed sync.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { followAuthorize, providerEnv } from '../fakes/fake-server.ts';
import { startWahooFake, type WahooFake } from '../fakes/wahoo.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { logLines } from '../helpers/log-lines.ts';
import { authenticateUser, pathOf } from '../helpers/connections.ts';

type Line = { level: number; msg?: string; item?: string; problem?: string };

describe('a malformed provider payload: a logged normalization error, the rest of the page kept', () => {
  let fake: WahooFake;
  let service: TestService;
  let developer: TestDeveloper;
  const { stream, lines } = logLines<Line>();

  before(async () => {
    fake = await startWahooFake({ historyDays: 20 });
    service = await startTestService({
      env: { ...providerEnv('WAHOO', fake), LOG_LEVEL: 'warn', PROVIDER_HTTP_RETRY_BASE_MS: '20' },
      // No workers: no backfill runs; the read below is what fetches.
      work: false,
      logTo: stream,
    });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  test('the damaged workout is skipped and logged; the others are stored and read', async () => {
    const link = await authenticateUser(service.app, developer, 'WAHOO');
    const landing = await service.app.inject({
      method: 'GET',
      url: pathOf(await followAuthorize(link.authUrl.toString())),
    });
    assert.equal(landing.statusCode, 302, landing.body);
    const workouts = fake.workoutsOf('account-1');
    assert.ok(workouts.length >= 3, 'the fake has workouts to read');
    const damaged = workouts[1]?.id as number;
    fake.damagedFiles.add(damaged);

    const today = new Date(fake.clock.now()).toISOString().slice(0, 10);
    const start = new Date(fake.clock.now() - 19 * 86_400_000).toISOString().slice(0, 10);
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/activity?user_id=${link.userId}&start_date=${start}&end_date=${today}&to_webhook=false`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    const ids = (response.json() as { data: { metadata: { summary_id: string } }[] }).data.map(
      (record) => record.metadata.summary_id,
    );
    assert.ok(!ids.includes(String(damaged)), 'the damaged workout is not stored');
    assert.ok(
      ids.length >= workouts.length - 2,
      `the other workouts are: ${ids.length} of ${workouts.length}`,
    );

    const logged = lines.filter((line) => line.msg === 'normalization failed');
    assert.equal(logged.length, 1, JSON.stringify(lines));
    assert.equal(logged[0]?.item, `WAHOO workout ${damaged}`);
    assert.match(logged[0]?.problem ?? '', /unreadable FIT file/);
    assert.ok(!lines.some((line) => /TypeError/.test(JSON.stringify(line))), 'no TypeError anywhere');
  });
});
