import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { NOTIFICATION_QUEUE } from '../../src/features/connectors/notification-queues.ts';
import type { GarminFake, GarminKind, PullHold } from '../fakes/garmin.ts';
import { createDeveloper, type TestService } from '../helpers/app.ts';
import { startServiceWithGarminFake } from '../helpers/garmin-service.ts';
import { connectThroughFake, untilBackfilled, untilScopes } from '../helpers/connections.ts';
import { findJobs, unsettledJobs } from '../helpers/jobs.ts';
import { until } from '../helpers/until.ts';

// A notification about the account itself (a permission change, a deregistration) decides whether
// Tributary may call the provider at all, so it takes effect while the account's data refetches
// are still running or queued (a large backfill queues dozens): the fake holds every summary pull
// unanswered, so the refetches can neither finish nor free a worker, and the permission change
// must be stored all the same.

describe('GARMIN account notifications go ahead of data refetches', () => {
  let fake: GarminFake;
  let service: TestService;
  let userId: string;
  let hold: PullHold | undefined;
  const kinds: GarminKind[] = ['dailies', 'epochs', 'stressDetails', 'sleeps', 'bodyComps', 'activities'];
  const dataJobs = () => unsettledJobs(service.ctx, NOTIFICATION_QUEUE);

  before(async () => {
    ({ fake, service } = await startServiceWithGarminFake());
    const developer = await createDeveloper(service.ctx);
    ({ userId } = await connectThroughFake(service.app, developer, 'GARMIN', fake, 'account-first'));
    await untilBackfilled(service, userId, { types: 7 });
    // Configured only now, so no backfill delivery is in flight when the test begins.
    const { port } = service.app.server.address() as AddressInfo;
    fake.endpointUrl = `http://127.0.0.1:${port}/providers/GARMIN/webhook`;
  });
  after(async () => {
    hold?.release();
    await service?.close();
    await fake?.close();
  });

  test('a permission change is stored while the data refetches before it are held at Garmin', async () => {
    const held = fake.holdPulls();
    hold = held;
    for (const kind of kinds) assert.equal((await fake.ping(kind)).status, 200);
    // Companion kinds fold into one refetch, so the count is read, not assumed.
    let refetches = 0;
    await until('refetches running on held pulls, and more queued behind them', async () => {
      const jobs = await dataJobs();
      refetches = jobs.length;
      const running = jobs.filter((job) => job.state === 'active').length;
      return running >= 2 && held.waiting() >= running && jobs.some((job) => job.state === 'created');
    });

    assert.equal((await fake.setPermissions(['ACTIVITY_EXPORT', 'HEALTH_EXPORT'])).status, 200);
    await untilScopes(service, userId, 'ACTIVITY_EXPORT HEALTH_EXPORT');

    // Not one data refetch has finished: the change went ahead of all of them.
    assert.equal((await dataJobs()).length, refetches);
    assert.ok(held.waiting() >= 2);

    held.release();
    await until('the held refetches finished', async () => (await dataJobs()).length === 0);
    const states = (await findJobs(service.ctx, NOTIFICATION_QUEUE)).map((job) => job.state);
    assert.deepEqual(
      states.filter((state) => state !== 'completed'),
      [],
    );
    assert.deepEqual(fake.refusals, [], 'Garmin refused none of our requests');
  });
});
