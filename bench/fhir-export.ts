/**
 * FHIR bulk export throughput and memory: USERS generated users × DAYS days of every exported data
 * type (one SANDBOX user synced from the generator, its records stored again under USERS-1 more
 * users), then one `GET /v2/fhir/$export` run to completion by this process's workers. Prints the
 * NDJSON lines written per second and the process's RSS: before the export and the peak while it
 * ran (sampled every 100 ms), so a flat line means memory does not grow with the export's size.
 * Embedded PostgreSQL by default; with DATABASE_URL, PostgreSQL.
 *
 *   node_modules/.bin/node bench/fhir-export.ts [users=1000] [days=90]
 */
import { randomUUID } from 'node:crypto';
import { EXPORTED_TYPES } from '../src/features/fhir-export/map-records.ts';
import { windowOf } from '../src/features/data/params.ts';
import { addDays } from '../src/model/time.ts';
import { createDeveloper, startTestService } from '../test/helpers/app.ts';
import { connectSandboxUser } from '../test/helpers/connections.ts';
import { reportFigures } from './figures.ts';

const USERS = Number(process.argv[2] ?? 1000);
const DAYS = Number(process.argv[3] ?? 90);
const FROM = '2025-01-01';

const service = await startTestService({ env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
const { ctx, app } = service;
try {
  const developer = await createDeveloper(ctx);
  const { userId: templateId } = await connectSandboxUser(app, developer);
  const template = await ctx.db
    .selectFrom('connections')
    .selectAll()
    .where('id', '=', templateId)
    .executeTakeFirstOrThrow();
  const window = windowOf({ kind: 'date', day: FROM }, { kind: 'date', day: addDays(FROM, DAYS) });
  const records: Record<string, Record<string, unknown>[]> = {};
  for (const type of EXPORTED_TYPES) {
    await ctx.data.syncWindow(template, type, window);
    records[type] = (await ctx.data.recordsOf(template, type, window)).map((stored) => stored.record);
  }
  const perUser = Object.values(records).reduce((sum, list) => sum + list.length, 0);
  console.log(`template user: ${perUser} records over ${DAYS} days; storing ${USERS - 1} more users…`);
  const setupStart = Date.now();
  for (let index = 1; index < USERS; index++) {
    const id = randomUUID();
    await ctx.db
      .insertInto('connections')
      .values({ ...template, id, provider_user_id: `bench-${index}`, created_at: new Date() })
      .execute();
    const user = await ctx.db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await ctx.db.transaction().execute(async (trx) => {
      for (const type of EXPORTED_TYPES)
        await ctx.data.ingest(trx, user, type, records[type]!, undefined, { emit: false });
    });
    if (index % 100 === 0)
      console.log(`  ${index} users stored (${Math.round((Date.now() - setupStart) / 1000)} s)`);
  }

  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  const started = Date.now();
  const kickOff = await app.inject({
    method: 'GET',
    url: '/v2/fhir/$export',
    headers: { ...developer.headers, prefer: 'respond-async' },
  });
  if (kickOff.statusCode !== 202) throw new Error(kickOff.body);
  const status = String(kickOff.headers['content-location']).replace('http://127.0.0.1:8080', '');
  let manifest: { output: { count: number }[] } | null = null;
  while (!manifest) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const polled = await app.inject({ method: 'GET', url: status, headers: developer.headers });
    if (polled.statusCode === 200) manifest = JSON.parse(polled.body) as { output: { count: number }[] };
    else if (polled.statusCode !== 202) throw new Error(polled.body);
  }
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  const lines = manifest.output.reduce((sum, file) => sum + file.count, 0);
  console.log(
    `${USERS} users × ${DAYS} days: ${USERS * perUser} records → ${lines} NDJSON lines in ${manifest.output.length} files, ${seconds.toFixed(1)} s`,
  );
  console.log(
    `rows/s: ${Math.round(lines / seconds)}; RSS before ${Math.round(rssBefore / 2 ** 20)} MB, peak during ${Math.round(peak / 2 ** 20)} MB`,
  );
  reportFigures({
    fhir_export_rows_per_second: lines / seconds,
    fhir_export_records_per_second: (USERS * perUser) / seconds,
    fhir_export_rss_before_mb: rssBefore / 2 ** 20,
    fhir_export_peak_rss_mb: peak / 2 ** 20,
  });
} finally {
  await service.close();
}
