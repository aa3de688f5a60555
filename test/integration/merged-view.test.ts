// One person, three sources, end to end: a Garmin watch and an Oura ring connected through their
// strict fakes (real OAuth, real backfills, Garmin's pings over a real socket), and an iPhone
// through the SDK upload route, all sharing reference_id `alex`. Read through /v3/people with the
// choices asserted against each source's own records, settings changed over a real socket, and
// the `merged` webhook event received after the phone's upload changes the person's day.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { MERGE_CHANGED_QUEUE, type PersonChangedJob } from '../../src/features/merge/service.ts';
import { addDays, dayNumberToIsoDate, MS_PER_DAY } from '../../src/model/time.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { type GarminFake, startGarminFake } from '../fakes/garmin.ts';
import { type OuraFake, startOuraFake } from '../fakes/oura.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectThroughFake, untilBackfilled } from '../helpers/connections.ts';
import { sdkConnect, uploadAndSettle } from '../helpers/mobile.ts';
import { findJobs, unsettledJobs } from '../helpers/jobs.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';
import { until } from '../helpers/until.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, asserted field by field
type Wire = Record<string, any>;

const OFFSET_MINUTES = 60;
/** The ring's fake builds its documents from the shared provider samples; without them the ring's part is skipped. */
const noRing = missingProviderSamples();

describe('merged view: one person across a Garmin watch, an Oura ring and an iPhone', () => {
  let garmin: GarminFake;
  let oura: OuraFake | undefined;
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let baseUrl: string;
  const connections: Record<string, string> = {};
  let phoneUploadToken = '';
  // A settled day in the backfill's range, yesterday in the fakes' +01:00.
  const day = addDays(
    dayNumberToIsoDate(Math.floor((Date.now() + OFFSET_MINUTES * 60_000) / MS_PER_DAY)),
    -1,
  );
  const nextDay = addDays(day, 1);

  const http = (method: string, path: string, body?: unknown) =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...developer.headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const person = async (type: string, query = `start_date=${day}&end_date=${nextDay}`) => {
    const response = await http('GET', `/v3/people/alex/${type}?${query}`);
    const body = (await response.json()) as Wire;
    assert.equal(response.status, 200, JSON.stringify(body));
    return body;
  };
  const own = async (provider: string, type: string, from = day, to = nextDay) => {
    const response = await http(
      'GET',
      `/v3/connections/${connections[provider]}/${type}?start_date=${from}&end_date=${to}&with_samples=true`,
    );
    const body = (await response.json()) as Wire;
    assert.equal(response.status, 200, JSON.stringify(body));
    return body['data'] as Wire[];
  };
  const providerOf = (record: Wire, index: number) => record['provenance'].sources[index].provider as string;
  const events = () => receiver.received.map((entry) => JSON.parse(entry.body) as Wire);

  async function connect(provider: string, fake: { baseUrl: string }, backfills: number) {
    const link = await connectThroughFake(service.app, developer, provider, fake, 'alex');
    connections[provider] = link.userId;
    await untilBackfilled(service, link.userId, {
      types: backfills,
      timeoutMs: 180_000,
      what: `${provider}'s backfill`,
    });
  }

  before(async () => {
    garmin = await startGarminFake({ offsetMinutes: OFFSET_MINUTES });
    if (!noRing) oura = await startOuraFake({ offsetMinutes: OFFSET_MINUTES });
    service = await startTestService({
      env: {
        ...providerEnv('GARMIN', garmin),
        ...(oura ? providerEnv('OURA', oura) : {}),
        GARMIN_REQUEST_BUDGET: '100000/60',
        PROVIDER_HTTP_RETRY_BASE_MS: '20',
        MERGED_EVENT_DELAY_SECONDS: '0',
      },
    });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = service.app.server.address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    garmin.endpointUrl = `${baseUrl}/providers/GARMIN/webhook`;
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
    await garmin?.close();
    await oura?.close();
  });

  test('connect the watch (Garmin) and, with the shared samples, the ring (Oura), both as alex', async (t) => {
    await connect('GARMIN', garmin, 7);
    // Garmin delivers its backfill through pings; wait until the day's records are in.
    await until(
      'the Garmin day and night stored',
      async () =>
        (await own('GARMIN', 'daily')).length === 1 &&
        (await own('GARMIN', 'sleep', addDays(day, -6), nextDay)).length >= 5,
      { timeoutMs: 120_000 },
    );
    if (!oura) return t.skip(`no ring: ${noRing}`);
    await connect('OURA', oura, 5);
  });

  test('merge settings: refused names say what is wrong; merged events turn on (over a real socket)', async () => {
    const refused = await http('PUT', '/v3/merge-priorities', { priorities: { sleep: ['OURA', 'toaster'] } });
    assert.equal(refused.status, 400);
    assert.match(refused.headers.get('content-type') ?? '', /problem\+json/);
    assert.match(((await refused.json()) as Wire)['detail'], /priorities\.sleep\[1\].*toaster/);
    const family = await http('PUT', '/v3/merge-priorities', { priorities: { steps: ['watch'] } });
    assert.equal(family.status, 400, 'an unknown family');
    assert.match(((await family.json()) as Wire)['detail'], /unknown metric family "steps"/);
    const saved = await http('PUT', '/v3/merge-priorities', { merged_events: true });
    assert.equal(saved.status, 200);
    assert.deepEqual(await saved.json(), { priorities: {}, merged_events: true });
  });

  test('the phone joins: its upload changes alex’s day, and one merged daily event says so', async () => {
    const phone = await sdkConnect(service.app, developer, 'APPLE', 'alex');
    connections['APPLE'] = phone.userId;
    phoneUploadToken = phone.uploadToken;
    const before = receiver.received.length;
    await uploadAndSettle(service.ctx, service.app, phoneUploadToken, phoneSteps(day));
    await receiver
      .waitFor(
        (list) =>
          list.slice(before).some((entry) => {
            const event = JSON.parse(entry.body) as Wire;
            return event['type'] === 'merged' && event['data_type'] === 'daily' && event['day'] === day;
          }),
        'a merged daily event for the day',
        // The watch's backfill answers (90 days of dailies, sleeps…) can still be arriving after
        // merged events are turned on, each day a merge job queued before the phone's (older jobs
        // first). Until the queue's workers fetched again after each job (jobs/queue.ts fetchAgain),
        // those drained one per 5 s poll and the day's job sat in `created` for minutes in a
        // whole-suite run; they now take their handlers' time, which a loaded machine stretches.
        // The message below counts what queued before the day's job.
        180_000,
      )
      .catch(async (error: unknown) => {
        // What the merge queue did with the day: the one thing a timeout here cannot show itself.
        const jobs = await findJobs<PersonChangedJob>(service.ctx, MERGE_CHANGED_QUEUE, {
          data: { referenceId: 'alex', type: 'daily', day },
        });
        const states = jobs.map((job) => ({
          state: job.state,
          retryCount: job.retryCount,
          createdOn: job.createdOn,
          startAfter: job.startAfter,
          output: job.output,
        }));
        const queued = await unsettledJobs(service.ctx, MERGE_CHANGED_QUEUE);
        const ahead = queued.filter((job) => job.createdOn < (jobs[0]?.createdOn ?? new Date()));
        throw new Error(
          `${(error as Error).message}\nmerge jobs of the day: ${JSON.stringify(states)}` +
            `\nunsettled merge jobs: ${queued.length}, created before the day's: ${ahead.length}` +
            ` (${JSON.stringify(ahead.slice(0, 5).map((job) => [job.state, job.createdOn]))})`,
          { cause: error },
        );
      });
    const merged = events().find((event) => event['type'] === 'merged' && event['day'] === day)!;
    assert.equal(merged['person'].reference_id, 'alex');
    assert.deepEqual(
      new Set(merged['person'].connections.map((connection: Wire) => connection.provider)),
      new Set(['GARMIN', 'APPLE', ...(oura ? ['OURA'] : [])]),
    );
    assert.equal(merged['data'].length, 1);
    assert.ok(merged['data'][0].provenance.sources.some((source: Wire) => source.provider === 'APPLE'));
  });

  /** The day's lead by the default order: the ring when there is one, else the watch. */
  const leadProvider = () => (oura ? 'OURA' : 'GARMIN');

  /** Each device's own day total (neither fake's samples add up to it, so each is a day total the merge cannot place in time). */
  const dayTotals = async () => {
    const totals: Record<string, number> = {};
    for (const provider of oura ? ['OURA', 'GARMIN'] : ['GARMIN']) {
      const [record] = await own(provider, 'daily');
      totals[provider] = record!.distance_data.steps as number;
    }
    return totals;
  };
  const stepSources = (record: Wire) =>
    new Set(
      record.provenance.fields['distance_data.steps'].sources.map((index: number) =>
        providerOf(record, index),
      ),
    );

  test('daily: the ring (else the watch) leads; a day total adds only what the sources above it did not count', async () => {
    const totals = await dayTotals();
    const body = await person('daily');
    assert.equal(body['person'].reference_id, 'alex');
    const [record] = body['data'] as Wire[];
    assert.equal(body['data'].length, 1, 'one merged day');
    assert.equal(providerOf(record!, record!.provenance.lead), leadProvider());
    // The lead's total covers the whole day; the other device's total adds what it counted beyond
    // it; the phone's ten minutes fall inside the lead's day and add nothing.
    assert.equal(record!.distance_data.steps, Math.max(...Object.values(totals)));
    assert.equal(record!.provenance.fields['distance_data.steps'].rule, 'slices');
    assert.ok(stepSources(record!).has(leadProvider()));
    assert.ok(!stepSources(record!).has('APPLE'), 'the phone added nothing');
    // Heart rate: the watch before the ring (the heart_rate family's own default order).
    const heart = record!.provenance.fields['heart_rate_data'];
    assert.deepEqual(
      heart.sources.map((index: number) => providerOf(record!, index)),
      ['GARMIN'],
    );
    assert.deepEqual(
      record!.distance_data.detailed.step_samples,
      [],
      'without samples, sample arrays are empty',
    );
    assert.deepEqual(record!.provenance.samples, {});
  });

  test('daily: with the phone first for cumulative metrics, its minutes are placed and the day totals add what they did not count', async () => {
    const totals = await dayTotals();
    const saved = await http('PUT', '/v3/merge-priorities', { priorities: { cumulative: ['phone'] } });
    assert.equal(saved.status, 200);
    const [record] = (await person('daily', `start_date=${day}&end_date=${nextDay}&with_samples=true`))[
      'data'
    ] as Wire[];
    // Day totals are never spread over their day (that would invent when the steps happened):
    // each adds its total less what the sources above it counted in its day.
    assert.equal(record!.distance_data.steps, Math.max(PHONE_STEPS, ...Object.values(totals)));
    assert.ok(stepSources(record!).has('APPLE'));
    const sampleSources = record!.provenance.samples['distance_data.detailed.step_samples'].map(
      (index: number) => providerOf(record!, index),
    );
    assert.deepEqual(sampleSources, ['APPLE'], 'only the phone placed its steps in time');
    assert.equal(record!.distance_data.detailed.step_samples[0].steps, PHONE_STEPS);
    const reset = await http('PUT', '/v3/merge-priorities', { priorities: { cumulative: [] } });
    assert.deepEqual(await reset.json(), { priorities: {}, merged_events: true });
  });

  test('sleep: the ring’s night leads, the watch’s same night is kept as its alternative', async (t) => {
    if (!oura) return t.skip(`no ring: ${noRing}`);
    const from = addDays(day, -6);
    const body = await person('sleep', `start_date=${from}&end_date=${nextDay}&with_samples=true`);
    const both = (body['data'] as Wire[]).filter(
      (record) => new Set(record.provenance.sources.map((source: Wire) => source.provider)).size === 2,
    );
    assert.ok(both.length >= 5, `nights recorded by both: ${both.length}`);
    const rings = await own('OURA', 'sleep', from, nextDay);
    for (const night of both) {
      assert.equal(providerOf(night, night.provenance.lead), 'OURA');
      assert.deepEqual(
        night.provenance.alternatives.map((index: number) => providerOf(night, index)),
        ['GARMIN'],
      );
      const ring = rings.find((record) => record.metadata.summary_id === night.metadata.summary_id)!;
      assert.deepEqual(night.sleep_durations_data, ring.sleep_durations_data, 'stages from the ring');
    }
  });

  test('the same upload again changes nothing: the merged read is identical', async () => {
    const first = await person(
      'daily',
      `start_date=${addDays(day, -3)}&end_date=${nextDay}&with_samples=true`,
    );
    await uploadAndSettle(service.ctx, service.app, phoneUploadToken, phoneSteps(day));
    const second = await person(
      'daily',
      `start_date=${addDays(day, -3)}&end_date=${nextDay}&with_samples=true`,
    );
    assert.deepEqual(second['data'], first['data']);
  });

  test('bad requests: an unknown person is a 404, an unknown type a 400, both problem+json', async () => {
    const unknown = await http('GET', `/v3/people/nobody/daily?start_date=${day}`);
    assert.equal(unknown.status, 404);
    assert.match(((await unknown.json()) as Wire)['detail'], /reference_id nobody/);
    const type = await http('GET', `/v3/people/alex/steps?start_date=${day}`);
    assert.equal(type.status, 400);
    const noDate = await http('GET', '/v3/people/alex/daily');
    assert.equal(noDate.status, 400);
  });
});

const PHONE_STEPS = 640;

/** Ten minutes of phone steps at noon of `day` (+01:00), as a HealthKit companion app uploads them. */
function phoneSteps(day: string) {
  return {
    platform: 'APPLE',
    records: [
      {
        uuid: '5E3A0000-0000-4000-8000-000000000001',
        type: 'HKQuantityTypeIdentifierStepCount',
        unit: 'count',
        value: PHONE_STEPS,
        sourceName: 'Alex’s iPhone',
        sourceVersion: '17.1',
        device:
          '<<HKDevice: 0x1>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.1>',
        startDate: `${day} 12:00:00 +0100`,
        endDate: `${day} 12:10:00 +0100`,
      },
    ],
  };
}
