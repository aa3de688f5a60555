// The `fit` output format end to end (docs/output-formats.md#fit-files): each provider that gives
// an activity's original FIT file (Wahoo's workout file on its CDN, Suunto's FIT export, Polar's
// exercise FIT) is connected through its fake over real sockets, its activities synced (the
// original kept beside the record), and an activity event of one activity reaches a real receiver
// as the FIT file's bytes, signed like every delivery. Without an original (a sandbox user, a
// damaged or oversized file) the delivery is the JSON payload with the fallback reason.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Decoder, Stream } from '@garmin/fitsdk';
import { FALLBACK_HEADER, FORMAT_HEADER } from '../../src/features/output-formats/formats.ts';
import { formatEventForDelivery } from '../../src/features/output-formats/format-event.ts';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../src/model/time.ts';
import { fitFileProblem } from '../../src/provider-kit/fit-file.ts';
import { ORIGINAL_FILE_MAX_BYTES } from '../../src/provider-kit/original-files.ts';
import { type FakeServer, providerEnv } from '../fakes/fake-server.ts';
import { type PolarFake, startPolarFake } from '../fakes/polar.ts';
import { startSuuntoFake } from '../fakes/suunto.ts';
import { startWahooFake } from '../fakes/wahoo.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser, connectThroughFake } from '../helpers/connections.ts';
import { logLines } from '../helpers/log-lines.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';
import { corruptFit } from '../helpers/small-fit.ts';
import { setUrl, standardSignatureMatches } from '../helpers/webhook-api.ts';
import {
  startWebhookReceiver,
  type ReceivedRequest,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.ts';

type Activity = { metadata: { summary_id: string; start_time: string } };

const today = () => dayNumberToIsoDate(Math.floor(Date.now() / MS_PER_DAY));

/** The summary ids of the originals kept for a connection. */
const keptFor = async (service: TestService, userId: string): Promise<Set<string>> =>
  new Set(
    (
      await service.ctx.db
        .selectFrom('original_files')
        .select('summary_id')
        .where('connection_id', '=', userId)
        .execute()
    ).map((row) => row.summary_id),
  );

/** A service with the fake's credentials, listening, and a developer set to `fit` with a receiver. */
async function setUp(env: Record<string, string>, logged?: ReturnType<typeof logLines>) {
  const service = await startTestService({
    env: { PROVIDER_HTTP_RETRY_BASE_MS: '50', ...(logged ? { LOG_LEVEL: 'warn' } : {}), ...env },
    ...(logged ? { logTo: logged.stream } : {}),
  });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const developer = await createDeveloper(service.ctx);
  const receiver = await startWebhookReceiver();
  await setUrl(service, developer, receiver.url);
  await service.ctx.outputFormats.set({ id: developer.devId }, 'fit');
  return { service, developer, receiver };
}

const activitiesOf = async (service: TestService, developer: TestDeveloper, userId: string, days = 28) => {
  const response = await service.app.inject({
    method: 'GET',
    url: `/v2/activity?user_id=${userId}&start_date=${addDays(today(), -days)}&end_date=${addDays(today(), 1)}&to_webhook=false`,
    headers: developer.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as { data: Activity[] }).data;
};

/** Days on which exactly one of `activities` starts (its local day, as the wire writes it). */
function loneActivities(activities: readonly Activity[]): Activity[] {
  const byDay = new Map<string, Activity[]>();
  for (const activity of activities) {
    const day = activity.metadata.start_time.slice(0, 10);
    byDay.set(day, [...(byDay.get(day) ?? []), activity]);
  }
  return [...byDay.values()].filter((list) => list.length === 1).map((list) => list[0]!);
}

/** Asks for the activity event of the day of `activity` and waits for its delivery. */
async function deliveryOfDay(
  service: TestService,
  developer: TestDeveloper,
  receiver: WebhookReceiver,
  userId: string,
  activity: Activity,
): Promise<ReceivedRequest> {
  const day = activity.metadata.start_time.slice(0, 10);
  const ack = await service.app.inject({
    method: 'GET',
    url: `/v2/activity?user_id=${userId}&start_date=${day}&end_date=${addDays(day, 1)}&to_webhook=true`,
    headers: developer.headers,
  });
  assert.equal(ack.statusCode, 200, ack.body);
  const { reference } = ack.json() as { reference: string };
  await receiver.waitFor(
    (list) => list.some((entry) => entry.headers['service-reference'] === reference),
    `the activity event of ${day}`,
    30_000,
  );
  return receiver.received.find((entry) => entry.headers['service-reference'] === reference)!;
}

function assertFitDelivery(delivery: ReceivedRequest, developer: TestDeveloper): Decoder {
  assert.equal(delivery.headers['content-type'], 'application/vnd.ant.fit');
  assert.equal(delivery.headers[FORMAT_HEADER], 'fit');
  assert.equal(delivery.headers[FALLBACK_HEADER], undefined);
  assert.ok(delivery.headers['webhook-id'], 'the delivery carries its event id');
  assert.ok(standardSignatureMatches(delivery.headers, delivery.raw, developer.webhookSecret), 'signed');
  assert.equal(fitFileProblem(delivery.raw), null, 'a whole FIT file');
  assert.ok(new Decoder(Stream.fromBuffer(delivery.raw)).checkIntegrity(), "the FIT SDK's own check");
  return new Decoder(Stream.fromBuffer(delivery.raw));
}

const firstRecordAt = (decoder: Decoder): number => {
  const { messages } = decoder.read({ convertDateTimesToDates: true });
  const first = messages.recordMesgs?.[0] as { timestamp?: Date } | undefined;
  assert.ok(first?.timestamp, 'the file has records');
  return first.timestamp.getTime();
};

/** Deauthentication deletes the connection's originals with the rest of its data. */
async function deauthenticateAndCheck(service: TestService, developer: TestDeveloper, userId: string) {
  assert.ok((await keptFor(service, userId)).size > 0, 'originals kept before');
  const response = await service.app.inject({
    method: 'DELETE',
    url: `/v2/auth/deauthenticateUser?user_id=${userId}`,
    headers: developer.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  assert.equal((await keptFor(service, userId)).size, 0, 'no original left after deauthentication');
}

type ProviderCase = {
  provider: string;
  /** Why the fake cannot run here (Polar's builds documents from the shared provider samples). */
  skip?: string | undefined;
  start(): Promise<FakeServer & { baseUrl: string }>;
  env?: Record<string, string>;
};

const cases: ProviderCase[] = [
  {
    provider: 'WAHOO',
    async start() {
      const fake = await startWahooFake({ webhookToken: 'wahoo-fit-token' });
      fake.limitPer5Minutes = 100_000;
      return fake;
    },
    env: {
      WAHOO_REQUEST_BUDGET: '100000/300,100000/3600,100000/86400',
      WAHOO_WEBHOOK_SECRET: 'wahoo-fit-token',
    },
  },
  {
    provider: 'SUUNTO',
    start: () =>
      startSuuntoFake({ subscriptionKey: 'suunto-fit-key', notificationSecret: 'suunto-fit-secret' }),
    env: {
      SUUNTO_SUBSCRIPTION_KEY: 'suunto-fit-key',
      SUUNTO_WEBHOOK_SECRET: 'suunto-fit-secret',
      SUUNTO_REQUEST_BUDGET: '100000/60,1000000/86400',
    },
  },
  {
    provider: 'POLAR',
    skip: missingProviderSamples(),
    start: startPolarRegisteredBefore,
    env: { POLAR_WEBHOOK_SECRET: 'polar-fit-secret' },
  },
];

/**
 * Polar lists only exercises uploaded after registration: the account was registered with this
 * app a month ago (a reconnection), as in connector-polar.test.ts.
 */
async function startPolarRegisteredBefore(): Promise<PolarFake> {
  const fake = await startPolarFake({ offsetMinutes: 0, signatureSecretKey: 'polar-fit-secret' });
  fake.registrations.set(fake.consent.account, {
    memberId: 'registered-before',
    at: Date.now() - 31 * MS_PER_DAY,
  });
  return fake;
}

for (const spec of cases) {
  describe(
    `output format fit: ${spec.provider}'s original FIT file at a real receiver`,
    { skip: spec.skip },
    () => {
      let fake: FakeServer & { baseUrl: string };
      let setup: Awaited<ReturnType<typeof setUp>>;
      before(async () => {
        fake = await spec.start();
        setup = await setUp({ ...providerEnv(spec.provider, fake as never), ...spec.env });
      });
      after(async () => {
        await setup?.service.close();
        await setup?.receiver.close();
        await fake?.close();
      });

      test('an activity event of one activity is the FIT file, signed, as kept for its connection', async () => {
        const { service, developer, receiver } = setup;
        const { userId } = await connectThroughFake(service.app, developer, spec.provider, fake, 'fit-user');
        const lone = loneActivities(await activitiesOf(service, developer, userId));
        assert.ok(lone.length > 0, 'a day with one activity');
        const activity = lone[0]!;
        const delivery = await deliveryOfDay(service, developer, receiver, userId, activity);
        const decoder = assertFitDelivery(delivery, developer);
        assert.ok(
          (await keptFor(service, userId)).has(activity.metadata.summary_id),
          'kept for its connection',
        );
        // The file is this activity's: its first record is at the activity's start (a second's slack
        // for the provider's rounding; Polar's fake writes local time as UTC, its offset is 0 here).
        const startedAt = Date.parse(activity.metadata.start_time);
        assert.ok(Math.abs(firstRecordAt(decoder) - startedAt) <= 1000, 'the activity’s own file');
        await deauthenticateAndCheck(service, developer, userId);
        if (spec.provider === 'POLAR') {
          const polar = fake as unknown as PolarFake;
          assert.deepEqual(
            new Uint8Array(delivery.raw),
            polar.exerciseFit(activity.metadata.summary_id, activity.metadata.start_time.slice(0, 19)),
            'byte for byte what Polar served',
          );
        }
      });
    },
  );
}

describe(
  'output format fit: no original, a damaged one, an oversized one',
  { skip: missingProviderSamples() },
  () => {
    let fake: PolarFake;
    let setup: Awaited<ReturnType<typeof setUp>>;
    const logged = logLines<{ msg?: string; summaryId?: string; problem?: string }>();
    before(async () => {
      fake = await startPolarRegisteredBefore();
      setup = await setUp(
        { ...providerEnv('POLAR', fake), POLAR_WEBHOOK_SECRET: 'polar-fit-secret' },
        logged,
      );
    });
    after(async () => {
      await setup?.service.close();
      await setup?.receiver.close();
      await fake?.close();
    });

    const assertJsonFallback = (delivery: ReceivedRequest, summaryId: string) => {
      assert.equal(delivery.headers['content-type'], 'application/json');
      assert.equal(delivery.headers[FORMAT_HEADER], 'json');
      assert.equal(delivery.headers[FALLBACK_HEADER], 'no-original-fit-file');
      assert.ok(standardSignatureMatches(delivery.headers, delivery.raw, setup.developer.webhookSecret));
      const payload = JSON.parse(delivery.body) as { type: string; data: Activity[] };
      assert.equal(payload.type, 'activity');
      assert.equal(payload.data[0]?.metadata.summary_id, summaryId);
    };

    test('a provider with no original files (sandbox): the JSON payload, saying why', async () => {
      const { service, developer, receiver } = setup;
      const { userId } = await connectSandboxUser(service.app, developer);
      const lone = loneActivities(await activitiesOf(service, developer, userId, 14));
      assert.ok(lone.length > 0, 'a sandbox day with one activity');
      const delivery = await deliveryOfDay(service, developer, receiver, userId, lone[0]!);
      assertJsonFallback(delivery, lone[0]!.metadata.summary_id);
    });

    test('a damaged and an oversized file are not kept; their activities go as JSON, the others as FIT, to their owner only', async () => {
      const { service, developer, receiver } = setup;
      // Which exercise gets which file is decided by its id, before anything is fetched.
      const served = new Map<string, 'damaged' | 'oversized' | 'intact'>();
      const turns = ['damaged', 'oversized', 'intact'] as const;
      fake.fitOf = (id, usual) => {
        if (!served.has(id)) served.set(id, turns[served.size % turns.length]!);
        const kind = served.get(id);
        if (kind === 'damaged') return corruptFit(usual);
        if (kind === 'oversized') {
          // A valid header naming a body past the limit: refused by size, never read whole.
          const huge = new Uint8Array(ORIGINAL_FILE_MAX_BYTES + 1024);
          huge.set(usual.subarray(0, 14));
          return huge;
        }
        return null;
      };
      const { userId } = await connectThroughFake(service.app, developer, 'POLAR', fake, 'fit-hostile');
      const lone = loneActivities(await activitiesOf(service, developer, userId));
      const byKind = (kind: 'damaged' | 'oversized' | 'intact') =>
        lone.find((activity) => served.get(activity.metadata.summary_id) === kind);
      for (const kind of ['damaged', 'oversized'] as const) {
        const activity = byKind(kind);
        assert.ok(activity, `a day whose one exercise has a ${kind} file`);
        assertJsonFallback(
          await deliveryOfDay(service, developer, receiver, userId, activity),
          activity.metadata.summary_id,
        );
      }
      // Each refused file is logged with its activity and the reason.
      const reasons = new Map(
        logged.lines
          .filter((line) => line.msg === 'original file not kept')
          .map((line) => [line.summaryId, line.problem]),
      );
      for (const [id, kind] of served) {
        if (kind === 'damaged') assert.equal(reasons.get(id), 'FIT file CRC does not match');
        if (kind === 'oversized')
          assert.match(reasons.get(id) ?? '', /more than 16 MB \(the limit of an original file\)/);
      }
      const kept = await keptFor(service, userId);
      for (const [id, kind] of served) assert.equal(kept.has(id), kind === 'intact', `${kind} ${id}`);
      const intact = byKind('intact');
      assert.ok(intact, 'a day whose one exercise has its file');
      assertFitDelivery(await deliveryOfDay(service, developer, receiver, userId, intact), developer);
      // Owner-only: the same activity in another developer's event (same user_id and summary_id)
      // finds no file; the connection's own developer does.
      const other = await createDeveloper(service.ctx);
      await service.ctx.outputFormats.set({ id: other.devId }, 'fit');
      const event = {
        id: 'evt-owner',
        type: 'activity',
        createdAt: new Date(),
        body: JSON.stringify({ type: 'activity', user: { user_id: userId }, data: [intact] }),
      };
      const foreign = await formatEventForDelivery({ db: service.ctx.db }, other.devId, event);
      assert.equal(foreign.headers[FALLBACK_HEADER], 'no-original-fit-file');
      const own = await formatEventForDelivery({ db: service.ctx.db }, developer.devId, event);
      assert.equal(own.headers[FORMAT_HEADER], 'fit');
      // The process is still serving.
      const health = await fetch(
        `http://127.0.0.1:${(service.app.server.address() as { port: number }).port}/health`,
      );
      assert.ok(health.status < 500);
    });

    test('a range synced again fetches no file already kept (each costs a request)', async () => {
      const { service, developer } = setup;
      fake.fitOf = null;
      const { userId } = await connectThroughFake(service.app, developer, 'POLAR', fake, 'fit-again');
      const since = fake.requests.length;
      const fitsAsked = () =>
        fake.requests
          .slice(since)
          .filter((request) => /^\/v3\/exercises\/[^/]+\/fit$/.test(request.path))
          .map((request) => request.path);
      const listsAsked = () =>
        fake.requests.slice(since).filter((request) => request.path === '/v3/exercises').length;
      await activitiesOf(service, developer, userId);
      const first = fitsAsked();
      const kept = await keptFor(service, userId);
      assert.ok(kept.size > 0, 'files kept by the first sync');
      assert.equal(first.length, kept.size, 'one request per kept file');
      // The days' coverage forgotten: the same range is read from Polar again.
      const listsBefore = listsAsked();
      await service.ctx.db.deleteFrom('sync_coverage').where('user_id', '=', userId).execute();
      await activitiesOf(service, developer, userId);
      assert.ok(listsAsked() > listsBefore, 'the exercises were read from Polar again');
      assert.deepEqual(fitsAsked(), first, 'no FIT file asked for again');
      assert.deepEqual(await keptFor(service, userId), kept, 'the kept files stay');
    });
  },
);
