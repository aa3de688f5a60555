/**
 * What computed scores cost (docs/scores.md), on a SANDBOX user's year:
 * 1. the formulas alone: `computeDay` and `computeSleep` for each of 365 days from a year of
 *    facts in memory (CPU time per day);
 * 2. the enricher in the store: `scores.recompute` over the whole year when nothing changed (it
 *    reads the summaries, computes every day and rewrites nothing), and for one changed day (the
 *    common case: a notification brings today), wall time, median of 5;
 * 3. one day's daily record written as a notification writes it (ingest in a transaction, with
 *    its event), against a body record of the same day (no scores), wall time, median of 21;
 * 4. what scores add to a daily write, the figure of issue 44: the same day's daily record as a
 *    provider sends it (no Tributary computation in it) written with its event by a data service
 *    with the scores enricher and by one without, alternately, wall time: each median of 61, the
 *    median of the 61 paired differences (what scores add), and the enricher's own time in it;
 *    and this process's CPU per write, with and without (mean of the 61): on a shared machine the
 *    wall time of a write grows with the load far more than the CPU it needs.
 * The test PostgreSQL (test/helpers/database.ts: DATABASE_URL, else 127.0.0.1:5432/test), a
 * database of its own there.
 *
 *   node_modules/.bin/node bench/scores.ts
 */
import { computeDay, computeSleep } from '../src/features/scores/engine/day-scores.ts';
import { createScoresService, historyOf } from '../src/features/scores/service.ts';
import { addDays } from '../src/model/time.ts';
import { bareDataService, createDeveloper, startTestService } from '../test/helpers/app.ts';
import { connectSandboxUser } from '../test/helpers/connections.ts';
import { reportFigures } from './figures.ts';

const END = '2025-06-01';
const START = addDays(END, -365);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const msSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

const service = await startTestService({ work: false, env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
try {
  const developer = await createDeveloper(service.ctx);
  await service.ctx.developers.setHourlyDaysLimit(developer.devId, 1_000_000);
  const { userId } = await connectSandboxUser(service.app, developer);
  const read = async (type: string) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${userId}&start_date=${START}&end_date=${END}&to_webhook=false&with_samples=false`,
      headers: developer.headers,
    });
    if (response.statusCode !== 200) throw new Error(response.body);
    return (response.json() as { data: unknown[] }).data.length;
  };
  const syncStart = process.hrtime.bigint();
  const counts = { activity: await read('activity'), sleep: await read('sleep'), daily: await read('daily') };
  const syncMs = msSince(syncStart);

  // 1. The formulas alone.
  const summaries = (type: 'daily' | 'sleep' | 'activity') =>
    service.ctx.db.transaction().execute((trx) =>
      service.ctx.data.summariesOnDays(trx, {
        userId,
        type,
        fromDay: addDays(START, -2),
        toDay: addDays(END, 2),
      }),
    );
  const history = historyOf({
    dailies: await summaries('daily'),
    sleeps: await summaries('sleep'),
    activities: await summaries('activity'),
  });
  const cpu = process.cpuUsage();
  for (let day = START; day < END; day = addDays(day, 1)) computeDay(day, history);
  for (const sleep of history.sleeps) computeSleep(sleep.key, history);
  const used = process.cpuUsage(cpu);
  const formulaUsPerDay = (used.user + used.system) / 365;

  // 2. The enricher over the year (nothing changes) and for one day.
  const allDays: string[] = [];
  for (let day = START; day < END; day = addDays(day, 1)) allDays.push(day);
  const yearRuns: number[] = [];
  const dayRuns: number[] = [];
  for (let run = 0; run < 5; run++) {
    let start = process.hrtime.bigint();
    const year = await service.ctx.db
      .transaction()
      .execute((trx) => service.ctx.scores.recompute(trx, userId, allDays));
    yearRuns.push(msSince(start));
    if (year.rewritten !== 0) throw new Error(`the year rewrote ${year.rewritten} records`);
    start = process.hrtime.bigint();
    await service.ctx.db
      .transaction()
      .execute((trx) => service.ctx.scores.recompute(trx, userId, [addDays(END, -1)]));
    dayRuns.push(msSince(start));
  }

  // 3. A notification's day: daily (scored) against body (not scored).
  const user = await service.ctx.db
    .selectFrom('connections')
    .selectAll()
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const lastDay = async (type: string) => {
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/${type}?user_id=${userId}&start_date=${addDays(END, -1)}&end_date=${END}&to_webhook=false`,
      headers: developer.headers,
    });
    return (response.json() as { data: Record<string, unknown>[] }).data[0]!;
  };
  const ingestRuns = async (type: 'daily' | 'body', record: Record<string, unknown>) => {
    const runs: number[] = [];
    for (let run = 0; run < 21; run++) {
      const start = process.hrtime.bigint();
      await service.ctx.db.transaction().execute((trx) => service.ctx.data.ingest(trx, user, type, [record]));
      runs.push(msSince(start));
    }
    return median(runs);
  };
  const daily = await lastDay('daily');
  const body = await lastDay('body');
  const dailyIngestMs = await ingestRuns('daily', daily);
  const bodyIngestMs = await ingestRuns('body', body);

  // 4. Scores' share of a daily write: with the enricher and without, on the same store.
  const { ctx } = service;
  const bare = () => bareDataService(ctx);
  const withScores = bare();
  // The scores service registered on it, its enricher timed from the outside.
  const enrichRuns: number[] = [];
  createScoresService({
    log: ctx.log,
    data: {
      ...withScores,
      registerEnricher: (enricher) =>
        withScores.registerEnricher({
          enrich: async (...args) => {
            const start = process.hrtime.bigint();
            const fields = await enricher.enrich(...args);
            enrichRuns.push(msSince(start));
            return fields;
          },
        }),
    },
  });
  const withoutScores = bare();
  // As a provider sends it: what Tributary computed and filled taken out.
  const fromProvider = structuredClone(daily) as Record<string, Record<string, unknown>>;
  const computed = fromProvider.data_enrichment!.tributary as { filled: string[] };
  for (const path of computed.filled) {
    const [section, field] = path.split('.') as [string, string];
    delete fromProvider[section]![field];
  }
  delete fromProvider.data_enrichment!.tributary;
  const scoredRuns: number[] = [];
  const unscoredRuns: number[] = [];
  const pairedDifferences: number[] = [];
  const cpuMs = { scored: 0, unscored: 0 };
  for (let run = 0; run < 61; run++) {
    const pair: number[] = [];
    for (const [data, runs, cpuOf] of [
      [withScores, scoredRuns, 'scored'],
      [withoutScores, unscoredRuns, 'unscored'],
    ] as const) {
      const cpuFrom = process.cpuUsage();
      const start = process.hrtime.bigint();
      await ctx.db.transaction().execute((trx) => data.ingest(trx, user, 'daily', [fromProvider]));
      runs.push(msSince(start));
      pair.push(msSince(start));
      const cpuUsed = process.cpuUsage(cpuFrom);
      cpuMs[cpuOf] += (cpuUsed.user + cpuUsed.system) / 1000 / 61;
    }
    pairedDifferences.push(pair[0]! - pair[1]!);
  }
  const scoredMs = median(scoredRuns);
  const unscoredMs = median(unscoredRuns);

  console.log(
    `records synced: ${JSON.stringify(counts)} in ${Math.round(syncMs)} ms (scores computed as they were stored)`,
  );
  console.log(`formulas: ${formulaUsPerDay.toFixed(1)} µs of CPU per day (computeDay + that day's sleeps)`);
  console.log(
    `recompute, a year unchanged: ${median(yearRuns).toFixed(1)} ms; one day: ${median(dayRuns).toFixed(1)} ms (median of 5)`,
  );
  console.log(
    `a day's record written with its event: daily ${dailyIngestMs.toFixed(1)} ms, body ${bodyIngestMs.toFixed(1)} ms (median of 21)`,
  );
  const addedMs = median(pairedDifferences);
  const enrichMs = median(enrichRuns);
  console.log(
    `a provider's daily written with its event: with scores ${scoredMs.toFixed(1)} ms, without ${unscoredMs.toFixed(1)} ms (median of 61 each); scores add ${addedMs.toFixed(1)} ms (median of the 61 paired differences; goal ≤ 5 ms), of which the enricher itself ${enrichMs.toFixed(1)} ms`,
  );
  console.log(
    `this process's CPU per write: with scores ${cpuMs.scored.toFixed(2)} ms, without ${cpuMs.unscored.toFixed(2)} ms (mean of 61 each); scores add ${(cpuMs.scored - cpuMs.unscored).toFixed(2)} ms of CPU`,
  );
  reportFigures({
    scores_write_added_cpu_ms: cpuMs.scored - cpuMs.unscored,
    scores_write_daily_scored_ms: scoredMs,
    scores_write_daily_unscored_ms: unscoredMs,
    scores_write_added_ms: addedMs,
    scores_write_enricher_ms: enrichMs,
    scores_formula_us_per_day: formulaUsPerDay,
    scores_recompute_year_ms: median(yearRuns),
    scores_recompute_day_ms: median(dayRuns),
    scores_ingest_daily_ms: dailyIngestMs,
    scores_ingest_body_ms: bodyIngestMs,
  });
} finally {
  await service.close();
}
