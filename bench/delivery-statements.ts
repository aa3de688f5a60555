// What the delivery engine's statements cost the database per delivery, one at a time: storing
// BENCH_EVENTS (20000) events with their deliveries (transactions of 500), reading them back in
// batches of 1,250 (a batch of 50 jobs of 25), and recording them delivered with their attempts,
// BENCH_OUTCOMES (100) outcomes a statement, through the repository's own functions on one
// connection. The database's CPU is read from /proc/<pid>/stat of that connection's backend, so
// it needs PostgreSQL on this machine (otherwise only wall time is printed); it is steadier than
// wall time on a shared machine, and unlike bench/webhook-delivery.ts it is the database alone.
//
// Where the server has pg_stat_statements (in `public`; the development server does not preload
// it, a scratch cluster can: bench/FINDINGS.md, deliver8), each phase also prints what its
// statements did per delivery: buffers touched, WAL records and bytes (index entries show there:
// each is a WAL record). BENCH_AWAITING=1 stores the deliveries awaiting the outbox relay (the
// one-event-per-transaction path) and adds the relay's claim as a phase. BENCH_SCHEMA_SQL: `;`-
// separated statements run after migrating, to try a variant of the schema (an index less, a
// fillfactor) without a migration.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node_modules/.bin/node bench/delivery-statements.ts
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { claimAwaitingJob } from '../src/features/delivery/delivery-moves.ts';
import { findEventsForDelivery, insertEvents } from '../src/features/delivery/event-rows.ts';
import { recordOutcomes } from '../src/features/delivery/outcome-rows.ts';
import { openStore } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { reportFigures } from './figures.ts';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('set DATABASE_URL (a PostgreSQL on this machine)');
const total = Number(process.env.BENCH_EVENTS ?? 20_000);
const perOutcomeWrite = Number(process.env.BENCH_OUTCOMES ?? 100);
const awaiting = process.env.BENCH_AWAITING === '1';
const schema = `bench_${randomBytes(4).toString('hex')}`;
const store = await openStore({ databaseUrl, dataDir: undefined, schema, poolSize: 1 });
const db = store.db;
try {
  await migrateToLatest(db, schema);
  for (const statement of (process.env.BENCH_SCHEMA_SQL ?? '').split(';'))
    if (statement.trim()) await sql.raw(statement).execute(db);
  const { pid } = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!;
  /** The backend's CPU so far in ms (user + system), or null when its /proc entry is not readable. */
  const backendCpuMs = (): number | null => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      return null;
    }
  };
  const figures: Record<string, number> = {};
  const statementStats = await sql<{ found: boolean }>`
    SELECT to_regclass('public.pg_stat_statements') IS NOT NULL AS found`.execute(db);
  const withStatementStats = statementStats.rows[0]?.found === true;
  /** What the statements since the last call did per delivery (pg_stat_statements), then starts over. */
  const statementWork = async (): Promise<string> => {
    if (!withStatementStats) return '';
    const { rows } = await sql<{ blocks: string; wal_records: string; wal_bytes: string }>`
      SELECT coalesce(sum(shared_blks_hit + shared_blks_read), 0) AS blocks,
        coalesce(sum(wal_records), 0) AS wal_records, coalesce(sum(wal_bytes), 0) AS wal_bytes
      FROM public.pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT LIKE '%pg_stat_statements%'`.execute(db);
    await sql`SELECT public.pg_stat_statements_reset()`.execute(db);
    const row = rows[0]!;
    const per = (value: string) => (Number(value) / total).toFixed(1);
    return `; ${per(row.blocks)} buffers, ${per(row.wal_records)} WAL records, ${per(row.wal_bytes)} WAL bytes`;
  };
  const phase = async (name: string, figure: string, run: () => Promise<void>) => {
    await statementWork();
    const cpuFrom = backendCpuMs();
    const wallFrom = performance.now();
    await run();
    const wallUs = ((performance.now() - wallFrom) * 1000) / total;
    const cpuTo = backendCpuMs();
    const cpuUs = cpuFrom === null || cpuTo === null ? null : ((cpuTo - cpuFrom) * 1000) / total;
    console.log(
      `${name.padEnd(48)} database CPU ${cpuUs === null ? '(not readable)' : `${cpuUs.toFixed(0)} µs`}, wall ${wallUs.toFixed(0)} µs${await statementWork()} per delivery`,
    );
    if (cpuUs !== null) figures[`${figure}DbCpuUsPerDelivery`] = cpuUs;
    figures[`${figure}WallUsPerDelivery`] = wallUs;
  };

  await sql`INSERT INTO developers (id, name, environment) VALUES ('dev_bench', 'Bench', 'sandbox')`.execute(
    db,
  );
  const body = JSON.stringify({ type: 'healthcheck', data: { note: 'x'.repeat(200) } });
  const ids: string[] = [];
  await phase('store events and deliveries (500 a transaction)', 'deliveryStore', async () => {
    for (let from = 0; from < total; from += 500) {
      const now = new Date();
      const events = Array.from({ length: Math.min(500, total - from) }, (_, index) => ({
        id: `evt_bench_${from + index}_${randomBytes(4).toString('hex')}`,
        developer_id: 'dev_bench',
        type: 'healthcheck',
        user_id: null,
        reference: null,
        suppressible: false,
        body,
        created_at: now,
      }));
      const deliveries = events.map((event) => ({
        id: `dlv_${event.id}`,
        event_id: event.id,
        developer_id: 'dev_bench',
        destination_id: null,
        status: 'pending' as const,
        last_error: null,
        awaiting_job: awaiting,
        created_at: now,
        updated_at: now,
      }));
      ids.push(...deliveries.map((delivery) => delivery.id));
      await db.transaction().execute((trx) => insertEvents(trx, events, deliveries));
    }
  });
  if (awaiting)
    await phase('claim them for their first jobs (1,000 a statement)', 'deliveryClaim', async () => {
      while ((await db.transaction().execute((trx) => claimAwaitingJob(trx, 1000))).length > 0);
    });
  const read: Awaited<ReturnType<typeof findEventsForDelivery>> = [];
  await phase('read them back (1,250 a statement)', 'deliveryRead', async () => {
    for (let from = 0; from < total; from += 1250)
      read.push(...(await findEventsForDelivery(db, ids.slice(from, from + 1250))));
  });
  await phase(`record them delivered (${perOutcomeWrite} a statement)`, 'deliveryRecord', async () => {
    for (let from = 0; from < read.length; from += perOutcomeWrite) {
      const at = new Date();
      await recordOutcomes(
        db,
        read.slice(from, from + perOutcomeWrite).map((delivery) => ({
          id: delivery.id,
          generation: delivery.generation,
          status: 'delivered' as const,
          nextAttemptAt: null,
          statusCode: 204,
          error: null,
          at,
          attempt: {
            developerId: 'dev_bench',
            number: 1,
            url: 'http://127.0.0.1/hooks',
            attemptedAt: at,
            durationMs: 1,
            outcome: 'delivered' as const,
          },
        })),
      );
    }
  });
  // Whether recording outcomes rewrote the deliveries' index entries (pg_stat_user_tables; the
  // counts are flushed when this backend next reports, forced here).
  await sql`SELECT pg_stat_force_next_flush()`.execute(db);
  await sql`SELECT 1`.execute(db);
  const updates = await sql<{ n_tup_upd: string; n_tup_hot_upd: string }>`
    SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE schemaname = ${schema} AND relname = 'deliveries'`.execute(
    db,
  );
  const counted = updates.rows[0];
  if (counted) console.log(`deliveries updated ${counted.n_tup_upd}, of which HOT ${counted.n_tup_hot_upd}`);
  reportFigures(figures);
} finally {
  await sql.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).execute(db);
  await store.close();
}
