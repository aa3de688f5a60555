import assert from 'node:assert/strict';
import { addDays } from '../../src/model/time.ts';
import { startTrainingPeaksFake, type TrainingPeaksFake } from '../fakes/trainingpeaks.ts';
import { runConnectorPath } from '../helpers/connector-path.ts';

// TrainingPeaks end to end against its fake: space-separated scopes, the athlete id from
// /v1/athlete/profile, completed workouts as activities and planned ones as planned workouts,
// metrics as daily, body and sleep, a change found by the scheduled poll of /v2/workouts/changed
// (every 3 s here), refresh-token rotation, a 429 and a 5xx burst, and deauthorization.
runConnectorPath<TrainingPeaksFake>({
  provider: 'TRAININGPEAKS',
  startFake: () => startTrainingPeaksFake(),
  env: {
    TRAININGPEAKS_POLL_MINUTES: '0.05',
    TRAININGPEAKS_REQUEST_BUDGET: '100000/60,1000000/86400',
  },
  types: ['activity', 'daily', 'body', 'sleep', 'athlete', 'plannedWorkout'],
  apiPrefix: '/v2/',
  tokenPath: '/oauth/token',
  pollOnly: true,
  async subscribe() {},
  async notify(fake, stored) {
    assert.ok((await stored('activity')).length > 0, 'stored workouts');
    fake.modify(addDays(new Date().toISOString().slice(0, 10), -3));
    return 'activity';
  },
  expireTokens: (fake) => fake.expireAccessTokens(),
});
