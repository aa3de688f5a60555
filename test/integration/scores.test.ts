// Scores Tributary computes (docs/scores.md), end to end: a SANDBOX user's 60 days read through
// the data API carry plausible computed scores beside the provider's own, null while the
// baselines are short; a changed day is recomputed and reaches the webhook with its record.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createScoresService } from '../../src/features/scores/service.ts';
import { addDays } from '../../src/model/time.ts';
import { generate, generateAthlete } from '../../src/providers/sandbox/generate.ts';
import {
  bareDataService,
  createDeveloper,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// What main computed for the fixed history below before its history read changed (commit 8c071b2).
const PINNED_LAST_DAY = {
  recovery: 45,
  restingHrZ: 0.71,
  lnHrvZ: 0.13,
  acwr: 0.6,
  strain: 275.76,
  sleep: 97,
  coefficients: 'female',
};
const PINNED_DIGEST = 'b1185059a00294365325bc3b1300d0f8659b6d65fe78799cecc349fb304da056';

describe('computed scores', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let userId: string;
  // A fixed window of 60 settled days (the sandbox generates any date deterministically).
  const end = '2025-06-01';
  const start = addDays(end, -60);

  before(async () => {
    service = await startTestService({ env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
    ({ userId } = await connectSandboxUser(service.app, developer));
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  /** A data service of its own, without the scores service the app registered on its own. */
  const ownDataService = () => bareDataService(service.ctx);

  const read = async (type: string, from = start, to = end, withSamples = false) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${userId}&start_date=${from}&end_date=${to}&to_webhook=false&with_samples=${withSamples}`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { data: Json[] }).data;
  };

  test("a SANDBOX user's 60 days: computed scores beside the provider's, null until the baselines hold 14 days", async () => {
    await read('activity');
    const sleeps = await read('sleep');
    const days = await read('daily');
    assert.ok(days.length >= 59, `${days.length} days`);

    const nights = sleeps.filter((sleep) => sleep.metadata.is_nap !== true);
    const scoredNights = nights.filter((sleep) => sleep.data_enrichment?.tributary?.sleep_score != null);
    assert.ok(
      scoredNights.length >= nights.length - 4,
      `${scoredNights.length} of ${nights.length} nights scored`,
    );
    for (const sleep of scoredNights) {
      const computed = sleep.data_enrichment.tributary;
      assert.equal(computed.method, 'tributary');
      assert.equal(computed.version, '1.0');
      assert.ok(computed.sleep_score >= 0 && computed.sleep_score <= 100);
      assert.deepEqual(Object.keys(computed.sleep_contributors).sort(), [
        'consistency',
        'duration',
        'interruptions',
        'stages',
      ]);
      // The provider's own score stays as it gave it; the empty standard field is filled and says so.
      assert.equal(typeof sleep.scores.sleep, 'number');
      assert.ok(!computed.filled.includes('scores.sleep'));
      assert.equal(sleep.data_enrichment.sleep_score, computed.sleep_score);
      assert.ok(computed.filled.includes('data_enrichment.sleep_score'));
    }
    const mean =
      scoredNights.reduce((sum, sleep) => sum + sleep.data_enrichment.tributary.sleep_score, 0) /
      scoredNights.length;
    assert.ok(mean > 40 && mean < 100, `plausible mean sleep score ${mean}`);

    let recovered = 0;
    for (const day of days) {
      const computed = day.data_enrichment.tributary;
      assert.equal(computed.method, 'tributary');
      if (computed.recovery_score === null) {
        // Only while a baseline is short: never a guess.
        assert.ok(computed.resting_hr === null || computed.hrv_rmssd === null, JSON.stringify(computed));
        continue;
      }
      recovered++;
      assert.ok(computed.recovery_score >= 0 && computed.recovery_score <= 100);
      assert.ok(computed.resting_hr.days >= 14 && computed.hrv_rmssd.days >= 14);
      assert.equal(day.data_enrichment.readiness_score, computed.recovery_score);
      // The provider's recovery (scores.recovery) is the provider's, untouched.
      assert.ok(!computed.filled.includes('scores.recovery'));
    }
    assert.ok(recovered >= 40, `${recovered} days with a recovery score`);
    const first = days[0]!.data_enrichment.tributary;
    assert.equal(first.recovery_score, null, 'the first day of the history has no baseline');
    assert.equal(first.training_load.acwr, null);
    const last = days.at(-1)!.data_enrichment.tributary;
    assert.ok(
      last.training_load.acwr > 0.2 && last.training_load.acwr < 5,
      `plausible ACWR ${last.training_load.acwr}`,
    );
    assert.ok(last.training_load.chronic_load > 0);
    // Recomputing what is stored changes nothing, so nothing is rewritten.
    const again = await service.ctx.db
      .transaction()
      .execute((trx) =>
        service.ctx.scores.recompute(trx, userId, [
          addDays(start, -400),
          start,
          addDays(start, 30),
          addDays(end, -1),
        ]),
      );
    assert.equal(again.rewritten, 0);
  });

  test('a fixed history gets the values this version of the formulas gives, however much a process remembers (pinned)', async () => {
    // A history generated from a fixed seed (a connection's own sandbox data is seeded by its
    // random id), written as a provider sends it, in a window no sync of this connection reaches.
    const seed = 'scores-pinned';
    const [from, to] = ['2024-01-01', '2024-03-01'];
    const { userId: pinnedId } = await connectSandboxUser(service.app, developer);
    const user = await service.ctx.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', pinnedId)
      .executeTakeFirstOrThrow();
    const { ctx } = service;
    const write = (batches: Parameters<typeof ctx.data.write>[2]) =>
      ctx.db.transaction().execute((trx) => ctx.data.write(trx, user, batches, { emit: false }));
    const history = (type: 'daily' | 'sleep' | 'activity') =>
      generate(type, { seed, startDate: from, endDate: to });
    await write([{ type: 'athlete', records: [generateAthlete(seed, to)] }]);
    await write([
      { type: 'daily', records: history('daily') },
      { type: 'sleep', records: history('sleep') },
      { type: 'activity', records: history('activity') },
    ]);
    // Every field scores write, in key order: a change to how or from what scores are computed
    // (the history read, what a process remembers of it) shows here as a change of value.
    const canonical = (value: unknown): string =>
      Array.isArray(value)
        ? `[${value.map(canonical).join(',')}]`
        : value !== null && typeof value === 'object'
          ? `{${Object.keys(value)
              .sort()
              .map((key) => `${JSON.stringify(key)}:${canonical((value as Json)[key])}`)
              .join(',')}}`
          : JSON.stringify(value);
    const scored = () =>
      ctx.db.transaction().execute(async (trx) => {
        const summaries = async (type: 'daily' | 'sleep') =>
          (await ctx.data.summariesOnDays(trx, { userId: pinnedId, type, fromDay: from, toDay: to })).map(
            ({ key, record }) => ({ key, scores: record.scores, enrichment: record.data_enrichment }),
          );
        const days = await summaries('daily');
        const sleeps = await summaries('sleep');
        return {
          days,
          sleeps,
          digest: createHash('sha256')
            .update(canonical([days, sleeps]))
            .digest('hex'),
        };
      });
    const written = await scored();
    const last = (written.days.at(-1)!.enrichment as Json).tributary;
    assert.deepEqual(
      {
        recovery: last.recovery_score,
        restingHrZ: last.resting_hr?.z,
        lnHrvZ: last.hrv_rmssd?.ln_z,
        acwr: last.training_load.acwr,
        strain: last.training_load.strain,
        sleep: last.sleep_score,
        coefficients: last.training_load.trimp_coefficients,
      },
      PINNED_LAST_DAY,
    );
    assert.equal(
      written.digest,
      PINNED_DIGEST,
      `${written.days.length} days, ${written.sleeps.length} sleeps`,
    );

    // A process that remembers the history: the last days written again one at a time, a session
    // of the history removed (every later day's load moves) and put back.
    for (const day of history('daily').slice(-5)) await write([{ type: 'daily', records: [day] }]);
    const session = history('activity').at(-10)! as Json;
    await write([{ type: 'activity', remove: [session.metadata.summary_id] }]);
    const fresh = createScoresService({ data: ownDataService(), log: ctx.log });
    const days: string[] = [];
    for (let day = from; day < to; day = addDays(day, 1)) days.push(day);
    const check = await ctx.db.transaction().execute((trx) => fresh.recompute(trx, pinnedId, days));
    assert.equal(check.rewritten, 0, 'a process that remembers nothing computes what the store holds');
    assert.notEqual((await scored()).digest, PINNED_DIGEST, 'the removed session moved the scores');
    await write([{ type: 'activity', records: [session] }]);
    assert.equal((await scored()).digest, PINNED_DIGEST);
  });

  test('records stored without scores (an earlier version) get them from recomputeRange', async () => {
    const strip = (_key: string, record: Record<string, unknown>) => {
      const enrichment = { ...(record.data_enrichment as Json) };
      delete enrichment.tributary;
      return { ...record, data_enrichment: enrichment };
    };
    const whole = await read('daily', start, end, true);
    assert.ok(
      whole.some((day) => Object.keys(day.heart_rate_data?.detailed ?? {}).length > 0),
      'samples',
    );
    const keys = await service.ctx.db.transaction().execute(async (trx) => {
      const stored = await service.ctx.data.summariesOnDays(trx, {
        userId,
        type: 'daily',
        fromDay: start,
        toDay: end,
      });
      await service.ctx.data.rewriteRecords(
        trx,
        { userId, type: 'daily', keys: stored.map((row) => row.key) },
        strip,
      );
      return stored.map((row) => row.key);
    });
    assert.ok(keys.length >= 59);
    const stripped = await read('daily');
    assert.ok(stripped.every((day) => day.data_enrichment.tributary === undefined));
    const { rewritten } = await service.ctx.scores.recomputeRange(service.ctx.db, userId, start, end);
    assert.equal(rewritten, keys.length, 'every stripped day, and nothing else');
    const restored = await read('daily');
    assert.ok(restored.every((day) => day.data_enrichment.tributary?.method === 'tributary'));
    // Rewrites write the summary alone: every sample array is back where it was.
    // (The strip above left the fields scores had filled, so those now count as the provider's.)
    const unscored = (records: Json[]) => records.map(({ data_enrichment: _d, scores: _s, ...rest }) => rest);
    assert.deepEqual(unscored(await read('daily', start, end, true)), unscored(whole));
  });

  test('a changed day is recomputed in its transaction and reaches the webhook with its record', async () => {
    const [stored] = await read('daily', addDays(end, -1), end);
    assert.ok(stored);
    const restingBefore = stored.data_enrichment.tributary.resting_hr.value as number;
    const changed: Json = structuredClone(stored);
    changed.heart_rate_data.summary.resting_hr_bpm = restingBefore + 12;
    delete changed.data_enrichment.tributary;
    const user = await service.ctx.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const before = receiver.received.length;
    await service.ctx.db
      .transaction()
      .execute((trx) => service.ctx.data.ingest(trx, user, 'daily', [changed]));
    await receiver.waitFor(
      (list) => list.slice(before).some((entry) => (JSON.parse(entry.body) as Json).type === 'daily'),
      'the daily event',
    );
    const event = receiver.received
      .slice(before)
      .map((entry) => JSON.parse(entry.body) as Json)
      .find((payload) => payload.type === 'daily')!;
    const sent = event.data[0].data_enrichment.tributary;
    assert.equal(sent.resting_hr.value, restingBefore + 12);
    assert.ok(
      sent.resting_hr.z > stored.data_enrichment.tributary.resting_hr.z,
      'a higher resting HR sits further above the baseline',
    );
    assert.ok(sent.recovery_score < stored.data_enrichment.tributary.recovery_score, 'and lowers recovery');
    const [reread] = await read('daily', addDays(end, -1), end);
    assert.deepEqual(reread!.data_enrichment.tributary, sent, 'the read shows what was sent');
  });

  test('a daily written before the activity that moves its load, in one transaction, reaches the webhook with that load', async () => {
    // The order a mobile rebuild writes in: daily first, then activity. The daily's event used to
    // be built before the activity was stored, so it carried load 0 while the store held the load.
    const activities = await read('activity');
    const scoredSession = (activity: Json) =>
      activity.heart_rate_data?.summary?.avg_hr_bpm > 0 &&
      activity.heart_rate_data?.summary?.user_max_hr_bpm > 0;
    const day = (activities.filter(scoredSession).at(-1)!.metadata.start_time as string).slice(0, 10);
    const sessions = activities.filter((activity) =>
      (activity.metadata.start_time as string).startsWith(day),
    );
    const [daily] = await read('daily', day, addDays(day, 1));
    assert.ok(daily, `a daily record on ${day}`);
    const loadBefore = daily.data_enrichment.tributary.training_load.load as number;
    assert.ok(loadBefore > 0, `the sessions of ${day} make a load (${loadBefore})`);
    const user = await service.ctx.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    // The day's sessions leave the store (quietly): its daily now holds load 0.
    await service.ctx.db.transaction().execute((trx) =>
      service.ctx.data.write(
        trx,
        user,
        [{ type: 'activity', remove: sessions.map((s) => s.metadata.summary_id) }],
        {
          emit: false,
        },
      ),
    );
    const [emptied] = await read('daily', day, addDays(day, 1));
    assert.equal(emptied!.data_enrichment.tributary.training_load.load, 0);

    const incoming: Json = structuredClone(daily);
    delete incoming.data_enrichment.tributary;
    const before = receiver.received.length;
    await service.ctx.db.transaction().execute((trx) =>
      service.ctx.data.write(trx, user, [
        { type: 'daily', records: [incoming] },
        { type: 'activity', records: sessions },
      ]),
    );
    await receiver.waitFor(
      (list) => list.slice(before).some((entry) => (JSON.parse(entry.body) as Json).type === 'daily'),
      'the daily event',
    );
    const sent = receiver.received
      .slice(before)
      .map((entry) => JSON.parse(entry.body) as Json)
      .find((payload) => payload.type === 'daily')!;
    const [stored] = await read('daily', day, addDays(day, 1));
    assert.equal(
      stored!.data_enrichment.tributary.training_load.load,
      loadBefore,
      'the store holds the load',
    );
    assert.deepEqual(
      sent.data[0].data_enrichment.tributary,
      stored!.data_enrichment.tributary,
      'the event carries the scores the API serves',
    );
    // What each process remembers (the athlete's sex, the history's facts by row version) changes
    // nothing: a process that remembers nothing computes the same scores from the store.
    const { ctx } = service;
    const fresh = createScoresService({ data: ownDataService(), log: ctx.log });
    const days: string[] = [];
    for (let d = start; d < end; d = addDays(d, 1)) days.push(d);
    const again = await ctx.db.transaction().execute((trx) => fresh.recompute(trx, userId, days));
    assert.equal(again.rewritten, 0);
  });
});
