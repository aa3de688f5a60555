import { addDays } from '../src/model/time.ts';
import { createDeveloper, startTestService } from '../test/helpers/app.ts';
import { connectSandboxUser } from '../test/helpers/connections.ts';
import { historyOf, sexOf } from '../src/features/scores/service.ts';
import { computeDay, computeSleep } from '../src/features/scores/engine/day-scores.ts';
import { applyDaily, scoredPart } from '../src/features/scores/engine/apply.ts';
import { dayFacts } from '../src/features/scores/engine/facts.ts';
const END = '2025-06-01';
const START = addDays(END, -365);
const ms = (s: bigint) => Number(process.hrtime.bigint() - s) / 1e6;
const service = await startTestService({ work: false, env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
try {
  const developer = await createDeveloper(service.ctx);
  await service.ctx.developers.setHourlyDaysLimit(developer.devId, 1_000_000);
  const { userId } = await connectSandboxUser(service.app, developer);
  for (const type of ['activity', 'sleep', 'daily']) {
    await service.app.inject({ method: 'GET', url: `/v2/${type}?user_id=${userId}&start_date=${START}&end_date=${END}&to_webhook=false&with_samples=false`, headers: developer.headers });
  }
  const { ctx } = service;
  const day = addDays(END, -1);
  const t: Record<string, number[]> = {};
  const add = (k: string, v: number) => (t[k] ??= []).push(v);
  for (let i = 0; i < 15; i++) {
    await ctx.db.transaction().execute(async (trx) => {
      const all = process.hrtime.bigint();
      let s = process.hrtime.bigint();
      const rows = await ctx.data.summariesOfTypesOnDays(trx, { userId, types: ['daily', 'sleep', 'activity'], fromDay: addDays(day, -32), toDay: addDays(day, 34) });
      add('a read', ms(s));
      s = process.hrtime.bigint();
      const athlete = await ctx.data.storedAthlete(trx, userId);
      add('athlete', ms(s));
      s = process.hrtime.bigint();
      const of = (ty: string) => rows.filter((r) => r.type === ty);
      const history = { ...historyOf({ dailies: of('daily'), sleeps: of('sleep'), activities: of('activity') }), ...sexOf(athlete) };
      let key = '';
      for (const { key: k, record } of of('daily')) {
        const f = dayFacts(record);
        if (!f || f.day < day) continue;
        const next = applyDaily(record, computeDay(f.day, history));
        scoredPart(next) === scoredPart(record);
        key = k;
      }
      for (const sl of history.sleeps) if (sl.startDay >= addDays(day, -1)) computeSleep(sl.key, history);
      add('compute', ms(s));
      s = process.hrtime.bigint();
      await ctx.data.rewriteRecords(trx, { userId, type: 'daily', keys: [key] }, (_k, r) => ({ ...r, data_enrichment: { ...(r.data_enrichment as object), x: i } }));
      add('rewrite summary', ms(s));
      s = process.hrtime.bigint();
      await ctx.scores.recompute(trx, userId, [day]);
      add('recompute()', ms(s));
      add('all', ms(all));
    });
  }
  for (const [k, v] of Object.entries(t)) console.log(k, v.sort((a, b) => a - b)[7]!.toFixed(2));
} finally {
  await service.close();
}
