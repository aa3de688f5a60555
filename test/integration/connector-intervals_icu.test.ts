import assert from 'node:assert/strict';
import { type IntervalsIcuFake, startIntervalsIcuFake } from '../fakes/intervals_icu.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';
import { addDays, isoDateToDayNumber } from '../../src/model/time.ts';

// Intervals.icu end to end against its fake: comma-separated scopes, the athlete id read from
// /api/v1/athlete/0, activities paged by moving `newest` back, wellness read as daily, body and
// sleep, planned workouts from the calendar, the app's webhook (its secret in the body), and
// disconnect-app at deauthentication. Tokens never expire and there is no refresh token, so the
// post-consent check runs again instead of a refresh rotation.
const WEBHOOK_SECRET = 'intervals-webhook-secret-for-tests';

runConnectorPath<IntervalsIcuFake>({
  provider: 'INTERVALS_ICU',
  startFake: () => startIntervalsIcuFake({ webhookSecret: WEBHOOK_SECRET }),
  env: {
    INTERVALS_ICU_WEBHOOK_SECRET: WEBHOOK_SECRET,
    INTERVALS_ICU_REQUEST_BUDGET: '100000/1,1000000/3600',
  },
  types: ['activity', 'daily', 'body', 'sleep', 'athlete', 'plannedWorkout'],
  apiPrefix: '/api/v1/athlete/0/',
  tokenPath: '/api/oauth/token',
  async subscribe(fake, _service, publicUrl) {
    // The backfill paged: a full page of 100 was followed by one ending at its oldest start.
    const reads = fake.requestsTo('/api/v1/athlete/0/activities');
    assert.ok(
      reads.some((read) => read.query.limit === '100' && !String(read.query.newest).endsWith('T23:59:59')),
      'a second page was asked for',
    );
    fake.webhookUrl = `${publicUrl}/providers/INTERVALS_ICU/webhook`;
    const athlete = fake.athleteIdOf('account-1');
    const forged = await fake.notify(
      [
        {
          athlete_id: athlete,
          type: 'ACTIVITY_UPDATED',
          timestamp: new Date().toISOString(),
          activity: { id: 'i1' },
        },
      ],
      'guessed',
    );
    assert.equal(forged.status, 401, 'a delivery without the configured secret is refused');
    const other = await fake.notify([
      { athlete_id: athlete, type: 'SPORT_SETTINGS_UPDATED', timestamp: new Date().toISOString() },
    ]);
    assert.equal(other.status, 200, 'an event type not read here is acknowledged');
  },
  async notify(fake) {
    // A wellness change on a recent day with entries: daily, body and sleep of it are fetched again.
    const today = new Date().toISOString().slice(0, 10);
    const day = [2, 3, 4, 5, 6, 7, 8]
      .map((back) => addDays(today, -back))
      .find((date) => isoDateToDayNumber(date) % 7 < 5)!;
    const delivery = await fake.notify([
      {
        athlete_id: fake.athleteIdOf('account-1'),
        type: 'WELLNESS_UPDATED',
        timestamp: new Date().toISOString(),
        records: [{ id: day, weight: 61.2, restingHR: 49 }],
      },
    ]);
    assert.equal(delivery.status, 200, delivery.responseBody);
    return 'body';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
  longLivedTokens: {
    // The post-consent check (GET /api/v1/athlete/0) was sent again and answered 200.
    reRegistered: (fake) => {
      const last = fake.requests.at(-1);
      return last?.path === '/api/v1/athlete/0' && last.status === 200;
    },
  },
});
