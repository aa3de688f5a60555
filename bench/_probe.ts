import { addDays } from '../src/model/time.ts';
import { createDeveloper, startTestService } from '../test/helpers/app.ts';
import { connectSandboxUser } from '../test/helpers/connections.ts';
const END = '2025-06-01';
const START = addDays(END, -90);
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
  const sizes = await ctx.db.selectFrom('data_records').select(['type', (eb) => eb.fn.avg(eb.fn('octet_length', [eb.cast('summary', 'text')])).as('s'), (eb) => eb.fn.avg(eb.fn('octet_length', [eb.cast('samples', 'text')])).as('x')]).where('user_id', '=', userId).groupBy('type').execute();
  console.log(sizes);
  const t: Record<string, number[]> = {};
  const add = (k: string, v: number) => (t[k] ??= []).push(v);
  for (let i = 0; i < 15; i++) {
    await ctx.db.transaction().execute(async (trx) => {
      let s = process.hrtime.bigint();
      for (const type of ['daily', 'sleep', 'activity'] as const)
        await ctx.data.summariesOnDays(trx, { userId, type, fromDay: addDays(day, -32), toDay: addDays(day, 33) });
      add('3 history reads', ms(s));
      s = process.hrtime.bigint();
      await ctx.data.storedAthlete(trx, userId);
      add('athlete', ms(s));
      s = process.hrtime.bigint();
      const [row] = await ctx.data.summariesOnDays(trx, { userId, type: 'daily', fromDay: day, toDay: END });
      await ctx.data.rewriteRecords(trx, { userId, type: 'daily', keys: [row!.key] }, (_k, r) => ({ ...r }));
      add('rewrite one daily', ms(s));
      s = process.hrtime.bigint();
      await ctx.scores.recompute(trx, userId, [day]);
      add('recompute (nothing changes)', ms(s));
    });
  }
  for (const [k, v] of Object.entries(t)) console.log(k, v.sort((a, b) => a - b)[7]!.toFixed(2));
} finally {
  await service.close();
}
