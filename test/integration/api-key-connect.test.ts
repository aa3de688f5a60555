import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HevyFake, startHevyFake } from '../fakes/hevy.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { authenticateUser } from '../helpers/connections.ts';
import { until } from '../helpers/until.ts';
import { freePort } from '../helpers/ports.ts';

// The connect flow of providers whose users hand over a personal API key (authKind `api_key`),
// through a real HTTP socket, with Hevy's fake as the provider: the hosted key page (escaped,
// no scripts), a malformed and a refused key shown again on the page with the state still
// usable, cancel, a spent state, the key stored sealed and sent in the declared header, and a
// later 401 (the key deleted in Hevy's settings) breaking the connection without any refresh.
// Also Hevy's strength workouts through the data API, and workouts across UTC midnight.

type StoredWorkout = {
  metadata: { summary_id: string; name: string; start_time: string; end_time: string; type: number };
  calories_data?: unknown;
  strength_data: { exercises: { exercise_name: string; sets: Record<string, unknown>[] }[] };
};

describe('API-key connections (Hevy against its fake, through a real socket)', () => {
  let fake: HevyFake;
  let service: TestService;
  let developer: TestDeveloper;
  let base: string;

  before(async () => {
    fake = await startHevyFake();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    service = await startTestService({
      env: {
        HEVY_ENABLED: 'true',
        HEVY_BASE_URL: fake.baseUrl,
        HEVY_REQUEST_BUDGET: '100000/1,1000000/3600',
        PUBLIC_URL: base,
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
      },
    });
    await service.app.listen({ port, host: '127.0.0.1' });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
    await fake?.close();
  });

  const post = (url: URL, fields: Record<string, string>) =>
    fetch(url.origin + url.pathname, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  const statusOf = async (userId: string) =>
    (
      await service.ctx.db
        .selectFrom('connections')
        .select('status')
        .where('id', '=', userId)
        .executeTakeFirst()
    )?.status;

  test('/v2/integrations lists Hevy as enabled, and the auth link is Tributary’s key page', async () => {
    const list = await service.app.inject({
      method: 'GET',
      url: '/v2/integrations',
      headers: developer.headers,
    });
    assert.equal(list.statusCode, 200, list.body);
    assert.match(list.body, /"HEVY"/);
    const link = await authenticateUser(service.app, developer, 'HEVY');
    assert.equal(link.authUrl.origin, base);
    assert.equal(link.authUrl.pathname, '/v2/auth/key/HEVY');
    const page = await fetch(link.authUrl);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const text = await page.text();
    assert.match(text, /<input type="text" id="api_key" name="api_key"/);
    assert.match(text, /href="https:\/\/hevy\.com\/settings\?developer"/);
    assert.doesNotMatch(text, /<script/i, 'no scripts on hosted pages');

    // In the language the auth link asked for.
    const german = await authenticateUser(service.app, developer, 'HEVY', { language: 'de' });
    const page_de = await (await fetch(german.authUrl)).text();
    assert.match(page_de, /<html lang="de">/);
    assert.match(page_de, /Hevy verbinden/);
  });

  test('a malformed or refused key shows the form again; the right key connects once', async () => {
    const link = await authenticateUser(service.app, developer, 'HEVY', { reference_id: 'ref-<1>' });
    const state = link.authUrl.searchParams.get('state') ?? '';

    const malformed = await post(link.authUrl, { state, api_key: 'two words', decision: 'connect' });
    assert.equal(malformed.status, 422);
    assert.match(await malformed.text(), /without spaces/);

    const injected = '"><script>alert(1)</script>';
    const refusedBefore = fake.requestsTo('/v1/user/info').length;
    const refused = await post(link.authUrl, {
      state: `${state}`,
      api_key: injected.replace(/\s/g, ''),
      decision: 'connect',
    });
    const refusedPage = await refused.text();
    assert.equal(refused.status, 422);
    assert.match(refusedPage, /did not accept this key/);
    assert.doesNotMatch(refusedPage, /<script>alert/, 'nothing entered is echoed unescaped');
    assert.equal(fake.requestsTo('/v1/user/info').length, refusedBefore + 1, 'the key was asked about once');
    assert.equal(fake.requestsTo('/v1/user/info').at(-1)?.status, 401);
    assert.equal(await statusOf(link.userId), 'pending');

    const key = fake.newKey('account-9');
    const ok = await post(link.authUrl, { state, api_key: ` ${key} `, decision: 'connect' });
    assert.equal(ok.status, 303, await ok.text());
    assert.match(String(ok.headers.get('location')), /user_id=/);
    assert.equal(await statusOf(link.userId), 'active');
    const checked = fake.requestsTo('/v1/user/info').at(-1);
    assert.equal(checked?.headers['api-key'], key, 'the key went in the api-key header');
    assert.equal(checked?.headers.authorization, undefined);

    // Stored sealed, with the account /v1/user/info named.
    const row = await service.ctx.db
      .selectFrom('connections')
      .select('provider_user_id')
      .where('id', '=', link.userId)
      .executeTakeFirstOrThrow();
    assert.equal(row.provider_user_id, fake.userIdOf('account-9'));
    const tokens = await service.ctx.db
      .selectFrom('provider_tokens')
      .selectAll()
      .where('user_id', '=', link.userId)
      .executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(tokens).includes(key), 'the key is not stored in clear');
    assert.equal(tokens.refresh_token, null);

    const again = await post(link.authUrl, { state, api_key: key, decision: 'connect' });
    assert.equal(again.status, 400, 'a spent state does not connect twice');
  });

  test('cancel ends the flow as a failure; an unknown state is a 400 page', async () => {
    const link = await authenticateUser(service.app, developer, 'HEVY');
    const state = link.authUrl.searchParams.get('state') ?? '';
    const cancelled = await post(link.authUrl, { state, decision: 'cancel' });
    assert.equal(cancelled.status, 303);
    assert.match(String(cancelled.headers.get('location')), /reason=access_denied/);
    assert.equal(await statusOf(link.userId), undefined, 'the pending user is gone');
    const unknown = await fetch(`${base}/v2/auth/key/HEVY?state=not-a-state`);
    assert.equal(unknown.status, 400);
    const wrongProvider = await fetch(`${base}/v2/auth/key/SANDBOX?state=${encodeURIComponent(state)}`);
    assert.equal(wrongProvider.status, 400);
  });

  test('strength workouts through the data API, and a 401 later breaks the connection', async () => {
    const link = await authenticateUser(service.app, developer, 'HEVY');
    const state = link.authUrl.searchParams.get('state') ?? '';
    const key = fake.newKey('account-7');
    assert.equal((await post(link.authUrl, { state, api_key: key, decision: 'connect' })).status, 303);

    // Three weeks in the past, read from the provider: every workout of those UTC days, once.
    const today = new Date().toISOString().slice(0, 10);
    const day = (back: number) => new Date(Date.parse(today) - back * 86_400_000).toISOString().slice(0, 10);
    const read = (start: string, end: string) =>
      service.app.inject({
        method: 'GET',
        url: `/v2/activity?user_id=${link.userId}&start_date=${start}&end_date=${end}&to_webhook=false`,
        headers: developer.headers,
      });
    // end_date is the day after the last one read.
    const backs = Array.from({ length: 20 }, (_, index) => 130 - index);
    const answer = await read(day(130), day(110));
    assert.equal(answer.statusCode, 200, answer.body);
    const records = (answer.json() as { data: StoredWorkout[] }).data;
    const expected = backs.flatMap((back) => fake.workoutsOn('account-7', day(back)));
    assert.deepEqual(
      records.map((record) => record.metadata.summary_id).sort(),
      expected.map((workout) => workout.id).sort(),
      'the workouts of those days (across midnight included), each once',
    );
    // The fake's late sessions start at 23:40 UTC and end the next day: kept on their start day.
    const crossing = records.find((record) => record.metadata.name === 'Late Pull');
    assert.ok(crossing, 'a workout across UTC midnight');
    assert.ok(crossing.metadata.start_time.includes('T23:40:00'), crossing.metadata.start_time);
    assert.ok(crossing.metadata.end_time.slice(0, 10) > crossing.metadata.start_time.slice(0, 10));
    // A workout whose warm-up set the fake served with placeholder zeros (0 m, 0 s, RPE 0).
    type Served = { id: string; exercises: { sets: Record<string, unknown>[] }[] };
    const zeroed = (expected as Served[]).find((workout) => {
      const set = workout.exercises[0]?.sets[0];
      return set?.distance_meters === 0 && set.rpe === 0;
    });
    assert.ok(zeroed, 'the fake served placeholder zeros in those weeks');
    const record = records.find((candidate) => candidate.metadata.summary_id === zeroed.id);
    assert.ok(record);
    assert.equal(record.metadata.type, 80, 'STRENGTH_TRAINING');
    const bench = record.strength_data.exercises[0];
    const warmUp = bench?.sets[0];
    assert.equal(bench?.exercise_name, 'Bench Press (Barbell)');
    assert.equal(warmUp?.set_type, 'warmup');
    assert.equal(warmUp?.weight_kg, 40);
    assert.equal(warmUp?.reps, 10);
    assert.equal(warmUp?.distance_meters, null, 'a placeholder 0 m is not a distance');
    assert.equal(warmUp?.duration_seconds, null, 'a placeholder 0 s is not a duration');
    assert.equal(warmUp?.rpe, null, 'a placeholder RPE 0 is not a rating');
    const working = bench?.sets[1];
    assert.ok(typeof working?.rpe === 'number' || working?.rpe === null);
    assert.equal(record.calories_data ?? null, null, 'Hevy sends no calories');

    fake.deleteKey(key);
    const refused = await read(day(200), day(195));
    assert.ok(refused.statusCode >= 400, refused.body);
    await until('the connection to be broken', () => statusOf(link.userId), {
      done: (status) => status === 'broken',
      timeoutMs: 10_000,
    });
    assert.equal(
      fake.requests.filter((request) => request.path.includes('token')).length,
      0,
      'no refresh was attempted',
    );
  });
});
