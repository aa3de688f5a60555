// `merged` events: queued in the transaction that changed a person's day, once per person, type
// and day however many changes arrive while it waits (a `stately` queue with a singleton key), only
// for developers that opted in and for active connections that belong to a person; sent with the
// person's merged records when due.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MERGE_CHANGED_QUEUE, type PersonChangedJob } from '../../src/features/merge/service.ts';
import type { ConnectionRow } from '../../src/features/connections/service.ts';
import { generateDaily } from '../../src/providers/sandbox/daily.ts';
import { generateSleep } from '../../src/providers/sandbox/sleep.ts';
import { addDays, formatDateTime } from '../../src/model/time.ts';
import { dayContext } from '../../src/providers/sandbox/context.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { DashboardClient } from '../helpers/dashboard.ts';
import { findJobs, makeJobDue, waitForJobsSettled } from '../helpers/jobs.ts';
import { insertConnection } from '../helpers/users.ts';
import { ingestSandboxDay } from '../helpers/sandbox-days.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const DAY = '2026-10-05';

describe('merged events', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;

  const connection = (provider: string, referenceId?: string) =>
    insertConnection(service.ctx, {
      developerId: developer.devId,
      provider,
      ...(referenceId ? { referenceId } : {}),
    });
  const ingestDay = (user: ConnectionRow, seed: string) => ingestSandboxDay(service.ctx, user, seed, DAY);
  const waiting = async () =>
    (await findJobs<PersonChangedJob>(service.ctx, MERGE_CHANGED_QUEUE)).filter(
      (job) => job.state === 'created',
    );

  before(async () => {
    // A long delay: the test makes the job due itself, so nothing runs before every change is in.
    service = await startTestService({ env: { MERGED_EVENT_DELAY_SECONDS: '3600' } });
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  test('nothing is queued for a developer that has not opted in', async () => {
    await ingestDay(await connection('GARMIN', 'sam'), 'watch');
    assert.deepEqual(await waiting(), []);
  });

  test('two sources changing one day while it waits make one job, and it sends one event with both', async () => {
    await service.ctx.merge.updateSettings(developer.devId, { merged_events: true });
    const watch = await connection('GARMIN', 'kim');
    const ring = await connection('OURA', 'kim');
    await ingestDay(watch, 'watch');
    await ingestDay(ring, 'ring');
    await ingestDay(watch, 'watch-again');
    const jobs = (await waiting()).filter((job) => job.data.referenceId === 'kim');
    assert.equal(jobs.length, 1, JSON.stringify(jobs.map((job) => job.data)));
    assert.deepEqual(jobs[0]!.data, {
      developerId: developer.devId,
      referenceId: 'kim',
      type: 'daily',
      day: DAY,
    });

    await makeJobDue(service.ctx, jobs[0]!.id);
    await waitForJobsSettled(service.ctx, MERGE_CHANGED_QUEUE, { id: jobs[0]!.id });
    await receiver.waitFor(
      (list) => list.some((entry) => entry.body.includes('"type":"merged"')),
      'the merged event',
    );
    const events = receiver.received
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON, asserted field by field
      .map((entry) => JSON.parse(entry.body) as Record<string, any>)
      .filter((event) => event['type'] === 'merged');
    assert.equal(events.length, 1);
    const [event] = events;
    assert.equal(event!['day'], DAY);
    assert.equal(event!['person'].reference_id, 'kim');
    assert.equal(event!['data'].length, 1, 'one merged day');
    const providers = event!['data'][0].provenance.sources.map(
      (source: { provider: string }) => source.provider,
    );
    assert.deepEqual(new Set(providers), new Set(['GARMIN', 'OURA']));
  });

  test('no job for a connection without a reference_id, or one that is not active, or a change rolled back', async () => {
    const before = (await waiting()).length;
    await ingestDay(await connection('GARMIN'), 'alone');
    const revoked = { ...(await connection('GARMIN', 'lee')), status: 'revoked' as const };
    await ingestDay(revoked, 'gone');
    const kept = await connection('GARMIN', 'lee');
    await assert.rejects(
      service.ctx.db.transaction().execute(async (trx) => {
        await service.ctx.data.ingest(
          trx,
          kept,
          'daily',
          generateDaily(dayContext('x', DAY, false, 60)),
          undefined,
          { emit: false },
        );
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal((await waiting()).length, before);
  });

  test('a connection moved to another person queues its days for the person it left and the one it joined; other changes queue nothing', async () => {
    const moving = await connection('GARMIN', 'ann');
    await ingestDay(moving, 'moving');
    const day = (referenceId: string) =>
      waiting().then((jobs) =>
        jobs
          .filter((job) => job.data.referenceId === referenceId)
          .map((job) => `${job.data.type}:${job.data.day}`),
      );
    for (const job of (await waiting()).filter((job) => job.data.referenceId === 'ann'))
      await makeJobDue(service.ctx, job.id);
    await waitForJobsSettled<PersonChangedJob>(service.ctx, MERGE_CHANGED_QUEUE, {
      data: { referenceId: 'ann' },
    });
    assert.deepEqual(await day('ann'), [], 'nothing waits for ann before the move');

    const patch = (body: object) =>
      service.app.inject({
        method: 'PATCH',
        url: `/v2/users/${moving.id}`,
        headers: developer.headers,
        payload: body,
      });
    const unchanged = await patch({ reference_id: 'ann', active: true });
    assert.equal(unchanged.statusCode, 200, unchanged.body);
    assert.deepEqual(await day('ann'), [], 'the same reference_id moves nobody');

    const moved = await patch({ reference_id: 'bob' });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.deepEqual(await day('ann'), [`daily:${DAY}`], 'the person it left');
    assert.deepEqual(await day('bob'), [`daily:${DAY}`], 'the person it joined');

    const unknown = await patch({ reference_id: 'cid' });
    assert.equal(unknown.statusCode, 200);
    const dropped = await patch({ reference_id: '' });
    assert.equal(dropped.statusCode, 200);
    assert.equal((dropped.json() as { user: { reference_id: null } }).user.reference_id, null);
    assert.deepEqual(await day('cid'), [`daily:${DAY}`], 'joined, then left: its day is merged again');
  });

  test('merge settings: another developer’s order and opt-in are its own', async () => {
    const other = await createDeveloper(service.ctx, { name: 'Other' });
    assert.deepEqual(await service.ctx.merge.settings(other.devId), { priorities: {}, merged_events: false });
    await service.ctx.merge.updateSettings(developer.devId, { priorities: { sleep: ['OURA'] } });
    assert.deepEqual(await service.ctx.merge.settings(developer.devId), {
      priorities: { sleep: ['OURA'] },
      merged_events: true,
    });
    assert.deepEqual(await service.ctx.merge.settings(other.devId), { priorities: {}, merged_events: false });
  });

  test('a long read is merged a few weeks at a time, and a night across a part’s edge is still one session', async () => {
    const start = '2026-06-01';
    const edge = addDays(start, 28);
    const night = (id: string, from: string, to: string) => {
      const [generated] = generateSleep(dayContext(id, edge, false, 60));
      const metadata = { ...generated!.metadata, start_time: from, end_time: to, summary_id: id };
      return { ...generated!, metadata };
    };
    const at = (day: string, hour: number, minute: number) =>
      formatDateTime(Date.parse(`${day}T00:00:00Z`) - 3_600_000 + (hour * 60 + minute) * 60_000, 60);
    // Sources that are never fetched on a read (on-device ones), so the read syncs nothing; the
    // developer's order puts the first one ahead.
    await service.ctx.merge.updateSettings(developer.devId, { priorities: { sleep: ['HEALTH_CONNECT'] } });
    const ring = await connection('HEALTH_CONNECT', 'pat');
    const watch = await connection('APPLE', 'pat');
    // The ring's night starts the evening before the edge day (anchored in the first part), the
    // watch's just after midnight (anchored in the second).
    for (const [user, record] of [
      [ring, night('ring-night', at(addDays(edge, -1), 23, 0), at(edge, 7, 0))],
      [watch, night('watch-night', at(edge, 0, 20), at(edge, 7, 5))],
    ] as const) {
      await service.ctx.db
        .transaction()
        .execute((trx) => service.ctx.data.ingest(trx, user, 'sleep', [record], undefined, { emit: false }));
    }
    const response = await service.app.inject({
      method: 'GET',
      url: `/v3/people/pat/sleep?start_date=${start}&end_date=${addDays(start, 60)}`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    const nights = (
      response.json() as { data: { provenance: { sources: { record: string }[]; lead: number } }[] }
    ).data;
    assert.equal(nights.length, 1, JSON.stringify(nights.map((entry) => entry.provenance.sources)));
    const { provenance } = nights[0]!;
    assert.equal(provenance.sources[provenance.lead]!.record, 'ring-night');
    assert.deepEqual(provenance.sources.map((source) => source.record).sort(), ['ring-night', 'watch-night']);
    // A window that starts on the edge day holds the watch's night but not the ring's: the night
    // is still there, merged, led by the ring.
    const fromEdge = await service.app.inject({
      method: 'GET',
      url: `/v3/people/pat/sleep?start_date=${edge}&end_date=${addDays(edge, 3)}`,
      headers: developer.headers,
    });
    const edgeNights = (fromEdge.json() as { data: { provenance: { sources: { record: string }[] } }[] })
      .data;
    assert.deepEqual(
      edgeNights.map((entry) => entry.provenance.sources.map((source) => source.record).sort()),
      [['ring-night', 'watch-night']],
    );
  });

  test('the dashboard’s Providers page shows and changes the same settings; a bad name is refused with its reason', async () => {
    const other = await createDeveloper(service.ctx, { name: 'Dashboard developer' });
    const browser = new DashboardClient(service.app);
    await browser.signIn(other.devId, other.apiKey);
    const page = await browser.get('/dashboard/providers');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Merged view/);
    assert.match(page.body, /placeholder="ring, watch, band/, 'the default order is shown');
    const saved = await browser.submit('/dashboard/providers', '/dashboard/providers/merge', {
      'order-sleep': 'OURA, watch',
      merged_events: 'on',
    });
    assert.equal(saved.statusCode, 303);
    assert.deepEqual(await service.ctx.merge.settings(other.devId), {
      priorities: { sleep: ['OURA', 'watch'] },
      merged_events: true,
    });
    const refused = await browser.submit('/dashboard/providers', '/dashboard/providers/merge', {
      'order-sleep': 'OURA, <b>toaster</b>',
    });
    assert.equal(refused.statusCode, 303);
    const after = await browser.get('/dashboard/providers');
    assert.match(after.body, /&lt;b&gt;toaster&lt;\/b&gt;.*is neither a device kind/s, 'the reason, escaped');
    assert.deepEqual((await service.ctx.merge.settings(other.devId)).priorities, {
      sleep: ['OURA', 'watch'],
    });
  });

  test('a merged read with to_webhook=true is acknowledged with a reference, and its records follow as merged events carrying it', async () => {
    const response = await service.app.inject({
      method: 'GET',
      // The on-device sources of the test above: nothing to fetch when the job syncs first.
      url: `/v3/people/pat/sleep?start_date=2026-06-20&end_date=2026-07-10&to_webhook=true`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    const ack = response.json() as { status: string; reference: string; person: { reference_id: string } };
    assert.equal(ack.status, 'success');
    assert.equal(ack.person.reference_id, 'pat');
    assert.equal(response.headers['service-reference'], ack.reference);
    await receiver.waitFor(
      (list) => list.some((entry) => entry.body.includes(ack.reference)),
      'the merged event with the reference',
    );
    const event = receiver.received
      .map(
        (entry) =>
          JSON.parse(entry.body) as { type: string; reference?: string; day: string | null; data: unknown[] },
      )
      .find((candidate) => candidate.reference === ack.reference)!;
    assert.equal(event.type, 'merged');
    assert.equal(event.day, null);
    assert.equal(event.data.length, 1);
  });
});
