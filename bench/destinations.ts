// Destination delivery benchmark: deliveries per second to each destination kind, next to the
// webhook's, through the real engine (outbox, queue, workers, attempt log) on embedded PostgreSQL in a
// temporary data directory, or on PostgreSQL when DATABASE_URL is set (in a throwaway schema).
//
//   node_modules/.bin/node bench/destinations.ts
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node_modules/.bin/node bench/destinations.ts
//
// Per kind: BENCH_EVENTS (5000) sleep events of one record each, emitted in transactions of 500
// (four at a time) to a destination of that kind alone, first emit to the last event marked
// delivered in the outbox. The receivers run on loopback in this process: a 204 HTTP receiver
// (webhook), a database `tributary_bench_*` on the local PostgreSQL server (postgresql, skipped
// without one), the SigV4-checking S3 test server (s3: an object per event; s3-ndjson: its
// `object_format: ndjson_gzip`, an object per batch), a nats-server with JetStream of its own
// (nats, skipped without the binary). Each kind's rate is also printed as a ratio to the
// webhook's from the same run (the goal: PostgreSQL and S3 at least half of it). The figures compare kinds on one machine; each receiver
// shares the machine's two cores with the service.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createLogger } from '../src/core/log.ts';
import type { WebhookEnvelope } from '../src/features/delivery/events.ts';
import { writeToOutbox } from '../src/features/delivery/outbox.ts';
import { startRuntime } from '../src/runtime/runtime.ts';
import {
  createDestinationDatabase,
  DESTINATION_SERVER as PG_SERVER,
  destinationServerSkipReason,
  dropDestinationDatabase,
} from '../test/helpers/destination-database.ts';
import { natsSkipReason, startNatsServer } from '../test/helpers/nats-server.ts';
import { S3_TEST_KEY, startS3Server } from '../test/helpers/s3-server.ts';
import { benchConfig, removeBenchConfig } from './bench-config.ts';
import { reportFigures } from './figures.ts';

let night = 0;
function sleepEnvelope(): WebhookEnvelope {
  night++;
  const day = new Date(Date.UTC(2020, 0, 1) + night * 86_400_000).toISOString().slice(0, 10);
  return {
    type: 'sleep',
    userId: 'bench-user',
    payload: {
      type: 'sleep',
      user: { user_id: 'bench-user', provider: 'OURA', reference_id: null, active: true },
      data: [
        {
          metadata: {
            summary_id: `sleep-${day}`,
            start_time: `${day}T23:00:00.000000+00:00`,
            end_time: `${day}T23:59:00.000000+00:00`,
          },
          sleep_durations_data: { asleep: { duration_asleep_state_seconds: 27_000 } },
        },
      ],
      version: '2022-03-16.0',
    },
  };
}

async function main() {
  const events = Number(process.env.BENCH_EVENTS ?? 5_000);
  const { config, dataDir, schema } = benchConfig();
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const receiverPort = typeof address === 'object' && address ? address.port : 0;
  const cleanups: (() => Promise<unknown>)[] = [];
  const runtime = await startRuntime(config, 'worker', createLogger(config.logLevel));
  const { ctx } = runtime;
  const storage = ctx.store.embedded ? 'embedded PostgreSQL' : 'PostgreSQL';
  console.log(`destination delivery benchmark on ${storage}: ${events} events per kind`);
  const figures: Record<string, number> = {};

  /** Emits the events to `destinationId` alone (null: the developer's webhook), then waits until every one is delivered. */
  async function measure(kind: string, devId: string, destinationId: string | null) {
    const started = performance.now();
    let sent = 0;
    const emitter = async () => {
      while (sent < events) {
        const size = Math.min(500, events - sent);
        sent += size;
        const envelopes = Array.from({ length: size }, sleepEnvelope);
        await ctx.db
          .transaction()
          .execute((trx) =>
            destinationId === null
              ? ctx.webhooks.emitMany(trx, devId, envelopes)
              : writeToOutbox(
                  { jobs: ctx.jobs, hooks: ctx.webhooks.hooks, now: new Date(), relay: ctx.webhooks.relay },
                  trx,
                  devId,
                  envelopes,
                  { destinationId },
                ),
          );
      }
    };
    await Promise.all(Array.from({ length: 4 }, emitter));
    const deadline = Date.now() + 600_000;
    for (;;) {
      const row = await ctx.db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('developer_id', '=', devId)
        .where('destination_id', destinationId === null ? 'is' : '=', destinationId)
        .where('status', '=', 'delivered')
        .executeTakeFirstOrThrow();
      if (Number(row.n) >= events) break;
      if (Date.now() > deadline)
        throw new Error(`${kind}: only ${row.n} of ${events} delivered within 600 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const perSecond = events / ((performance.now() - started) / 1000);
    const failures = await ctx.db
      .selectFrom('delivery_attempts as a')
      .innerJoin('deliveries as e', 'e.id', 'a.delivery_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('e.developer_id', '=', devId)
      .where('a.outcome', '<>', 'delivered')
      .executeTakeFirstOrThrow();
    console.log(
      `  ${kind.padEnd(10)} ${Math.round(perSecond)} deliveries/s (first emit -> last delivered; ${failures.n} failed attempts)`,
    );
    figures[`destination_${kind}_DeliveriesPerSec`] = perSecond;
  }

  async function developerFor(kind: string) {
    const created = await ctx.developers.create({ name: `Bench ${kind}`, environment: 'sandbox' });
    return created.developer.id;
  }

  /** `label`: the figure's name when one kind is measured with different settings. */
  async function other(kind: string, settings: Record<string, unknown>, label = kind) {
    const devId = await developerFor(label);
    const destination = await ctx.webhooks.destinations.create(devId, { kind, settings });
    await measure(label, devId, destination.id);
  }

  try {
    const webhookDev = await developerFor('webhook');
    await ctx.webhooks.setDestination(webhookDev, { url: `http://127.0.0.1:${receiverPort}/hooks` });
    await measure('webhook', webhookDev, null);

    const pgSkip = await destinationServerSkipReason();
    if (!pgSkip) {
      const database = `tributary_bench_${randomBytes(4).toString('hex')}`;
      // Owned by a role of its own: the service's role on the service's server is refused.
      const url = await createDestinationDatabase(PG_SERVER, database);
      cleanups.push(() => dropDestinationDatabase(PG_SERVER, database));
      await other('postgresql', { url: url.href });
    } else {
      console.log(`  postgresql skipped: ${pgSkip}`);
    }

    const s3 = await startS3Server(['bench']);
    cleanups.push(() => s3.close());
    const s3Settings = {
      bucket: 'bench',
      endpoint: s3.endpoint,
      access_key_id: S3_TEST_KEY.accessKeyId,
      secret_access_key: S3_TEST_KEY.secretAccessKey,
    };
    await other('s3', s3Settings);
    await other('s3', { ...s3Settings, object_format: 'ndjson_gzip' }, 's3-ndjson');

    const natsSkip = natsSkipReason();
    if (natsSkip) {
      console.log(`  nats skipped: ${natsSkip}`);
    } else {
      const nats = await startNatsServer();
      cleanups.push(() => nats.close());
      await other('nats', { url: nats.url, stream: 'BENCH', subject: 'bench' });
    }
    const webhookRate = figures.destination_webhook_DeliveriesPerSec!;
    for (const kind of ['postgresql', 's3', 's3-ndjson', 'nats']) {
      const rate = figures[`destination_${kind}_DeliveriesPerSec`];
      if (rate === undefined) continue;
      figures[`destination_${kind}_WebhookRatio`] = rate / webhookRate;
      console.log(`  ${kind.padEnd(10)} ÷ webhook: ${(rate / webhookRate).toFixed(2)}`);
    }
    reportFigures(figures);
  } finally {
    await runtime.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await removeBenchConfig({ dataDir, schema });
  }
}

await main();
