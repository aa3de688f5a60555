// Fakes check, not product tests: the local Google Health API refuses what Google documents it
// refuses (the filter grammar per record type, page sizes, rollup ranges and bodies, a missing
// token) with Google's error bodies, and serves the reconciled stream and its rollups, so the
// FITBIT connector tests that use it mean something. Each rule's source is in the fake's comments
// (test/fakes/google-health-filters.ts, google-health-points.ts).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { followAuthorize } from '../fakes/fake-server.ts';
import { type GoogleHealthFake, startGoogleHealthFake } from '../fakes/google-health.ts';
import { isoDay, pointsOf } from '../fakes/google-health-data.ts';

const SCOPE = 'https://www.googleapis.com/auth/googlehealth';
const REDIRECT = 'http://127.0.0.1:9/callback';
const DAY_MS = 86_400_000;

type GoogleError = { error?: { code?: number; status?: string; details?: { reason?: string }[] } };

describe('fakes check: Google Health API v4', () => {
  let fake: GoogleHealthFake;
  let token = '';
  const day = isoDay(Math.floor(Date.now() / DAY_MS) - 10);
  const next = isoDay(Math.floor(Date.now() / DAY_MS) - 9);

  before(async () => {
    fake = await startGoogleHealthFake({ offsetMinutes: -480 });
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${fake.baseUrl}/o/oauth2/v2/auth`);
    authorize.search = new URLSearchParams({
      client_id: fake.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: ['activity_and_fitness', 'health_metrics_and_measurements', 'sleep', 'nutrition']
        .map((scope) => `${SCOPE}.${scope}.readonly`)
        .join(' '),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      access_type: 'offline',
      state: 's',
    }).toString();
    const code = (await followAuthorize(authorize.toString())).searchParams.get('code') ?? '';
    const answer = await fetch(`${fake.baseUrl}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }),
    });
    token = ((await answer.json()) as { access_token: string }).access_token;
    assert.ok(token);
  });
  after(() => fake?.close());

  async function list(
    type: string,
    query: Record<string, string>,
    method = '',
    bearer: string | null = token,
  ) {
    const url = new URL(`${fake.baseUrl}/v4/users/me/dataTypes/${type}/dataPoints${method}`);
    url.search = new URLSearchParams(query).toString();
    const response = await fetch(url, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
    return {
      status: response.status,
      body: (await response.json()) as GoogleError & Record<string, unknown>,
    };
  }
  async function rollUp(type: string, body: unknown) {
    const response = await fetch(`${fake.baseUrl}/v4/users/me/dataTypes/${type}/dataPoints:dailyRollUp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as GoogleError & Record<string, unknown>,
    };
  }
  const civil = (date: string, hours = 0) => {
    const [year, month, dayOfMonth] = date.split('-').map(Number);
    return { date: { year, month, day: dayOfMonth }, time: { hours, minutes: 0, seconds: 0 } };
  };
  const range = (member: string, from: string, to: string) =>
    `${member} >= "${from}" AND ${member} < "${to}"`;

  test('no token is 401 UNAUTHENTICATED', async () => {
    const answer = await list('steps', {}, '', null);
    assert.equal(answer.status, 401);
    assert.equal(answer.body.error?.status, 'UNAUTHENTICATED');
  });

  test('filters outside the documented grammar are 400 INVALID_DATA_POINT_FILTER', async () => {
    const refused = [
      ['exercise', range('exercise.interval.start_time', `${day}T00:00:00Z`, `${next}T00:00:00Z`)],
      ['sleep', range('sleep.interval.start_time', `${day}T00:00:00Z`, `${next}T00:00:00Z`)],
      ['sleep', range('sleep.interval.civil_start_time', day, next)],
      ['nutrition-log', range('nutrition_log.interval.start_time', `${day}T00:00:00Z`, `${next}T00:00:00Z`)],
      [
        'hydration-log',
        range('hydration_log.interval.civil_start_time', `${day}T00:00:00Z`, `${next}T00:00:00Z`),
      ],
      ['body-fat', range('body-fat.sample_time.physical_time', `${day}T00:00:00Z`, `${next}T00:00:00Z`)],
      ['steps', `steps.interval.start_time > "${day}T00:00:00Z"`],
      [
        'steps',
        `steps.interval.start_time >= "${day}T00:00:00Z" OR steps.interval.start_time < "${next}T00:00:00Z"`,
      ],
      ['daily-resting-heart-rate', range('daily_resting_heart_rate.date', `${day}T00:00:00Z`, next)],
    ];
    for (const [type = '', filter = ''] of refused) {
      const answer = await list(type, { filter });
      assert.equal(answer.status, 400, `${type}: ${filter}`);
      assert.equal(answer.body.error?.status, 'INVALID_ARGUMENT');
      assert.equal(answer.body.error?.details?.[0]?.reason, 'INVALID_DATA_POINT_FILTER', filter);
    }
  });

  test('the documented members select whole local days', async () => {
    const accepted = [
      ['exercise', range('exercise.interval.civil_start_time', day, next)],
      ['sleep', range('sleep.interval.end_time', `${day}T00:00:00Z`, `${next}T00:00:00Z`)],
      [
        'hydration-log',
        range('hydration_log.interval.civil_start_time', `${day}T00:00:00`, `${next}T00:00:00`),
      ],
      ['steps', range('steps.interval.start_time', `${day}T00:00:00Z`, `${next}T00:00:00Z`)],
      ['daily-resting-heart-rate', range('daily_resting_heart_rate.date', day, next)],
    ];
    for (const [type = '', filter = ''] of accepted)
      assert.equal((await list(type, { filter })).status, 200, filter);
    const water = await list('hydration-log', {
      filter: range('hydration_log.interval.civil_start_time', day, next),
    });
    assert.equal((water.body.dataPoints as unknown[]).length, 4, 'the four drinks of the local day');
  });

  test('page sizes: larger ones are truncated to the maximum (25 for sessions), negative ones refused', async () => {
    // The fake's exercise falls on even day numbers: of the days ten and eleven back, the one with one.
    const today = Math.floor(Date.now() / DAY_MS);
    const exerciseDay = today - 10 - ((today - 10) % 2);
    const filter = range('heart_rate.sample_time.civil_time', isoDay(exerciseDay), isoDay(exerciseDay + 1));
    const samples = pointsOf('heart-rate', fake.userOf(), exerciseDay).length;
    assert.ok(samples > 288, 'every five minutes, and every minute of a workout');
    const answer = await list('heart-rate', { filter });
    assert.equal((answer.body.dataPoints as unknown[]).length, samples, 'one page of the default 1440');
    const sessions = await list('sleep', { pageSize: '500' });
    assert.equal(sessions.status, 200);
    assert.ok((sessions.body.dataPoints as unknown[]).length <= 25);
    assert.equal((await list('heart-rate', { filter, pageSize: '-1' })).status, 400);
  });

  test('the reconciled stream counts a step once; the raw list has the phone’s too', async () => {
    const filter = range('steps.interval.civil_start_time', day, next);
    const raw = await list('steps', { filter });
    const reconciled = await list('steps', { filter }, ':reconcile');
    const total = (body: Record<string, unknown>) =>
      (body.dataPoints as { steps: { count: string } }[]).reduce(
        (sum, point) => sum + Number(point.steps.count),
        0,
      );
    assert.ok(total(raw.body) > total(reconciled.body));
    const [first] = reconciled.body.dataPoints as Record<string, unknown>[];
    assert.ok(first && 'dataPointName' in first && !('dataSource' in first), 'ReconciledDataPoint shape');
    const rolled = await rollUp('steps', {
      range: { start: civil(day), end: civil(next) },
      windowSizeDays: 1,
    });
    assert.equal(rolled.status, 200);
    const [window] = rolled.body.rollupDataPoints as { steps: { countSum: string } }[];
    assert.equal(Number(window?.steps.countSum), total(reconciled.body));
  });

  test('dailyRollUp refuses what Google refuses', async () => {
    const twentyDays = isoDay(Math.floor(Date.now() / DAY_MS) - 30);
    const cases: [string, unknown][] = [
      ['total-calories', { range: { start: civil(twentyDays), end: civil(day) } }],
      ['steps', { range: { start: civil(day, 6), end: civil(next) } }],
      ['steps', { range: { start: { year: 2026, month: 1, day: 1 }, end: civil(next) } }],
      ['steps', { range: { start: civil(day), end: civil(next) }, pageSize: 10 }],
      ['steps', {}],
      ['daily-resting-heart-rate', { range: { start: civil(day), end: civil(next) } }],
    ];
    for (const [type, body] of cases)
      assert.equal((await rollUp(type, body)).status, 400, JSON.stringify(body));
    assert.equal((await list('total-calories', {})).status, 400, 'total calories are rollup only');
    const days = pointsOf('active-energy-burned', fake.userOf(), Math.floor(Date.now() / DAY_MS) - 10);
    assert.ok(days.length > 0);
    const total = await rollUp('total-calories', { range: { start: civil(day), end: civil(next) } });
    assert.equal(total.status, 200);
    assert.equal((total.body.rollupDataPoints as unknown[]).length, 1);
  });
});
