import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect as natsConnect } from '@nats-io/transport-node';
import pg from 'pg';
import { natsSkipReason, type NatsServer, startNatsServer } from '../helpers/nats-server.ts';
import { S3_TEST_KEY, type S3Server, startS3Server } from '../helpers/s3-server.ts';
import { createTestDatabase, withClient } from '../helpers/database.ts';
import {
  createDestinationDatabase,
  DESTINATION_SERVER as PG_SERVER,
  destinationServerSkipReason,
  dropDestinationDatabase,
} from '../helpers/destination-database.ts';
import { until } from '../helpers/until.ts';
import { freePort } from '../helpers/ports.ts';
import { QUICK_SUPERVISION_ENV } from '../helpers/job-queue-settings.ts';

/**
 * One contract for every destination kind, with the real service as a child process:
 * N events → N rows / objects / messages; deliveries in flight when the process is killed with
 * SIGKILL (the destination held slow: a table lock, a store that answers late, a broker whose
 * acknowledgements are withheld) → after a restart, still exactly N, none lost, none twice; a
 * replay adds nothing. (The down-and-back path of each kind is in destination-<kind>.test.ts.)
 * Jobs the killed process had claimed come back once their heartbeat lapses (10 s) on pg-boss's
 * next check of their queue (every second here: QUICK_SUPERVISION_ENV); the waits stay generous
 * for a loaded machine.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const nodeBinary = join(root, 'node_modules/.bin/node');
const cli = join(root, 'bin/tributary.js');
const EVENTS = 150;

/** A relay that can withhold what the server sends back (acknowledgements) while still forwarding requests. */
async function startAckHoldingProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  const held: { client: Socket; chunk: Buffer }[] = [];
  let holding = false;
  const server: Server = createServer((client) => {
    const upstream = netConnect(target.port, target.host);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (holding) held.push({ client, chunk });
      else client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    hold: () => void (holding = true),
    /** Stops withholding; what was withheld from connections that are gone is dropped. */
    release() {
      holding = false;
      for (const { client, chunk } of held.splice(0)) if (!client.destroyed) client.write(chunk);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Fixture = {
  kind: string;
  settings: Record<string, unknown>;
  /** Rows / objects / messages at the destination: total and distinct event ids. */
  count(): Promise<{ total: number; distinct: number }>;
  /** Makes deliveries hang in flight from now on. */
  hold(): Promise<void>;
  /** Resolves once some deliveries hang in flight. */
  inFlight(): Promise<void>;
  fast(): Promise<void>;
  close(): Promise<void>;
};

async function postgresqlFixture(): Promise<Fixture> {
  const database = `tributary_dest_${randomBytes(5).toString('hex')}`;
  // Owned by a role of its own: the service's role on the service's server is refused.
  const url = await createDestinationDatabase(PG_SERVER, database);
  let locker: pg.Client | null = null;
  return {
    kind: 'postgresql',
    settings: { url: url.href },
    count: () =>
      withClient(url.href, async (client) => {
        const exists = await client.query(`SELECT to_regclass('tributary.events') AS t`);
        if (!exists.rows[0]?.t) return { total: 0, distinct: 0 };
        const result = await client.query<{ total: number; distinct: number }>(
          `SELECT count(*)::int AS total, count(DISTINCT event_id)::int AS distinct FROM tributary.events`,
        );
        return result.rows[0]!;
      }),
    async hold() {
      locker = new pg.Client({ connectionString: url.href });
      locker.on('error', () => {});
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tributary.events IN EXCLUSIVE MODE');
    },
    async inFlight() {
      await until('deliveries waiting on the lock', () =>
        withClient(url.href, async (client) => {
          const waiting = await client.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND application_name = 'tributary-destination' AND wait_event_type = 'Lock'`,
          );
          return (waiting.rows[0]?.n ?? 0) >= 2;
        }),
      );
    },
    async fast() {
      await locker?.query('ROLLBACK');
      await locker?.end();
      locker = null;
    },
    async close() {
      await dropDestinationDatabase(PG_SERVER, database);
    },
  };
}

async function s3Fixture(): Promise<Fixture> {
  const bucket = 'contract-events';
  const server: S3Server = await startS3Server([bucket]);
  let stored = 0;
  return {
    kind: 's3',
    settings: {
      bucket,
      endpoint: server.endpoint,
      access_key_id: S3_TEST_KEY.accessKeyId,
      secret_access_key: S3_TEST_KEY.secretAccessKey,
    },
    async count() {
      const keys = [...server.objects(bucket).keys()];
      const ids = keys.map((key) => key.replace(/^.*\/([^/]+)\.json$/, '$1'));
      return { total: keys.length, distinct: new Set(ids).size };
    },
    async hold() {
      stored = server.puts;
      server.answerDelayMs = 60_000;
    },
    async inFlight() {
      await until('writes stored but not yet answered', () => server.puts >= stored + 2);
    },
    async fast() {
      server.answerDelayMs = 0;
    },
    close: () => server.close(),
  };
}

async function natsFixture(): Promise<Fixture> {
  const nats: NatsServer = await startNatsServer();
  const port = Number(new URL(nats.url).port);
  const proxy = await startAckHoldingProxy({ host: '127.0.0.1', port });
  const stream = 'CONTRACT';
  let before = 0;
  const messages = async () => {
    const nc = await natsConnect({ servers: nats.url });
    try {
      const manager = await jetstreamManager(nc);
      const info = await manager.streams.info(stream).catch(() => null);
      if (!info) return { total: 0, distinct: 0 };
      const ids = new Set<string>();
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const message = await manager.streams.getMessage(stream, { seq });
        if (message) ids.add(message.header.get('Nats-Msg-Id'));
      }
      return { total: info.state.messages, distinct: ids.size };
    } finally {
      await nc.close();
    }
  };
  return {
    kind: 'nats',
    settings: { url: `nats://127.0.0.1:${proxy.port}`, stream, subject: 'contract' },
    count: messages,
    async hold() {
      before = (await messages()).total;
      proxy.hold();
    },
    async inFlight() {
      await until(
        'messages stored whose acknowledgements are withheld',
        async () => (await messages()).total >= before + 2,
      );
    },
    async fast() {
      proxy.release();
    },
    async close() {
      await proxy.close();
      await nats.close();
    },
  };
}

const kinds: { kind: string; skip: () => Promise<string | false>; make: () => Promise<Fixture> }[] = [
  { kind: 'postgresql', skip: destinationServerSkipReason, make: postgresqlFixture },
  { kind: 's3', skip: async () => false, make: s3Fixture },
  { kind: 'nats', skip: async () => natsSkipReason(), make: natsFixture },
];

describe('destination contract (every kind, SIGKILL mid-delivery)', () => {
  for (const { kind, skip, make } of kinds) {
    test(
      `${kind}: N events are N at the destination, after a kill -9 mid-delivery and a replay`,
      { timeout: 400_000 },
      async (t) => {
        const reason = await skip();
        if (reason) return t.skip(reason);
        if (!existsSync(nodeBinary)) throw new Error(`${nodeBinary} is missing: run npm install first`);
        const fixture = await make();
        const dataDir = mkdtempSync(join(tmpdir(), 'tributary-contract-'));
        // On PostgreSQL, a database of its own (commits there need not wait for the disk), copied
        // from the run's migrated template: the service finds its migrations done.
        const database = process.env.DATABASE_URL ? await createTestDatabase() : undefined;
        const encryptionKey = randomBytes(32).toString('hex');
        const port = await freePort();
        let child: ChildProcess | undefined;
        let log = '';
        const env = (): NodeJS.ProcessEnv => ({
          PATH: process.env.PATH,
          DATA_DIR: dataDir,
          PORT: String(port),
          LOG_LEVEL: 'warn',
          ENCRYPTION_KEY: encryptionKey,
          WEBHOOK_RETRY_SCALE: '0.001',
          ...QUICK_SUPERVISION_ENV,
          ...(database ? { DATABASE_URL: database.url } : {}),
        });
        const start = async () => {
          const running = spawn(nodeBinary, [cli, 'serve', '--role', 'all'], {
            env: env(),
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          child = running;
          running.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
          running.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
          await until(
            'the service ready',
            async () => {
              if (running.exitCode !== null)
                throw new Error(`the service exited (${running.exitCode}):\n${log.slice(-3000)}`);
              try {
                return (await fetch(`http://127.0.0.1:${port}/ready`)).status === 200;
              } catch {
                return false;
              }
            },
            { timeoutMs: 90_000, intervalMs: 200 },
          );
        };
        const kill = async () => {
          const running = child;
          if (!running || running.exitCode !== null || running.signalCode !== null) return;
          const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
          running.kill('SIGKILL');
          await exited;
        };
        try {
          const created = JSON.parse(
            (
              await promisify(execFile)(
                nodeBinary,
                [
                  cli,
                  'developers',
                  'create',
                  '--name',
                  `Contract ${kind}`,
                  '--environment',
                  'sandbox',
                  '--json',
                ],
                { env: env(), timeout: 60_000 },
              )
            ).stdout,
          ) as { dev_id: string; api_key: string };
          const headers = {
            'dev-id': created.dev_id,
            'x-api-key': created.api_key,
            'content-type': 'application/json',
          };
          const call = async (method: string, path: string, body?: object) => {
            const response = await fetch(`http://127.0.0.1:${port}${path}`, {
              method,
              headers: body ? headers : { 'dev-id': created.dev_id, 'x-api-key': created.api_key },
              ...(body ? { body: JSON.stringify(body) } : {}),
            });
            const text = await response.text();
            return {
              status: response.status,
              body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
            };
          };
          await start();
          const destination = await call('POST', '/v2/destinations', { kind, settings: fixture.settings });
          assert.equal(destination.status, 201, JSON.stringify(destination.body));
          const id = String(destination.body.id);
          const sendOne = async () => {
            const response = await call('POST', `/v2/destinations/${id}/test`);
            assert.equal(response.status, 202, JSON.stringify(response.body));
            return String(response.body.event_id);
          };

          // A first event makes sure the destination is ready (its tables, its stream).
          const eventIds = [await sendOne()];
          await until(
            `the first event at the ${kind} destination`,
            async () => (await fixture.count()).total === 1,
          );

          await fixture.hold();
          const sent = Array.from({ length: EVENTS - eventIds.length }, () => sendOne());
          eventIds.push(...(await Promise.all(sent)));
          await fixture.inFlight();
          assert.equal(new Set(eventIds).size, EVENTS);
          const atKill = await fixture.count();
          assert.ok(
            atKill.total < EVENTS,
            `all ${EVENTS} were at the destination before the kill: nothing was in flight`,
          );
          await kill();
          await fixture.fast();
          await start();

          await until(
            `all ${EVENTS} events delivered after the restart`,
            async () => {
              const page = await call('GET', `/v2/destinations/${id}/deliveries?limit=200`);
              const list = page.body.deliveries as { event_id: string; status: string }[];
              return list.filter((d) => eventIds.includes(d.event_id) && d.status === 'delivered').length;
            },
            { done: (n) => n === EVENTS, timeoutMs: 240_000, intervalMs: 500 },
          );
          assert.deepEqual(
            await fixture.count(),
            { total: EVENTS, distinct: EVENTS },
            'exactly N, none twice',
          );

          const replay = await call('POST', `/v2/destinations/${id}/deliveries/${eventIds[5]}/replay`);
          assert.equal(replay.status, 202);
          await until('the replay delivered', async () => {
            const page = await call('GET', `/v2/destinations/${id}/deliveries?limit=200`);
            const entry = (
              page.body.deliveries as { event_id: string; status: string; attempt_count: number }[]
            ).find((d) => d.event_id === eventIds[5]);
            return entry?.status === 'delivered' && entry.attempt_count >= 2;
          });
          assert.deepEqual(
            await fixture.count(),
            { total: EVENTS, distinct: EVENTS },
            'a replay adds nothing',
          );
          console.log(
            `# ${kind}: ${atKill.total} of ${EVENTS} at the destination when killed; ${EVENTS} after`,
          );
        } finally {
          await kill();
          await fixture.fast().catch(() => undefined);
          await fixture.close().catch(() => undefined);
          await database?.drop().catch(() => undefined);
          rmSync(dataDir, { recursive: true, force: true });
        }
      },
    );
  }
});
