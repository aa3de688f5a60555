// The whole path of a provider connector against its local fake, as one ordered suite: connect
// through the auth link, backfill 90 days, read every type through the data API, a provider
// notification reaching the developer as a data event, a refresh-token rotation under
// concurrent requests, a 429 and a 5xx burst, deauthentication with revocation. Each provider's
// test file supplies only what differs (`ConnectorCase`). Every wait is bounded and says what
// it waited for.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../src/model/time.ts';
import type { ProviderDataType } from '../../src/provider-kit/types.ts';
import { type Consent, type FakeServer, type Grant, providerEnv } from '../fakes/fake-server.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from './app.ts';
import { connectThroughFake } from './connections.ts';
import { dataRowCounts } from './users.ts';
import { setUrl } from './webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { until } from './until.ts';
import { freePort } from './ports.ts';

export type ConnectorFake = FakeServer & {
  clientId: string;
  clientSecret: string;
  consent: Consent;
  grants: Grant[];
};

export type ConnectorCase<F extends ConnectorFake> = {
  provider: string;
  /**
   * Runs the whole path but reports it as TODO, failures included: a provider scaffolded by
   * scripts/new-provider.ts keeps this until it speaks its real API. Says what is left to do.
   */
  todo?: string;
  /** Why the path cannot run here (a fake built from the shared provider samples, absent). */
  skip?: string | undefined;
  startFake(): Promise<F>;
  /** Env beyond the provider's credentials (e.g. a request budget as large as the fake allows). */
  env?: Record<string, string>;
  /** The types the provider offers, and which of them the fake always has records for. */
  types: readonly ProviderDataType[];
  /** Path prefix of the provider's data API (faults are injected there). */
  apiPrefix: string;
  /** The token endpoint's path (refreshes are counted there). */
  tokenPath: string;
  /** Points the provider's notifications at `publicUrl` (a subscription, or the dashboard URL). */
  subscribe(fake: F, service: TestService, publicUrl: string): Promise<void>;
  /** Sends one notification about a stored record of the user; returns the data event type expected. */
  notify(fake: F, stored: (type: ProviderDataType) => Promise<{ summary_id?: string }[]>): Promise<string>;
  /** Makes every access token the fake issued expire (its own way). */
  expireTokens(fake: F): void;
  /** Days the backfill covers (90 unless the provider serves less). */
  backfillDays?: number;
  /**
   * A provider with long-lived tokens and no refresh token: instead of the rotation test, the
   * post-consent step is run again (it must be idempotent) and no refresh is ever attempted.
   */
  longLivedTokens?: { reRegistered(fake: F): boolean };
  /** Pushes nothing (the scheduled poll brings the data event): its webhook route is a 404. */
  pollOnly?: boolean;
  /** No revocation endpoint: deauthentication only forgets the tokens here. */
  noRevocation?: boolean;
  /**
   * Connects in place of the OAuth redirect through the fake (a provider whose users hand over
   * an API key on Tributary's own page); returns what `connectThroughFake` does.
   */
  connect?(
    fake: F,
    service: TestService,
    developer: TestDeveloper,
    publicUrl: string,
  ): Promise<{ userId: string; landing: string }>;
};

type Event = Record<string, unknown> & { type: string; user?: { user_id: string }; data?: unknown[] };

const refreshesAt = (fake: ConnectorFake, tokenPath: string) =>
  fake.requests.filter(
    (request) => request.path === tokenPath && request.body.includes('grant_type=refresh_token'),
  );

export function runConnectorPath<F extends ConnectorFake>(spec: ConnectorCase<F>): void {
  const options = { todo: spec.todo, skip: spec.skip };
  describe(`${spec.provider} connector: the whole path against its fake`, options, () => {
    let fake: F;
    let service: TestService;
    let developer: TestDeveloper;
    let receiver: WebhookReceiver;
    let publicUrl: string;
    let userId: string;
    // The service's clock runs with real time plus a skew the tests move forward.
    let skewMs = 0;
    const today = () => dayNumberToIsoDate(Math.floor((Date.now() + skewMs) / MS_PER_DAY));

    const events = () => receiver.received.map((entry) => JSON.parse(entry.body) as Event);
    const read = (type: ProviderDataType, startDate: string, endDate: string) =>
      service.app.inject({
        method: 'GET',
        url:
          type === 'athlete'
            ? `/v2/athlete?user_id=${userId}&to_webhook=false`
            : `/v2/${type}?user_id=${userId}&start_date=${startDate}&end_date=${endDate}&to_webhook=false`,
        headers: developer.headers,
      });
    const stored = async (type: ProviderDataType) => {
      const response = await read(type, addDays(today(), -89), today());
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as { data: { metadata?: { summary_id?: string } }[] }).data.map((record) => ({
        ...(record.metadata?.summary_id ? { summary_id: record.metadata.summary_id } : {}),
      }));
    };
    const userStatus = async () =>
      (
        await service.ctx.db
          .selectFrom('connections')
          .select('status')
          .where('id', '=', userId)
          .executeTakeFirst()
      )?.status;

    before(async () => {
      fake = await spec.startFake();
      const port = await freePort();
      publicUrl = `http://127.0.0.1:${port}`;
      service = await startTestService({
        env: {
          ...providerEnv(spec.provider, fake),
          PUBLIC_URL: publicUrl,
          PROVIDER_HTTP_RETRY_BASE_MS: '50',
          ...spec.env,
        },
        clock: { now: () => new Date(Date.now() + skewMs) },
      });
      // Providers call back (handshakes, notifications): the app listens for real.
      await service.app.listen({ port, host: '127.0.0.1' });
      developer = await createDeveloper(service.ctx);
      receiver = await startWebhookReceiver();
      await setUrl(service, developer, receiver.url);
    });
    after(async () => {
      await service?.close();
      await receiver?.close();
      await fake?.close();
    });

    test('connect through the auth link', async () => {
      const connected = spec.connect
        ? await spec.connect(fake, service, developer, publicUrl)
        : await connectThroughFake(service.app, developer, spec.provider, fake, 'path-test');
      userId = connected.userId;
      assert.match(connected.landing, /user_id=/);
      await receiver.waitFor(
        () => events().some((event) => event.type === 'auth' && event.user?.user_id === userId),
        `the auth event for ${userId}`,
      );
      assert.equal(await userStatus(), 'active');
    });

    test('backfill 90 days, chunk by chunk, with progress', async () => {
      const progress = await until(
        'every type’s backfill to finish',
        () => service.ctx.connectors.backfill.progress(userId),
        {
          done: (rows) => rows.length === spec.types.length && rows.every((row) => row.status === 'done'),
          timeoutMs: 120_000,
        },
      );
      for (const row of progress) {
        assert.equal(row.chunksDone, row.chunksTotal, `${row.type}: every chunk done`);
        if (row.type !== 'athlete')
          assert.equal(
            row.startDay,
            addDays(row.endDay, -(spec.backfillDays ?? 90)),
            `${row.type}: ${spec.backfillDays ?? 90} days`,
          );
      }
      assert.ok(fake.requestsTo(spec.apiPrefix).length > spec.types.length, 'the provider API was read');
    });

    test('read every supported type through the data API', async () => {
      for (const type of spec.types) {
        const response = await read(type, addDays(today(), -89), today());
        assert.equal(response.statusCode, 200, `${type}: ${response.body}`);
        const body = response.json() as { data?: unknown[]; athlete?: unknown; type: string };
        assert.equal(body.type, type);
        if (type === 'athlete') assert.ok(body.athlete, 'an athlete profile');
        else assert.ok((body.data?.length ?? 0) > 0, `${type}: records over 90 days`);
      }
    });

    test('a provider notification reaches the developer as a data event', async () => {
      await spec.subscribe(fake, service, publicUrl);
      const before = receiver.received.length;
      const expected = await spec.notify(fake, stored);
      await receiver.waitFor(
        (list) =>
          list.slice(before).some((entry) => {
            const event = JSON.parse(entry.body) as Event;
            return event.type === expected && event.user?.user_id === userId && (event.data?.length ?? 0) > 0;
          }),
        `a ${expected} data event for ${userId} after the notification`,
        30_000,
      );
    });

    test('a notification with a wrong signature or from nowhere is refused', async () => {
      const response = await fetch(`${publicUrl}/providers/${spec.provider}/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"forged":true}',
      });
      assert.equal(response.status, spec.pollOnly ? 404 : 401, await response.text());
    });

    test('a refresh-token rotation under concurrent requests never locks the user out', async (t) => {
      const longLived = spec.longLivedTokens;
      if (longLived) {
        t.diagnostic('long-lived token: registering again instead of refreshing');
        await service.ctx.connectors.setup({ userId, provider: spec.provider });
        assert.ok(longLived.reRegistered(fake), 'the registration was sent again and answered');
        const answers = await Promise.all(
          spec.types.map((type) => read(type, addDays(today(), -150), addDays(today(), -145))),
        );
        for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
        assert.equal(refreshesAt(fake, spec.tokenPath).length, 0, 'never a refresh');
        assert.equal(await userStatus(), 'active');
        return;
      }
      for (const round of [1, 2]) {
        const refreshesBefore = refreshesAt(fake, spec.tokenPath).length;
        spec.expireTokens(fake);
        // Distinct ranges before the backfilled window, so every read goes to the provider.
        const reads = spec.types
          .filter((type) => type !== 'athlete')
          .flatMap((type) =>
            [0, 1].map((slot) => {
              const end = addDays(today(), -100 - 40 * round - 10 * slot);
              return read(type, addDays(end, -5), end);
            }),
          );
        const answers = await Promise.all(reads);
        for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
        assert.equal(
          refreshesAt(fake, spec.tokenPath).length - refreshesBefore,
          1,
          `round ${round}: one refresh`,
        );
        assert.equal(await userStatus(), 'active', `round ${round}: still connected`);
      }
    });

    test('survives a 429 and a 5xx burst', async () => {
      const type = spec.types.find((candidate) => candidate !== 'athlete') as ProviderDataType;
      fake.inject({ kind: 'rate_limit', times: 1, retryAfterSeconds: 1, match: spec.apiPrefix });
      let answer = await read(type, addDays(today(), -250), addDays(today(), -245));
      if (answer.statusCode === 503) {
        // The provider named a wait too long to sit out in a request: the client is told when to come back.
        const retryAfter = Number(answer.headers['retry-after']);
        assert.ok(retryAfter > 0, 'a Retry-After on the 503');
        skewMs += (retryAfter + 1) * 1000;
        answer = await read(type, addDays(today(), -250), addDays(today(), -245));
      }
      assert.equal(answer.statusCode, 200, answer.body);
      assert.ok(
        fake.requests.some((request) => request.fault === 'rate_limit'),
        'the 429 was served',
      );

      const faultsBefore = fake.requests.filter((request) => request.fault === 'server_error').length;
      fake.inject({ kind: 'server_error', times: 3, status: 503, match: spec.apiPrefix });
      answer = await read(type, addDays(today(), -270), addDays(today(), -265));
      assert.equal(answer.statusCode, 200, answer.body);
      assert.equal(
        fake.requests.filter((request) => request.fault === 'server_error').length - faultsBefore,
        3,
      );
      assert.equal(await userStatus(), 'active');
    });

    test('deauthenticate revokes the token at the provider and deletes everything stored for the user', async () => {
      const before = await dataRowCounts(service.ctx, userId);
      assert.ok(before.records > 0 && before.raw > 0, `stored before: ${JSON.stringify(before)}`);
      const response = await service.app.inject({
        method: 'DELETE',
        url: `/v2/auth/deauthenticateUser?user_id=${userId}`,
        headers: developer.headers,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.ok(
        spec.noRevocation || (fake.grants.length > 0 && fake.grants.every((grant) => grant.revoked)),
        'every grant revoked at the fake',
      );
      assert.deepEqual(await dataRowCounts(service.ctx, userId), {
        records: 0,
        raw: 0,
        coverage: 0,
        buckets: 0,
      });
      await receiver.waitFor(
        () => events().some((event) => event.type === 'deauth' && event.user?.user_id === userId),
        `the deauth event for ${userId}`,
      );
    });
  });
}
