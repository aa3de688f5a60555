// Fakes check, not product tests: these check that the local Polar, Withings and Dexcom fakes behave like the real
// providers (their OAuth, paging, signatures and payload shapes), so the connector tests that use
// them mean something. They live apart (test/fakes-check/, every suite titled "fakes check: …")
// so the runner's report keeps them apart from the product's own tests; they still run in npm test.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { Activity, Body, Daily, Sleep } from '../../src/model/index.ts';
import { dexcomNormalizers } from '../../src/providers/dexcom/normalize/index.ts';
import { polarNormalizers } from '../../src/providers/polar/normalize/index.ts';
import { withingsNormalizers } from '../../src/providers/withings/normalize/index.ts';
import { type DexcomFake, startDexcomFake } from '../fakes/dexcom.ts';
import { followAuthorize } from '../fakes/fake-server.ts';
import { type PolarFake, startPolarFake } from '../fakes/polar.ts';
import { startWithingsFake, type WithingsFake } from '../fakes/withings.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';

/** The fakes built from the shared provider samples are checked only where the samples are. */
const withoutSamples = missingProviderSamples();

const NOW = Date.parse('2024-11-20T12:00:00Z');
const REDIRECT = 'http://127.0.0.1:9/callback';
type Json = Record<string, unknown>;

function assertValid(schema: TSchema, value: unknown, label: string): void {
  if (!Value.Check(schema, value)) {
    assert.fail(
      `${label} is invalid: ${JSON.stringify([...Value.Errors(schema, value)].slice(0, 5), null, 2)}`,
    );
  }
}

async function call(
  url: string,
  init: { method?: string; token?: string; basic?: [string, string]; form?: Json; json?: unknown } = {},
) {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.basic) headers.authorization = `Basic ${Buffer.from(init.basic.join(':')).toString('base64')}`;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(
      Object.entries(init.form).map(([key, value]): [string, string] => [key, String(value)]),
    ).toString();
  } else if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const response = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (an edge error page): keep the text.
  }
  return { status: response.status, headers: response.headers, body: parsed as Json & Json[] };
}

async function codeFrom(authorizeUrl: string): Promise<string> {
  const redirect = await followAuthorize(authorizeUrl);
  const code = redirect.searchParams.get('code');
  assert.ok(code, `no code in ${redirect}`);
  return code;
}

describe('fakes check: Polar fake', { skip: withoutSamples }, () => {
  let polar: PolarFake;
  let receiver: WebhookReceiver;
  let token: string;
  let userId: number;
  before(async () => {
    polar = await startPolarFake({ now: NOW, offsetMinutes: 120 });
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await polar.close();
    await receiver.close();
  });
  const basic = (): [string, string] => [polar.clientId, polar.clientSecret];

  test('OAuth: Basic client auth, a long-lived token, no refresh token, x_user_id', async () => {
    const code = await codeFrom(
      `${polar.baseUrl}/oauth2/authorization?response_type=code&client_id=${polar.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=accesslink.read_all&state=s1`,
    );
    const inBody = await call(`${polar.baseUrl}/v2/oauth2/token`, {
      form: {
        grant_type: 'authorization_code',
        code,
        client_id: polar.clientId,
        client_secret: polar.clientSecret,
      },
    });
    assert.equal(inBody.status, 401, 'Polar wants HTTP Basic, not credentials in the form');
    const code2 = polar.issueCode({ redirectUri: REDIRECT });
    const answer = await call(`${polar.baseUrl}/v2/oauth2/token`, {
      basic: basic(),
      form: { grant_type: 'authorization_code', code: code2, redirect_uri: REDIRECT },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.token_type, 'bearer');
    assert.ok((answer.body.expires_in as number) >= 10 * 365 * 86_400 - 1, 'valid until deregistration');
    assert.equal(answer.body.refresh_token, undefined);
    assert.equal(answer.body.x_user_id, polar.userIdOf('account-1'));
    token = answer.body.access_token as string;
    userId = answer.body.x_user_id as number;
    const again = await call(`${polar.baseUrl}/v2/oauth2/token`, {
      basic: basic(),
      form: { grant_type: 'authorization_code', code: code2, redirect_uri: REDIRECT },
    });
    assert.equal(again.status, 400, 'codes are single-use');
    const refresh = await call(`${polar.baseUrl}/v2/oauth2/token`, {
      basic: basic(),
      form: { grant_type: 'refresh_token', refresh_token: 'x' },
    });
    assert.deepEqual([refresh.status, refresh.body.error], [400, 'unsupported_grant_type']);
  });

  test('registration: data is refused until POST /v3/users; a second registration is 409', async () => {
    assert.equal((await call(`${polar.baseUrl}/v3/exercises`, { token })).status, 403);
    const registered = await call(`${polar.baseUrl}/v3/users`, {
      token,
      json: { 'member-id': 'tributary-user-1' },
    });
    assert.equal(registered.status, 200);
    assert.equal(registered.body['polar-user-id'], userId);
    assert.equal(registered.body['member-id'], 'tributary-user-1');
    assert.equal(
      (await call(`${polar.baseUrl}/v3/users`, { token, json: { 'member-id': 'tributary-user-1' } })).status,
      409,
    );
    const user = await call(`${polar.baseUrl}/v3/users/${userId}`, { token });
    assert.equal(user.body['first-name'], 'Eka');
  });

  test('exercises: only uploads after registration; list and detail with samples, zones and route', async () => {
    assert.deepEqual(
      (await call(`${polar.baseUrl}/v3/exercises`, { token })).body.length <= 2,
      true,
      'registered today: today at most',
    );
    polar.registrations.set('account-1', { memberId: 'tributary-user-1', at: NOW - 40 * 86_400_000 });
    const list = await call(`${polar.baseUrl}/v3/exercises`, { token });
    const days = new Set(list.body.map((exercise) => (exercise.start_time as string).slice(0, 10)));
    assert.ok(days.size > 10 && days.size <= 30, 'the last 30 days only');
    assert.equal(list.body[0]?.samples, undefined, 'samples only when asked for');
    const first = list.body.find((exercise) => exercise.has_route) as Json;
    const detail = await call(
      `${polar.baseUrl}/v3/exercises/${first.id}?samples=true&zones=true&route=true`,
      { token },
    );
    assert.equal(detail.status, 200);
    assert.equal(detail.body.id, first.id);
    assert.ok(
      Array.isArray(detail.body.samples) &&
        Array.isArray(detail.body.route) &&
        Array.isArray(detail.body.heart_rate_zones),
    );
    assert.equal((await call(`${polar.baseUrl}/v3/exercises/NOPE1`, { token })).status, 404);
    const [activity] = polarNormalizers.exercise.normalize(
      { exercise: [detail.body as never] },
      { userOffsetMinutes: null, maxHeartRate: 190 },
    );
    assertValid(Activity, activity, 'normalized fake exercise');
    assert.ok((activity?.heart_rate_data?.detailed?.hr_samples?.length ?? 0) > 1000);
    assert.ok((activity?.position_data?.position_samples?.length ?? 0) > 100);
    assert.match(activity?.metadata.start_time ?? '', /\+02:00$/);
  });

  test('daily activity: at most 28 days, not older than 365; continuous HR needs from/to', async () => {
    const ok = await call(
      `${polar.baseUrl}/v3/users/activities?from=2024-11-01&to=2024-11-10&steps=true&activity_zones=true`,
      { token },
    );
    assert.equal(ok.status, 200);
    assert.equal(ok.body.length, 10);
    assert.equal(
      (await call(`${polar.baseUrl}/v3/users/activities?from=2024-10-01&to=2024-11-10`, { token })).status,
      400,
    );
    assert.equal(
      (await call(`${polar.baseUrl}/v3/users/activities?from=2023-01-01&to=2023-01-05`, { token })).status,
      400,
    );
    assert.equal(
      (await call(`${polar.baseUrl}/v3/users/continuous-heart-rate?from=2024-11-01`, { token })).status,
      400,
    );
    const hr = await call(`${polar.baseUrl}/v3/users/continuous-heart-rate?from=2024-11-01&to=2024-11-03`, {
      token,
    });
    assert.equal((hr.body.heart_rates as unknown as Json[]).length, 3);
    const one = await call(`${polar.baseUrl}/v3/users/continuous-heart-rate/2024-11-02`, { token });
    const days = polarNormalizers.activity_summary.normalize(
      { activity_summary: ok.body as never, continuous_heart_rate: [one.body as never] },
      { userOffsetMinutes: 120 },
    );
    assert.equal(days.length, 10);
    for (const day of days) assertValid(Daily, day, 'normalized fake day');
    const total = days[0]?.distance_data?.detailed?.step_samples?.reduce(
      (sum, sample) => sum + (sample.steps ?? 0),
      0,
    );
    assert.equal(total, ok.body[0]?.steps, 'filtered repeats restored');
  });

  test('sleep, nightly recharge and physical info', async () => {
    const sleep = await call(`${polar.baseUrl}/v3/users/sleep`, { token });
    const recharge = await call(`${polar.baseUrl}/v3/users/nightly-recharge`, { token });
    assert.equal((sleep.body.nights as unknown as Json[]).length, 28);
    assert.equal((await call(`${polar.baseUrl}/v3/users/sleep/2024-11-19`, { token })).status, 200);
    assert.equal((await call(`${polar.baseUrl}/v3/users/sleep/2023-11-19`, { token })).status, 404);
    const nights = polarNormalizers.sleep.normalize(
      { sleep: sleep.body.nights as never, nightly_recharge: recharge.body.recharges as never },
      { userOffsetMinutes: null },
    );
    assert.equal(nights.length, 28);
    for (const night of nights) assertValid(Sleep, night, 'normalized fake night');
    assert.ok(nights.every((night) => night.readiness_data?.recovery_level));
    const info = await call(`${polar.baseUrl}/v3/users/physical-info`, { token });
    assert.equal(typeof info.body.weight, 'number');
    assertValid(
      Body,
      polarNormalizers.physical_information.normalize(
        { physical_information: info.body as never },
        { userOffsetMinutes: 120 },
      )[0],
      'body',
    );
  });

  test('webhook: created with Basic credentials after a 200 PING; signed events; one per client', async () => {
    receiver.script(500);
    const refused = await call(`${polar.baseUrl}/v3/webhooks`, {
      basic: basic(),
      json: { events: ['EXERCISE', 'SLEEP'], url: receiver.url },
    });
    assert.equal(refused.status, 400, 'a PING not answered with 200 fails the creation');
    assert.equal(
      (
        await call(`${polar.baseUrl}/v3/webhooks`, {
          token,
          json: { events: ['EXERCISE'], url: receiver.url },
        })
      ).status,
      401,
    );
    const created = await call(`${polar.baseUrl}/v3/webhooks`, {
      basic: basic(),
      json: { events: ['EXERCISE', 'SLEEP'], url: receiver.url },
    });
    assert.equal(created.status, 201);
    const data = created.body.data as Json;
    const secret = data.signature_secret_key as string;
    assert.ok(secret);
    const ping = receiver.received.at(-1);
    assert.equal(ping?.headers['polar-webhook-event'], 'PING');
    assert.equal(JSON.parse(ping?.body ?? '{}').event, 'PING');
    assert.equal(
      (
        await call(`${polar.baseUrl}/v3/webhooks`, {
          basic: basic(),
          json: { events: ['EXERCISE'], url: receiver.url },
        })
      ).status,
      409,
    );
    const listed = await call(`${polar.baseUrl}/v3/webhooks`, { basic: basic() });
    assert.deepEqual(listed.body.data, [
      { id: data.id, events: ['EXERCISE', 'SLEEP'], url: receiver.url, active: true },
    ]);

    const delivery = await polar.notify('EXERCISE', { entityId: 'aQlC83' });
    assert.equal(delivery?.status, 200);
    const event = receiver.received.at(-1);
    assert.equal(
      event?.headers['polar-webhook-signature'],
      createHmac('sha256', secret)
        .update(event?.body ?? '')
        .digest('hex'),
    );
    assert.equal(event?.headers['polar-webhook-event'], 'EXERCISE');
    assert.deepEqual(Object.keys(JSON.parse(event?.body ?? '{}')), [
      'event',
      'user_id',
      'entity_id',
      'timestamp',
      'url',
    ]);
    assert.equal(await polar.notify('ACTIVITY_SUMMARY', { date: '2024-11-19' }), null, 'not subscribed');
    assert.equal(
      (await call(`${polar.baseUrl}/v3/webhooks/deactivate`, { basic: basic(), method: 'POST' })).status,
      200,
    );
    assert.equal(await polar.notify('SLEEP', { date: '2024-11-19' }), null, 'inactive');
  });

  test('faults: 429 with RateLimit headers, 5xx bursts, slow answers; real limits; requests recorded', async () => {
    polar.inject({ kind: 'rate_limit', retryAfterSeconds: 30, match: '/v3/users/sleep' });
    const limited = await call(`${polar.baseUrl}/v3/users/sleep`, { token });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '30');
    assert.match(limited.headers.get('ratelimit-limit') ?? '', /^\d+, \d+$/);
    polar.inject({ kind: 'server_error', status: 503, times: 2 });
    assert.equal((await call(`${polar.baseUrl}/v3/users/physical-info`, { token })).status, 503);
    assert.equal((await call(`${polar.baseUrl}/v3/users/physical-info`, { token })).status, 503);
    const recovered = await call(`${polar.baseUrl}/v3/users/physical-info`, { token });
    assert.equal(recovered.status, 200);
    assert.match(recovered.headers.get('ratelimit-usage') ?? '', /^\d+, \d+$/);
    polar.inject({ kind: 'slow', delayMs: 150 });
    const started = Date.now();
    await call(`${polar.baseUrl}/v3/users/physical-info`, { token });
    assert.ok(Date.now() - started >= 140);
    polar.limits = { shortTerm: 1, longTerm: 1000 };
    assert.equal((await call(`${polar.baseUrl}/v3/users/physical-info`, { token })).status, 429);
    polar.limits = null;
    polar.clock.advance(900_000);
    assert.equal(
      (await call(`${polar.baseUrl}/v3/users/physical-info`, { token })).status,
      200,
      'a new 15-minute window',
    );
    assert.ok(
      polar.requestsTo('/v3/users/physical-info').some((request) => request.fault === 'server_error'),
    );
  });

  test('deregistration revokes the token', async () => {
    assert.equal(
      (await call(`${polar.baseUrl}/v3/users/${userId}`, { token, method: 'DELETE' })).status,
      204,
    );
    assert.equal((await call(`${polar.baseUrl}/v3/users/physical-info`, { token })).status, 401);
    assert.equal(polar.registrations.size, 0);
  });
});

describe('fakes check: Withings fake', { skip: withoutSamples }, () => {
  let withings: WithingsFake;
  let receiver: WebhookReceiver;
  let access: string;
  let refresh: string;
  before(async () => {
    withings = await startWithingsFake({ now: NOW });
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await withings.close();
    await receiver.close();
  });
  const api = (path: string, form: Json, token = access) =>
    call(`${withings.baseUrl}${path}`, { token, form });
  const requestToken = (form: Json) =>
    call(`${withings.baseUrl}/v2/oauth2`, {
      form: {
        action: 'requesttoken',
        client_id: withings.clientId,
        client_secret: withings.clientSecret,
        ...form,
      },
    });

  test('OAuth: requesttoken answers {status, body}; errors are HTTP 200 with a status', async () => {
    const code = await codeFrom(
      `${withings.baseUrl}/oauth2_user/authorize2?response_type=code&client_id=${withings.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=user.info,user.metrics,user.activity,user.sleepevents&state=s`,
    );
    const answer = await requestToken({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 0);
    const body = answer.body.body as Json;
    assert.equal(body.userid, withings.userIdOf('account-1'));
    assert.equal(body.expires_in, 10_800);
    assert.equal(body.scope, 'user.info,user.metrics,user.activity,user.sleepevents');
    assert.equal(body.token_type, 'Bearer');
    access = body.access_token as string;
    refresh = body.refresh_token as string;
    const spent = await requestToken({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    assert.deepEqual([spent.status, spent.body.status], [200, 503]);
    const bad = await api('/measure', { action: 'getmeas' }, 'not-a-token');
    assert.deepEqual([bad.status, bad.body.status], [200, 401]);
  });

  test('refresh rotates; the old refresh token lives until the new access token is used', async () => {
    const first = await requestToken({ grant_type: 'refresh_token', refresh_token: refresh });
    const rotated = first.body.body as Json;
    assert.notEqual(rotated.refresh_token, refresh);
    const grace = await requestToken({ grant_type: 'refresh_token', refresh_token: refresh });
    assert.equal(grace.body.status, 0, 'still valid: the new access token was never used');
    const newest = grace.body.body as Json;
    assert.equal(
      (await api('/measure', { action: 'getmeas' }, newest.access_token as string)).body.status,
      0,
    );
    const late = await requestToken({
      grant_type: 'refresh_token',
      refresh_token: rotated.refresh_token as string,
    });
    assert.equal(late.body.status, 503, 'dead once the newer access token was used');
    const expiring = await requestToken({
      grant_type: 'refresh_token',
      refresh_token: newest.refresh_token as string,
    });
    const next = expiring.body.body as Json;
    withings.clock.advance(8 * 3_600_000 + 1000);
    assert.equal(
      (await requestToken({ grant_type: 'refresh_token', refresh_token: newest.refresh_token as string }))
        .body.status,
      503,
      'dead after 8 h',
    );
    access = next.access_token as string;
    withings.clock.advance(-(8 * 3_600_000 + 1000));
  });

  test('getmeas: pages with more/offset, meastype filter, goals category, normalizes', async () => {
    withings.pageSize = 10;
    const start = Math.floor(NOW / 1000) - 20 * 86_400;
    const pages: Json[] = [];
    let offset = 0;
    do {
      const answer = await api('/measure', {
        action: 'getmeas',
        startdate: start,
        enddate: Math.floor(NOW / 1000),
        offset,
      });
      assert.equal(answer.body.status, 0);
      const body = answer.body.body as Json;
      pages.push(body);
      offset = body.more ? (body.offset as number) : 0;
    } while (offset);
    assert.ok(pages.length > 2);
    assert.equal(pages[0]?.timezone, 'Europe/Paris');
    assert.equal(pages[0]?.more as number, 1, 'getmeas says more with 1/0');
    const weights = await api('/measure', {
      action: 'getmeas',
      meastype: 1,
      startdate: start,
      enddate: Math.floor(NOW / 1000),
    });
    const groups = (weights.body.body as Json).measuregrps as { measures: { type: number }[] }[];
    assert.ok(groups.every((group) => group.measures.every((measure) => measure.type === 1)));
    assert.deepEqual(
      ((await api('/measure', { action: 'getmeas', category: 2 })).body.body as Json).measuregrps,
      [],
    );
    const days = withingsNormalizers.measure.normalize(
      { measure: pages as never },
      { userOffsetMinutes: null },
    );
    assert.ok(days.length >= 20);
    for (const day of days) assertValid(Body, day, 'normalized fake body');
    assert.match(days[0]?.metadata.start_time ?? '', /\+01:00$/, 'Paris in November');
    withings.pageSize = 100;
  });

  test('activity, intraday (first 24 h), workouts, sleep summary and states, heart list and signal', async () => {
    const activity = await api('/v2/measure', {
      action: 'getactivity',
      startdateymd: '2024-11-10',
      enddateymd: '2024-11-15',
    });
    assert.equal(((activity.body.body as Json).activities as Json[]).length, 6);
    const start = Date.parse('2024-11-14T23:00:00Z') / 1000;
    const intraday = await api('/v2/measure', {
      action: 'getintradayactivity',
      startdate: start,
      enddate: start + 3 * 86_400,
    });
    const keys = Object.keys((intraday.body.body as Json).series as Json).map(Number);
    assert.ok(keys.length > 100 && keys.every((key) => key >= start && key < start + 86_400));
    const daily = withingsNormalizers.activity.normalize(
      { activity: activity.body.body as never, intraday_activity: intraday.body.body as never },
      { userOffsetMinutes: null },
    );
    for (const day of daily) assertValid(Daily, day, 'normalized fake daily');
    assert.ok(
      (daily.find((day) => day.metadata.start_time.startsWith('2024-11-15'))?.distance_data?.detailed
        ?.step_samples?.length ?? 0) > 50,
    );
    const workouts = await api('/v2/measure', {
      action: 'getworkouts',
      startdateymd: '2024-11-01',
      enddateymd: '2024-11-15',
    });
    for (const workout of withingsNormalizers.workouts.normalize(
      { workouts: workouts.body.body as never },
      { userOffsetMinutes: null },
    )) {
      assertValid(Activity, workout, 'normalized fake workout');
    }
    const summary = await api('/v2/sleep', {
      action: 'getsummary',
      startdateymd: '2024-11-14',
      enddateymd: '2024-11-15',
    });
    const states = await api('/v2/sleep', {
      action: 'get',
      startdate: start,
      enddate: start + 86_400,
      data_fields: 'hr,rr,rmssd',
    });
    const nights = withingsNormalizers.sleep_summary.normalize(
      { sleep_summary: summary.body.body as never, sleep: states.body.body as never },
      { userOffsetMinutes: null },
    );
    assert.equal(nights.length, 2);
    for (const night of nights) assertValid(Sleep, night, 'normalized fake night');
    assert.ok((nights[1]?.sleep_durations_data?.hypnogram_samples?.length ?? 0) > 3);
    assert.ok((nights[1]?.heart_rate_data?.detailed?.hr_samples?.length ?? 0) > 10);
    const heart = await api('/v2/heart', {
      action: 'list',
      startdate: Math.floor(NOW / 1000) - 10 * 86_400,
      enddate: Math.floor(NOW / 1000),
    });
    const series = (heart.body.body as Json).series as { ecg: { signalid: number } }[];
    assert.ok(series.length >= 1);
    const signal = await api('/v2/heart', { action: 'get', signalid: series[0]?.ecg.signalid as number });
    assert.equal(((signal.body.body as Json).signal as number[]).length, 5000);
  });

  test('notify: subscribe/list/revoke per appli; callbacks are unsigned form posts', async () => {
    assert.equal(
      (await api('/notify', { action: 'subscribe', callbackurl: receiver.url, appli: 1, comment: 'weights' }))
        .body.status,
      0,
    );
    await api('/notify', { action: 'subscribe', callbackurl: receiver.url, appli: 44 });
    const listed = await api('/notify', { action: 'list' });
    assert.deepEqual(
      ((listed.body.body as Json).profiles as Json[]).map((profile) => profile.appli),
      [1, 44],
    );
    const [delivery] = await withings.notify(1, { startdate: 1530576000, enddate: 1530698753 });
    assert.equal(delivery?.status, 200);
    const sent = receiver.received.at(-1);
    assert.equal(sent?.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(Object.fromEntries(new URLSearchParams(sent?.body)), {
      userid: String(withings.userIdOf('account-1')),
      appli: '1',
      startdate: '1530576000',
      enddate: '1530698753',
    });
    assert.equal(
      Object.keys(sent?.headers ?? {}).some((name) => name.includes('signature')),
      false,
    );
    assert.equal(
      (await api('/notify', { action: 'revoke', callbackurl: receiver.url, appli: 1 })).body.status,
      0,
    );
    assert.deepEqual(await withings.notify(1, { date: '2024-11-19' }), []);
    assert.equal(
      (await api('/notify', { action: 'revoke', callbackurl: receiver.url, appli: 1 })).body.status,
      343,
    );
  });

  test('faults: 601 in the body (HTTP 200), body-level timeouts, edge 5xx, 120 per minute', async () => {
    withings.inject({ kind: 'rate_limit' });
    const limited = await api('/measure', { action: 'getmeas' });
    assert.deepEqual([limited.status, limited.body.status], [200, 601]);
    withings.inject({ kind: 'server_error', times: 2 });
    assert.equal((await api('/measure', { action: 'getmeas' })).body.status, 522);
    assert.equal((await api('/measure', { action: 'getmeas' })).body.status, 522);
    withings.inject({ kind: 'server_error', status: 502 });
    const edge = await api('/measure', { action: 'getmeas' });
    assert.equal(edge.status, 502);
    withings.inject({ kind: 'unauthorized' });
    assert.equal((await api('/measure', { action: 'getmeas' })).body.status, 401);
    withings.clock.advance(60_000);
    withings.perMinute = 3;
    const statuses = [];
    for (let index = 0; index < 4; index++)
      statuses.push((await api('/measure', { action: 'getmeas' })).body.status);
    assert.deepEqual(statuses, [0, 0, 0, 601]);
    withings.perMinute = 120;
    withings.clock.advance(60_000);
  });

  test('revoke: a signed request with a fresh nonce', async () => {
    const timestamp = String(Math.floor(NOW / 1000));
    const sign = (values: string[]) =>
      createHmac('sha256', withings.clientSecret).update(values.join(',')).digest('hex');
    const nonce = await call(`${withings.baseUrl}/v2/signature`, {
      form: {
        action: 'getnonce',
        client_id: withings.clientId,
        timestamp,
        signature: sign(['getnonce', withings.clientId, timestamp]),
      },
    });
    const value = (nonce.body.body as Json).nonce as string;
    const revoke = (signature: string) =>
      call(`${withings.baseUrl}/v2/oauth2`, {
        form: {
          action: 'revoke',
          client_id: withings.clientId,
          nonce: value,
          signature,
          userid: withings.userIdOf('account-1'),
        },
      });
    assert.equal((await revoke('bad')).body.status, 503);
    const nonce2 = await call(`${withings.baseUrl}/v2/signature`, {
      form: {
        action: 'getnonce',
        client_id: withings.clientId,
        timestamp,
        signature: sign(['getnonce', withings.clientId, timestamp]),
      },
    });
    const value2 = (nonce2.body.body as Json).nonce as string;
    const done = await call(`${withings.baseUrl}/v2/oauth2`, {
      form: {
        action: 'revoke',
        client_id: withings.clientId,
        nonce: value2,
        signature: sign(['revoke', withings.clientId, value2]),
        userid: withings.userIdOf('account-1'),
      },
    });
    assert.equal(done.body.status, 0);
    assert.equal((await api('/measure', { action: 'getmeas' })).body.status, 401);
  });
});

describe('fakes check: Dexcom fake', () => {
  let dexcom: DexcomFake;
  let tokens: Json;
  before(async () => {
    dexcom = await startDexcomFake({ now: NOW });
  });
  after(() => dexcom.close());
  const token = (form: Json) =>
    call(`${dexcom.baseUrl}/v2/oauth2/token`, {
      form: { client_id: dexcom.clientId, client_secret: dexcom.clientSecret, ...form },
    });

  test('OAuth: offline_access gives a refresh token, which rotates and is single-use', async () => {
    const code = await codeFrom(
      `${dexcom.baseUrl}/v2/oauth2/login?client_id=${dexcom.clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&scope=offline_access&state=x`,
    );
    const answer = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.expires_in, 7200);
    assert.equal(answer.body.token_type, 'Bearer');
    assert.ok(answer.body.refresh_token);
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: answer.body.refresh_token as string,
      redirect_uri: REDIRECT,
    });
    assert.equal(refreshed.status, 200);
    assert.notEqual(refreshed.body.refresh_token, answer.body.refresh_token);
    const reused = await token({
      grant_type: 'refresh_token',
      refresh_token: answer.body.refresh_token as string,
    });
    assert.deepEqual([reused.status, reused.body.error], [400, 'invalid_grant']);
    tokens = refreshed.body;
    const online = await token({
      grant_type: 'authorization_code',
      code: dexcom.issueCode({ redirectUri: REDIRECT, scopes: [] }),
      redirect_uri: REDIRECT,
    });
    assert.equal(online.body.refresh_token, undefined, 'no refresh token without offline_access');
    assert.equal(
      (await token({ grant_type: 'authorization_code', code: 'nope', redirect_uri: REDIRECT })).status,
      400,
    );
  });

  test('egvs: the window is required, ordered and at most 30 days; v3 envelope, newest first', async () => {
    const access = tokens.access_token as string;
    const egvs = (query: string) => call(`${dexcom.baseUrl}/v3/users/self/egvs${query}`, { token: access });
    assert.equal((await egvs('')).status, 400);
    assert.equal((await egvs('?startDate=2024-11-10T00:00:00&endDate=2024-11-09T00:00:00')).status, 400);
    const tooLong = await egvs('?startDate=2024-10-01T00:00:00&endDate=2024-11-05T00:00:00');
    assert.equal(tooLong.status, 400);
    assert.ok((tooLong.body.fault as Json).faultstring);
    const answer = await egvs('?startDate=2024-11-17T07:00:00&endDate=2024-11-19T07:00:00');
    assert.equal(answer.body.recordType, 'egv');
    assert.equal(answer.body.recordVersion, '3.0');
    assert.equal(answer.body.userId, dexcom.userIdOf('account-1'));
    const records = answer.body.records as unknown as Json[];
    assert.equal(
      records.length,
      2 * (288 - 4) + 1,
      'every 5 minutes, both ends included, less a daily 20-minute gap',
    );
    assert.ok((records[0]?.systemTime as string) > (records[1]?.systemTime as string), 'newest first');
    assert.match(records[0]?.displayTime as string, /-07:00$/);
    const days = dexcomNormalizers.egvs.normalize({ egvs: records as never }, { userOffsetMinutes: null });
    assert.deepEqual(
      days.map((day) => day.metadata.start_time),
      [
        '2024-11-17T00:00:00.000000-07:00',
        '2024-11-18T00:00:00.000000-07:00',
        '2024-11-19T00:00:00.000000-07:00',
      ],
    );
    for (const day of days) assertValid(Body, day, 'normalized fake glucose');
    assert.equal(days[1]?.glucose_data?.sensor_usage, 284);
    assert.equal(days[1]?.glucose_data?.daily_patterns?.length, 24);
  });

  test('devices, events and dataRange with lastSyncTime', async () => {
    const access = tokens.access_token as string;
    const devices = await call(`${dexcom.baseUrl}/v3/users/self/devices`, { token: access });
    assert.equal(devices.body.recordType, 'device');
    const events = await call(
      `${dexcom.baseUrl}/v3/users/self/events?startDate=2024-11-18T07:00:00&endDate=2024-11-19T06:59:59`,
      { token: access },
    );
    const records = events.body.records as unknown as Json[];
    assert.ok(
      records.some((event) => event.eventType === 'insulin') &&
        records.some((event) => event.eventType === 'carbs'),
    );
    const range = await call(`${dexcom.baseUrl}/v3/users/self/dataRange`, { token: access });
    assert.equal(range.body.recordType, 'dataRange');
    assert.ok((range.body.egvs as Json).start && (range.body.egvs as Json).end);
    const synced = await call(`${dexcom.baseUrl}/v3/users/self/dataRange?lastSyncTime=2024-11-20T11:00:00`, {
      token: access,
    });
    assert.match(((synced.body.egvs as Json).start as Json).systemTime as string, /^2024-11-20T11:05:00/);
    const upToDate = await call(
      `${dexcom.baseUrl}/v3/users/self/dataRange?lastSyncTime=2024-11-20T12:00:00`,
      { token: access },
    );
    assert.equal(upToDate.body.egvs, undefined, 'nothing new');
    const egvs = await call(
      `${dexcom.baseUrl}/v3/users/self/egvs?startDate=2024-11-18T07:00:00&endDate=2024-11-19T06:59:59`,
      { token: access },
    );
    const [day] = dexcomNormalizers.egvs.normalize(
      { egvs: egvs.body.records as never, devices: devices.body.records as never, events: records as never },
      { userOffsetMinutes: null },
    );
    assertValid(Body, day, 'glucose with devices and events');
    assert.equal(day?.device_data?.manufacturer, 'Dexcom');
    assert.equal(day?.measurements_data?.measurements?.length, 3, 'three insulin doses');
  });

  test('faults: 401 when expired, 429 past the hourly quota, injected 5xx and slow answers', async () => {
    const access = tokens.access_token as string;
    const url = `${dexcom.baseUrl}/v3/users/self/devices`;
    dexcom.inject({ kind: 'server_error', status: 502, times: 2 });
    assert.equal((await call(url, { token: access })).status, 502);
    assert.equal((await call(url, { token: access })).status, 502);
    assert.equal((await call(url, { token: access })).status, 200);
    dexcom.inject({ kind: 'rate_limit', retryAfterSeconds: 5 });
    const limited = await call(url, { token: access });
    assert.deepEqual([limited.status, limited.headers.get('retry-after')], [429, '5']);
    dexcom.inject({ kind: 'slow', delayMs: 120 });
    const started = Date.now();
    assert.equal((await call(url, { token: access })).status, 200);
    assert.ok(Date.now() - started >= 110);
    dexcom.clock.advance(3_600_000);
    dexcom.perHour = 1;
    assert.equal((await call(url, { token: access })).status, 200, 'a new hour');
    assert.equal((await call(url, { token: access })).status, 429);
    dexcom.perHour = 60_000;
    dexcom.expireAccessTokens();
    const expired = await call(url, { token: access });
    assert.equal(expired.status, 401);
    assert.equal(
      ((expired.body.fault as Json).detail as Json).errorcode,
      'keymanagement.service.invalid_access_token',
    );
  });
});
