// Recurring jobs run exactly once per occurrence however many worker processes register them.
// Three queue instances (three "worker processes", each with its own pool) share one PostgreSQL
// schema and register the service's real recurring-job list the way every worker does at start
// (runtime/workers/recurring.ts); one pg-boss TestClock drives all three through 65 simulated
// minutes, so the test covers hourly and daily schedules too and never waits on wall-clock time.
// The chain checked, per queue: one occurrence -> one forwarded "send-it" job filed in that
// occurrence's minute -> one job -> one handler run, on whichever instance fetched it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { PgBoss, TestClock } from 'pg-boss';
import { loadConfig } from '../../src/core/config.ts';
import { createLogger } from '../../src/core/log.ts';
import { recurringJobs } from '../../src/runtime/workers/index.ts';
import { registerSchedules } from '../../src/runtime/workers/recurring.ts';
import { databaseSkipReason, testDatabaseUrl } from '../helpers/database.ts';

const skip = await databaseSkipReason();
const databaseUrl = skip ? '' : await testDatabaseUrl();
const INSTANCES = 3;
const SEND_IT = '__pgboss__send-it';
/** 03:40:30 UTC for 65 minutes: the window holds a daily (03:41) and every hourly schedule's occurrence. */
const START = new Date('2026-03-02T03:40:30.000Z');
const SIMULATED_MINUTES = 65;
const schema = `rj_${randomBytes(5).toString('hex')}_jobs`;

async function query<T extends object>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

function withoutSynchronousCommit(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', '-c synchronous_commit=off');
  return parsed.toString();
}

const slotOf = (instant: Date) =>
  new Date(Math.floor(instant.getTime() / 60_000) * 60_000).toISOString().replace('T', ' ').slice(0, 19);

const bosses: PgBoss[] = [];

after(async () => {
  for (const boss of bosses) await boss.stop({ graceful: false, close: true }).catch(() => undefined);
  if (databaseUrl) await query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
});

describe('recurring jobs across several worker processes', { skip }, () => {
  it(`run once per occurrence with ${INSTANCES} workers registering them`, { timeout: 600_000 }, async () => {
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'silent',
    });
    const jobs = recurringJobs({ config });
    const scheduled = jobs.filter((job) => job.schedule !== null);
    assert.ok(scheduled.length >= 4, 'the service has recurring jobs to prove this on');
    const log = createLogger('silent');

    const clock = new TestClock(START);
    const runs: { instance: number; queue: string; id: string }[] = [];
    for (let instance = 0; instance < INSTANCES; instance++) {
      const boss = new PgBoss({
        // Every simulated step moves the shared clock row (an UPDATE per instance); nothing here
        // must survive a crash of the server, so commits need not wait for the disk.
        connectionString: withoutSynchronousCommit(databaseUrl),
        schema,
        max: 3,
        clock,
        useListenNotify: false,
        // Every timer the clock fires is a round trip to PostgreSQL and a settling pass: the
        // forwarding worker polls every 30 simulated seconds (default 5), as the queues below every
        // 60, which the 3 minutes run after the window leave time for.
        cronWorkerIntervalSeconds: 30,
      });
      boss.on('error', (error) => log.error({ err: error }, 'queue error'));
      bosses.push(boss);
      await boss.start();
      for (const job of scheduled) {
        await boss.createQueue(job.queue);
        await boss.work(job.queue, { pollingIntervalSeconds: 60 }, async (batch) => {
          for (const item of batch) runs.push({ instance, queue: job.queue, id: item.id });
        });
      }
      // What every worker process does at start.
      await registerSchedules(boss, jobs, log);
    }

    const registered = await query<{ name: string }>(`SELECT name FROM ${schema}.schedule ORDER BY name`);
    assert.deepEqual(
      registered.map((row) => row.name),
      scheduled.map((job) => job.queue).sort(),
      'one schedule row per recurring job, not one per worker',
    );

    for (let minute = 0; minute < SIMULATED_MINUTES; minute++) await clock.tick(60_000);
    const end = new Date(clock.now());
    // Stop new occurrences, then let everything already filed be fetched and run.
    for (const job of scheduled) await bosses[0]?.unschedule(job.queue);
    for (let minute = 0; minute < 3; minute++) await clock.tick(60_000);

    const sendIts = await query<{ name: string; slot: string }>(
      `SELECT data->>'name' AS name, data->>'slot' AS slot FROM ${schema}.job WHERE name = $1`,
      [SEND_IT],
    );
    const created = await query<{ name: string; id: string; state: string; singleton_key: string | null }>(
      `SELECT name, id, state, singleton_key FROM ${schema}.job WHERE name = ANY($1)`,
      [scheduled.map((job) => job.queue)],
    );

    const summary: string[] = [];
    let proven = 0;
    for (const job of scheduled) {
      const schedule = job.schedule ?? '';
      const slots = sendIts.filter((row) => row.name === job.queue).map((row) => row.slot);
      assert.equal(new Set(slots).size, slots.length, `${job.queue}: one forwarded job per occurrence`);

      // Every occurrence that came due in the window was sent, and nothing outside it was.
      const due = bosses[0]
        // As many as a minutely schedule has in the window: pg-boss gives up computing many more
        // after a second of wall-clock time, which a loaded machine can spend on a few hundred.
        ?.previewSchedule(schedule, {
          from: new Date(START.getTime() - 60_000),
          count: SIMULATED_MINUTES + 10,
        })
        .filter((occurrence) => occurrence <= end);
      const certain = (due ?? []).filter(
        (occurrence) => occurrence > START && occurrence.getTime() <= end.getTime() - 90_000,
      );
      for (const occurrence of certain) {
        assert.ok(
          slots.includes(slotOf(occurrence)),
          `${job.queue}: occurrence ${occurrence.toISOString()} sent`,
        );
      }
      const possible = new Set((due ?? []).map(slotOf));
      for (const slot of slots) assert.ok(possible.has(slot), `${job.queue}: ${slot} is an occurrence`);

      const fromSchedule = created.filter(
        (row) => row.name === job.queue && row.singleton_key !== 'start-up',
      );
      assert.equal(fromSchedule.length, slots.length, `${job.queue}: one job per forwarded occurrence`);
      const ran = runs.filter((run) => run.queue === job.queue);
      const startups = created.filter((row) => row.name === job.queue && row.singleton_key === 'start-up');
      assert.equal(
        startups.length,
        job.atStartup ? 1 : 0,
        `${job.queue}: one start-up run between all workers`,
      );
      assert.equal(ran.length, fromSchedule.length + startups.length, `${job.queue}: every job ran`);
      assert.equal(new Set(ran.map((run) => run.id)).size, ran.length, `${job.queue}: no job ran twice`);
      const perInstance = Array.from(
        { length: INSTANCES },
        (_, instance) => ran.filter((run) => run.instance === instance).length,
      );
      summary.push(`${job.queue} ${slots.length} occurrences, runs per worker ${perInstance.join('/')}`);
      if (certain.length > 0) proven += 1;
    }
    // Minutely, every few minutes, hourly and daily schedules all came due in the window.
    assert.ok(proven >= 6, `only ${proven} recurring jobs came due in the window`);
    console.log(
      `# recurring jobs over ${SIMULATED_MINUTES} simulated minutes, ${INSTANCES} workers: ${summary.join('; ')}`,
    );
  });
});
