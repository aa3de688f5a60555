/**
 * One user archive of a big user, meant to be its own process under a heap limit
 * (test/integration/archive-memory.test.ts): a SANDBOX user's synced activities stored again
 * RECORDS times under later days, each carrying SAMPLES heart-rate samples (a long workout
 * recorded every second: a few hundred KB a row), then `GET /v2/users/{id}/export` read through
 * a real socket. Prints one JSON line: records stored, the manifest's activity count, archive
 * bytes, the heap once seeded, and the peak heap and RSS while the archive streamed.
 *
 *   node_modules/.bin/node --max-old-space-size=160 test/helpers/archive-run.ts RECORDS SAMPLES
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'kysely';
import { windowOf } from '../../src/features/data/params.ts';
import { addDays } from '../../src/model/time.ts';
import { createDeveloper, startTestService } from './app.ts';
import { connectSandboxUser } from './connections.ts';
import { zipEntryText } from './zip.ts';

const RECORDS = Number(process.argv[2] ?? 200);
const SAMPLES = Number(process.argv[3] ?? 3600);
const FROM = '2020-01-01';

const scratch = mkdtempSync(join(tmpdir(), 'archive-run-'));
// RUN_ENGINE=embedded (the benches without DATABASE_URL): the default engine, an embedded
// PostgreSQL of the run's own; else a database on the tests' PostgreSQL.
const EMBEDDED = process.env.RUN_ENGINE === 'embedded';
const service = await startTestService({ embedded: EMBEDDED, env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
const { ctx, app } = service;
try {
  const developer = await createDeveloper(ctx);
  const { userId } = await connectSandboxUser(app, developer);
  const user = await ctx.db
    .selectFrom('connections')
    .selectAll()
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  // Ten days: a sandbox day has no workout about one time in three, so three days had none in ~4 %
  // of runs (0.35³) and the run failed; ten leave ~3 in 100,000. The copies start ten days after
  // the model's day, past the synced ones.
  const window = windowOf({ kind: 'date', day: FROM }, { kind: 'date', day: addDays(FROM, 10) });
  await ctx.data.syncWindow(user, 'activity', window);
  const [model] = (await ctx.data.recordsOf(user, 'activity', window)).map((each) => each.record) as Record<
    string,
    unknown
  >[];
  if (!model) throw new Error('the SANDBOX sync stored no activity');
  const text = JSON.stringify(model);
  // One shifted, inflated copy per day after the synced ones: built and stored a few at a time.
  const copyFor = (index: number) => {
    const copy = JSON.parse(
      text.replace(/"(\d{4}-\d{2}-\d{2})/g, (_, day: string) => `"${addDays(day, 10 + index)}`),
    ) as Record<string, unknown> & { metadata: { start_time: string; summary_id?: string } };
    const start = Date.parse(copy.metadata.start_time);
    const offset = copy.metadata.start_time.slice(-6);
    const heart = (copy.heart_rate_data ??= {}) as { detailed?: { hr_samples?: unknown[] } };
    heart.detailed = {
      hr_samples: Array.from({ length: SAMPLES }, (_, second) => ({
        timestamp: `${new Date(start + second * 1000).toISOString().slice(0, 19)}${offset}`,
        bpm: 120 + (second % 40),
        context: 2,
      })),
    };
    copy.metadata.summary_id = `archive-run-${index}`;
    return copy;
  };
  for (let index = 0; index < RECORDS; index += 10) {
    const batch = Array.from({ length: Math.min(10, RECORDS - index) }, (_, n) => copyFor(index + n));
    await ctx.db
      .transaction()
      .execute((trx) => ctx.data.ingest(trx, user, 'activity', batch, undefined, { emit: false }));
  }
  const count = await ctx.db
    .selectFrom('data_records')
    .select((eb) => [
      eb.fn.countAll<string>().as('n'),
      // The rows' text (summaries and samples), as the archive reads them.
      sql<string>`coalesce(sum(octet_length(summary::text) + coalesce(octet_length(samples::text), 0)), 0)`.as(
        'bytes',
      ),
    ])
    .where('user_id', '=', userId)
    .where('type', '=', 'activity')
    .executeTakeFirstOrThrow();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  global.gc?.();
  const base = process.memoryUsage();
  const peaks = { rss: base.rss, heap: base.heapUsed };
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peaks.rss = Math.max(peaks.rss, now.rss);
    peaks.heap = Math.max(peaks.heap, now.heapUsed);
  }, 50);
  const response = await fetch(`${origin}/v2/users/${userId}/export`, { headers: developer.headers });
  if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
  // Written to disk as it arrives, then its manifest read back (entry CRCs checked by yauzl).
  const path = join(scratch, 'archive.zip');
  let bytes = 0;
  const counted = Readable.fromWeb(response.body! as never).on('data', (chunk: Buffer) => {
    bytes += chunk.byteLength;
  });
  await pipeline(counted, createWriteStream(path));
  clearInterval(sampler);
  const manifest = JSON.parse((await zipEntryText(path, 'manifest.json')) ?? '{"files":[]}') as {
    files: { name: string; count: number }[];
  };
  const activity = manifest.files.find((file) => file.name === 'records/activity.ndjson');
  console.log(
    JSON.stringify({
      engine: EMBEDDED ? 'embedded PostgreSQL' : 'PostgreSQL',
      records: Number(count.n),
      rowsMb: Math.round(Number(count.bytes) / 2 ** 20),
      archivedActivities: activity?.count ?? null,
      archiveMb: Math.round(bytes / 2 ** 20),
      baseHeapMb: Math.round(base.heapUsed / 2 ** 20),
      peakHeapMb: Math.round(peaks.heap / 2 ** 20),
      baseRssMb: Math.round(base.rss / 2 ** 20),
      peakRssMb: Math.round(peaks.rss / 2 ** 20),
    }),
  );
} finally {
  await service.close();
  rmSync(scratch, { recursive: true, force: true });
}
