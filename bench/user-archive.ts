/**
 * The data-subject archive's memory: one SANDBOX user synced over DAYS days of every exported data
 * type, its records stored COPIES times more under shifted days (so the archive grows without the
 * generator's cost), then `GET /v2/users/{user_id}/export` read through a real socket and thrown
 * away. Prints records and archive bytes per second and the process's RSS before and at its peak
 * (sampled every 100 ms): run it at two sizes to see that the peak does not grow with the archive.
 * Embedded PostgreSQL by default; with DATABASE_URL, PostgreSQL.
 *
 *   node_modules/.bin/node --expose-gc bench/user-archive.ts [days=90] [copies=20]
 */
import type { AddressInfo } from 'node:net';
import { EXPORTED_TYPES } from '../src/features/fhir-export/map-records.ts';
import { windowOf } from '../src/features/data/params.ts';
import { addDays } from '../src/model/time.ts';
import { createDeveloper, startTestService } from '../test/helpers/app.ts';
import { connectSandboxUser } from '../test/helpers/connections.ts';
import { reportFigures } from './figures.ts';

const DAYS = Number(process.argv[2] ?? 90);
const COPIES = Number(process.argv[3] ?? 20);
const FROM = '2020-01-01';

const service = await startTestService({ env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
const { ctx, app } = service;
try {
  const developer = await createDeveloper(ctx);
  const { userId } = await connectSandboxUser(app, developer);
  const user = await ctx.db
    .selectFrom('connections')
    .selectAll()
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  const window = windowOf({ kind: 'date', day: FROM }, { kind: 'date', day: addDays(FROM, DAYS) });
  let stored = 0;
  for (const type of EXPORTED_TYPES) {
    await ctx.data.syncWindow(user, type, window);
    const records = (await ctx.data.recordsOf(user, type, window)).map((each) => each.record);
    // The same records again under later days: a shifted copy of every day-keyed field.
    for (let copy = 1; copy < COPIES; copy++) {
      const shift = copy * (DAYS + 1);
      const shifted = records.map(
        (record) =>
          JSON.parse(
            JSON.stringify(record).replace(
              /"(\d{4}-\d{2}-\d{2})/g,
              (_, day: string) => `"${addDays(day, shift)}`,
            ),
          ) as Record<string, unknown>,
      );
      await ctx.db
        .transaction()
        .execute((trx) => ctx.data.ingest(trx, user, type, shifted, undefined, { emit: false }));
    }
  }
  const count = await ctx.db
    .selectFrom('data_records')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  stored = Number(count.n);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  let peak = rssBefore;
  let heapPeak = heapBefore;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peak = Math.max(peak, now.rss);
    heapPeak = Math.max(heapPeak, now.heapUsed);
  }, 100);
  const started = Date.now();
  const response = await fetch(`${origin}/v2/users/${userId}/export`, { headers: developer.headers });
  if (response.status !== 200) throw new Error(await response.text());
  let bytes = 0;
  for await (const chunk of response.body!) bytes += (chunk as Uint8Array).byteLength;
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  console.log(
    `${stored} records (${DAYS} days × ${COPIES}) → ${(bytes / 2 ** 20).toFixed(1)} MB archive in ${seconds.toFixed(1)} s`,
  );
  console.log(
    `records/s: ${Math.round(stored / seconds)}; RSS before ${Math.round(rssBefore / 2 ** 20)} MB, peak during ${Math.round(peak / 2 ** 20)} MB; ` +
      `heap used before ${Math.round(heapBefore / 2 ** 20)} MB, peak during ${Math.round(heapPeak / 2 ** 20)} MB`,
  );
  reportFigures({
    user_archive_records: stored,
    user_archive_records_per_second: stored / seconds,
    user_archive_mb: bytes / 2 ** 20,
    user_archive_rss_before_mb: rssBefore / 2 ** 20,
    user_archive_peak_rss_mb: peak / 2 ** 20,
    user_archive_heap_before_mb: heapBefore / 2 ** 20,
    user_archive_peak_heap_mb: heapPeak / 2 ** 20,
  });
} finally {
  await service.close();
}
