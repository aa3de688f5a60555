import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  NOTIFICATION_QUEUE,
  type NotificationJob,
  REFETCHES_PER_ACCOUNT,
} from '../../src/features/connectors/notification-queues.ts';
import { type FakeRequest, providerEnv, type RequestHold } from '../fakes/fake-server.ts';
import { type OuraFake, startOuraFake } from '../fakes/oura.ts';
import { createDeveloper, type TestDeveloper, type TestService, startTestService } from '../helpers/app.ts';
import { connectThroughFake, untilBackfilled } from '../helpers/connections.ts';
import { findJobs, TERMINAL_JOB_STATES } from '../helpers/jobs.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';
import { until } from '../helpers/until.ts';

// One account's burst of signed notifications must not hold up everyone else's. Each signed
// notification is one refetch job, and one can run for tens of seconds (a large answer): when
// the queue was one first-in-first-out line, an account that sent a burst took every worker and
// queued the rest of its burst ahead of the other accounts. Here the fake holds every API request
// of account A unanswered, so A's refetches can neither finish nor free a worker, and account B's
// refetch must be stored all the same.

describe(
  'OURA notification refetches: one account’s burst does not hold up another’s',
  { skip: missingProviderSamples() },
  () => {
    let fake: OuraFake;
    let service: TestService;
    let developer: TestDeveloper;
    let webhookUrl: string;
    let hold: RequestHold | undefined;
    const users = new Map<string, string>();

    const connect = async (account: string) => {
      fake.consent.account = account;
      const { userId } = await connectThroughFake(service.app, developer, 'OURA', fake, account);
      users.set(account, userId);
      await untilBackfilled(service, userId, { types: 5 });
    };
    /** The ids of an account's stored sleeps, read back through the data API. */
    const storedSleeps = async (account: string) => {
      const today = new Date().toISOString().slice(0, 10);
      const start = new Date(Date.now() - 80 * 86_400_000).toISOString().slice(0, 10);
      const answer = await service.app.inject({
        method: 'GET',
        url: `/v2/sleep?user_id=${users.get(account)}&start_date=${start}&end_date=${today}&to_webhook=false`,
        headers: developer.headers,
      });
      assert.equal(answer.statusCode, 200, answer.body);
      const ids = (answer.json() as { data: { metadata?: { summary_id?: string } }[] }).data.flatMap(
        (record) => (record.metadata?.summary_id ? [record.metadata.summary_id] : []),
      );
      assert.ok(ids.length >= 4, `${account}: stored sleeps to be notified about`);
      return ids;
    };
    const notify = async (account: string, objectId: string) => {
      const delivery = await fake.sendWebhook(webhookUrl, {
        event_type: 'update',
        data_type: 'sleep',
        object_id: objectId,
        user_id: fake.userIdOf(account),
      });
      assert.equal(delivery.status, 200, delivery.responseBody);
    };
    const refetchesOf = async (account: string) =>
      (await findJobs<NotificationJob>(service.ctx, NOTIFICATION_QUEUE)).filter(
        (job) =>
          'notification' in job.data && job.data.notification.providerUserId === fake.userIdOf(account),
      );
    const settled = (state: string) => (TERMINAL_JOB_STATES as readonly string[]).includes(state);
    /** An API request made with one of `account`'s tokens (its refetches' reads). */
    const byAccount = (account: string) => (request: FakeRequest) =>
      request.path.startsWith('/v2/usercollection') &&
      fake.grants.some((grant) => grant.account === account && grant.accessToken === request.bearer);

    /** The API reads made with `account`'s tokens, as the fake recorded them. */
    const readsOf = (account: string) =>
      fake.requests.filter(
        (request) =>
          request.path.startsWith('/v2/usercollection') &&
          fake.grants.some(
            (grant) =>
              grant.account === account && request.headers.authorization === `Bearer ${grant.accessToken}`,
          ),
      );

    before(async () => {
      fake = await startOuraFake();
      service = await startTestService({ env: providerEnv('OURA', fake) });
      await service.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = service.app.server.address() as AddressInfo;
      webhookUrl = `http://127.0.0.1:${port}/providers/OURA/webhook`;
      developer = await createDeveloper(service.ctx);
      await connect('account-a');
      await connect('account-b');
    });
    after(async () => {
      hold?.release();
      await service?.close();
      await fake?.close();
    });

    test('account B’s refetch is stored while account A’s burst is held at the provider', async () => {
      const aSleeps = await storedSleeps('account-a');
      const [bSleep] = await storedSleeps('account-b');
      assert.ok(bSleep);
      const held = fake.hold(byAccount('account-a'));
      hold = held;
      const burst = aSleeps.slice(0, 4);
      for (const sleep of burst) await notify('account-a', sleep);
      await until('A’s refetches held at Oura, and more of A’s queued behind them', async () => {
        const jobs = await refetchesOf('account-a');
        return (
          jobs.length === burst.length &&
          held.waiting() >= 1 &&
          jobs.some((job) => job.state === 'active') &&
          jobs.some((job) => job.state === 'created')
        );
      });

      const bReadsBefore = readsOf('account-b').length;
      await notify('account-b', bSleep);
      const [bJob] = await until('B’s refetch to finish while A’s are held', () => refetchesOf('account-b'), {
        done: (jobs) => jobs.length === 1 && jobs.every((job) => settled(job.state)),
        show: (jobs) => JSON.stringify(jobs.map((job) => job.state)),
      });
      assert.equal(bJob?.state, 'completed');
      const bReads = readsOf('account-b').slice(bReadsBefore);
      assert.ok(
        bReads.length > 0 && bReads.every((request) => request.status === 200),
        'Oura answered B’s reads',
      );

      // Not one of A's refetches has finished: B went past them, not after them.
      assert.ok(held.waiting() >= 1, 'A’s reads still held');
      const aJobs = await refetchesOf('account-a');
      assert.equal(aJobs.filter((job) => settled(job.state)).length, 0);
      assert.ok(
        aJobs.filter((job) => job.state === 'active').length <= REFETCHES_PER_ACCOUNT,
        'no more of A’s running than one account may',
      );

      held.release();
      const finished = await until(
        'A’s refetches to finish once Oura answers',
        () => refetchesOf('account-a'),
        {
          done: (jobs) => jobs.every((job) => settled(job.state)),
          show: (jobs) => JSON.stringify(jobs.map((job) => job.state)),
        },
      );
      assert.deepEqual(
        finished.map((job) => job.state),
        burst.map(() => 'completed'),
      );
    });
  },
);
