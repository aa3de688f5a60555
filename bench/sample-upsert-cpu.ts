/**
 * The PostgreSQL side of an import's batches alone (issue 44): the CPU time of the database
 * backend that runs them, read from /proc/<pid>/stat (a figure the machine's load does not skew,
 * unlike wall time), for a first import's worth of `upsertSamples` batches (72,000 samples in 15
 * batches of 4,800, bodies of ~330 bytes over 244 days, as the 32 MB export of apple-import.ts),
 * then the same batches again (a re-import: nothing changes). Also printed: an md5 of every stored
 * column, to compare two trees' results, and the days marked each time. PostgreSQL on this
 * machine only (the backend's /proc entry); a fresh schema of the test cluster.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node_modules/.bin/node bench/sample-upsert-cpu.ts
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { upsertSamples } from '../src/features/mobile/samples-repo.ts';
import { encodeSampleRows, type EncodedSampleRows } from '../src/features/mobile/sample-rows.ts';
import { createDeveloper, startTestService } from '../test/helpers/app.ts';
import { sdkConnect } from '../test/helpers/mobile.ts';
import { reportFigures } from './figures.ts';

const SAMPLES = 72_000;
const BATCH = 4_800;
const DAYS = 244;

/** User + system CPU seconds of a process so far (fields 14 and 15 of its stat, in clock ticks). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const dayOf = (index: number) =>
  new Date(Date.UTC(2025, 0, 1) + Math.floor((index * DAYS) / SAMPLES) * 86_400_000)
    .toISOString()
    .slice(0, 10);

function batches(): EncodedSampleRows[] {
  const all: EncodedSampleRows[] = [];
  for (let first = 0; first < SAMPLES; first += BATCH) {
    const indexes = Array.from({ length: BATCH }, (_, offset) => first + offset);
    const ids = indexes.map((index) => `r${index}-${'x'.repeat(30)}`);
    all.push(
      encodeSampleRows({
        ids,
        kinds: ids.map(() => 'heart_rate'),
        days: indexes.map(dayOf),
        // Milliseconds since the epoch, as sample-rows.ts writes them.
        starts: indexes.map((index) => String(Date.parse(`${dayOf(index)}T08:00:00.000Z`))),
        ends: indexes.map((index) => String(Date.parse(`${dayOf(index)}T08:01:00.000Z`))),
        bodies: indexes.map((index, at) =>
          JSON.stringify({
            id: ids[at],
            type: 'heart_rate',
            start: `${dayOf(index)}T08:00:00.000Z`,
            end: `${dayOf(index)}T08:01:00.000Z`,
            value: 60 + (index % 40),
            unit: 'count/min',
            source: { name: 'Apple Watch', bundle: 'com.apple.health.ABCDEF', device: 'Watch6,2' },
            metadata: { HKMetadataKeyHeartRateMotionContext: 1 },
          }),
        ),
      }),
    );
  }
  return all;
}

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL: a PostgreSQL on this machine');
const service = await startTestService({ work: false, env: { DATABASE_URL: databaseUrl } });
try {
  const developer = await createDeveloper(service.ctx);
  const { userId } = await sdkConnect(service.app, developer, 'APPLE', 'upsert-cpu');
  const rows = batches();
  await service.ctx.db.connection().execute(async (db) => {
    const { pid } = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!;
    const upsertAll = async () => {
      const start = { cpu: cpuSeconds(pid), wall: performance.now() };
      let marked = 0;
      for (const batch of rows) marked += (await upsertSamples(db, userId, batch)).size;
      return { cpu: cpuSeconds(pid) - start.cpu, wall: (performance.now() - start.wall) / 1000, marked };
    };
    const first = await upsertAll();
    const again = await upsertAll();
    const { rows: stored } = await sql<{ md5: string; count: number }>`
      SELECT md5(string_agg(concat_ws('|', sample_id, kind, local_day, start_at, end_at, body), E'\\n'
        ORDER BY sample_id)) AS md5, count(*)::int AS count
      FROM mobile_samples WHERE user_id = ${userId}`.execute(db);
    console.log(
      `first import: backend CPU ${first.cpu.toFixed(2)} s, wall ${first.wall.toFixed(2)} s, ${first.marked} days marked; ` +
        `again: backend CPU ${again.cpu.toFixed(2)} s, wall ${again.wall.toFixed(2)} s, ${again.marked} days marked; ` +
        `stored ${stored[0]!.count} samples, md5 ${stored[0]!.md5}`,
    );
    reportFigures({ upsertBackendCpuSeconds: first.cpu, reupsertBackendCpuSeconds: again.cpu });
  });
} finally {
  await service.close();
}
