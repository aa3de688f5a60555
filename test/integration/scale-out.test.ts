// Scale-out, proven: two `serve --role api` and two `serve --role worker` processes on one
// PostgreSQL schema, the API processes behind a round-robin proxy written here (node:http, 127.0.0.1
// only, one upstream per request, alternating). Bounded load through the proxy, then:
// - rate limits are exact across processes: parallel reads that share one user's hourly budget
//   are accepted exactly as far as the budget goes (r2), and an over-long window is refused (r1)
//   without spending any of it;
// - every webhook event is delivered at least once, and any repeat is one docs/webhooks.md allows
//   (the same webhook-id and the same bytes);
// - orders are idempotent: the same Idempotency-Key sent twice at once, to both API processes,
//   makes one order and one charge;
// - recurring jobs run once per occurrence with two workers registering them.
// Needs PostgreSQL (embedded storage belongs to one process).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { childEnvironment, freePort, jobsSchemaOf, runCli } from '../helpers/child-service.ts';
import { orderBody } from '../helpers/orders.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { databaseSkipReason } from '../helpers/database.ts';
import { untilDefined } from '../helpers/until.ts';

const skip = await databaseSkipReason();
/** The processes' database (each environment has one of its own). */
let databaseUrl: string | undefined;
const ROOT = new URL('../../', import.meta.url).pathname;
const SEND_IT = '__pgboss__send-it';

const WEBHOOK_TESTS = 200;
const ORDERS = 30;
const READS = 40;
const READ_DAYS = 7;
const HOURLY_BUDGET_DAYS = 100;

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function query<T extends object>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Round robin per request over `ports`; counts what each upstream served. */
async function startRoundRobinProxy(
  ports: number[],
): Promise<{ url: string; served: number[]; server: Server }> {
  const served = ports.map(() => 0);
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const index = next++ % ports.length;
    served[index] = (served[index] ?? 0) + 1;
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: ports[index],
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(upstream);
  });
  // The test's fetch reuses idle connections for a few seconds: the proxy must not close one first
  // (its default 5 s, late timers under load), or a request sent on it meets ECONNRESET.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, served, server };
}

type Role = { process: ChildProcess; output: () => string };

function spawnRole(env: Record<string, string>, role: 'api' | 'worker'): Role {
  const child = spawn(
    join(ROOT, 'node_modules/.bin/node'),
    [join(ROOT, 'bin/tributary.js'), 'serve', '--role', role],
    {
      env,
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  return { process: child, output: () => output };
}

describe('scale-out: 2 API and 2 worker processes on one PostgreSQL', { skip }, () => {
  it(
    'keeps budgets exact, delivers every webhook, creates each order once and runs each schedule once',
    { timeout: 420_000 },
    async () => {
      const receiver = await startWebhookReceiver();
      cleanups.push(() => receiver.close());
      const apiPorts = [await freePort(), await freePort()];
      const proxy = await startRoundRobinProxy(apiPorts);
      cleanups.push(() => new Promise((resolve) => proxy.server.close(resolve)));
      const environment = await childEnvironment({ PUBLIC_URL: proxy.url });
      databaseUrl = environment.env.DATABASE_URL;
      cleanups.push(() => environment.cleanup());
      const { env } = environment;
      const jobs = jobsSchemaOf(env);

      const created = await runCli(
        ['developers', 'create', '--name', 'Scale-out', '--environment', 'sandbox', '--order-api', '--json'],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const { dev_id: devId, api_key: apiKey } = JSON.parse(created.stdout) as {
        dev_id: string;
        api_key: string;
      };
      const headers = { 'dev-id': devId, 'x-api-key': apiKey };
      for (const args of [
        ['webhook', 'set', devId, '--url', receiver.url],
        ['developers', 'set-limit', devId, '--hourly-days', String(HOURLY_BUDGET_DAYS)],
      ]) {
        const result = await runCli(args, env);
        assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      }

      // One after the other: each checks the schema's migrations (a copy of the run's migrated
      // template: none pending) before it serves.
      const roles: Role[] = [];
      for (const port of apiPorts) {
        const api = spawnRole({ ...env, PORT: String(port) }, 'api');
        roles.push(api);
        await untilDefined(
          `API process on ${port} ready`,
          async () => {
            if (api.process.exitCode !== null) throw new Error(`API process exited:\n${api.output()}`);
            return (await fetch(`http://127.0.0.1:${port}/ready`).then(
              (r) => r.ok,
              () => false,
            ))
              ? true
              : undefined;
          },
          { intervalMs: 250, timeoutMs: 90_000 },
        );
      }
      for (let index = 0; index < 2; index++) {
        const worker = spawnRole({ ...env, PORT: '0' }, 'worker');
        roles.push(worker);
        // A worker has no HTTP: it is up once its queue instance is registered in the database.
        await untilDefined(
          `worker process ${index + 1} registered`,
          async () => {
            if (worker.process.exitCode !== null)
              throw new Error(`worker process exited:\n${worker.output()}`);
            const rows = await query(`SELECT 1 FROM ${jobs}.instance WHERE pid = $1 AND stopped_on IS NULL`, [
              worker.process.pid,
            ]);
            return rows.length > 0 ? true : undefined;
          },
          { intervalMs: 250, timeoutMs: 90_000 },
        );
      }

      const call = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
        fetch(`${proxy.url}${path}`, {
          method,
          headers: {
            ...headers,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...extra,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });

      // Two SANDBOX users, connected through the proxy (consent and callback may land on either API).
      const userIds: string[] = [];
      for (const reference of ['scale-a', 'scale-b']) {
        const link = await call('POST', '/v2/auth/authenticateUser?resource=SANDBOX', {
          reference_id: reference,
        });
        assert.equal(link.status, 200);
        const { user_id: userId, auth_url: authUrl } = (await link.json()) as {
          user_id: string;
          auth_url: string;
        };
        const consent = new URL(authUrl);
        const form = new URLSearchParams(consent.search);
        form.set('decision', 'approve');
        form.set('account', `acct-${reference}`);
        const decided = await fetch(`${proxy.url}${consent.pathname}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
          redirect: 'manual',
        });
        assert.equal(decided.status, 303, await decided.text());
        const back = new URL(String(decided.headers.get('location')));
        const landing = await fetch(`${proxy.url}${back.pathname}${back.search}`, { redirect: 'manual' });
        assert.equal(landing.status, 302, await landing.text());
        userIds.push(userId);
      }
      const [reader, other] = userIds as [string, string];

      // r2: READS parallel reads of READ_DAYS each share one hourly budget, whichever process answers.
      const range = (days: number) => {
        const end = new Date(Date.UTC(2026, 0, 31));
        const start = new Date(end.getTime() - days * 86_400_000);
        return `start_date=${start.toISOString().slice(0, 10)}&end_date=${end.toISOString().slice(0, 10)}`;
      };
      const reads = await Promise.all(
        Array.from({ length: READS }, () =>
          call('GET', `/v2/sleep?user_id=${reader}&${range(READ_DAYS)}&to_webhook=false`),
        ),
      );
      const statuses = reads.map((response) => response.status);
      const rules = reads.map((response) => response.headers.get('x-service-ratelimit-rule'));
      await Promise.all(reads.map((response) => response.arrayBuffer()));
      const accepted = statuses.filter((status) => status === 200).length;
      const expectedAccepted = Math.floor(HOURLY_BUDGET_DAYS / READ_DAYS);
      assert.equal(
        accepted,
        expectedAccepted,
        `exactly ${expectedAccepted} reads fit the budget: ${statuses.join(',')}`,
      );
      assert.ok(
        statuses.every((status, index) => status === 200 || (status === 429 && rules[index] === 'r2')),
        `every refusal is r2: ${statuses.map((status, index) => `${status}/${rules[index]}`).join(',')}`,
      );
      // r1: a window over 1,825 days is refused and costs nothing; the rest of the budget is intact.
      const tooLong = await call('GET', `/v2/sleep?user_id=${other}&${range(1826)}&to_webhook=false`);
      assert.equal(tooLong.status, 429);
      assert.equal(tooLong.headers.get('x-service-ratelimit-rule'), 'r1');
      await tooLong.arrayBuffer();
      const left = HOURLY_BUDGET_DAYS - expectedAccepted * READ_DAYS;
      const last = await call('GET', `/v2/sleep?user_id=${reader}&${range(left)}&to_webhook=false`);
      assert.equal(last.status, 200, 'the rest of the budget is still there, to the day');
      assert.equal(last.headers.get('x-service-ratelimit-remaining'), '0');
      await last.arrayBuffer();
      const over = await call('GET', `/v2/sleep?user_id=${reader}&${range(1)}&to_webhook=false`);
      assert.equal(over.status, 429);
      await over.arrayBuffer();

      // Webhooks: WEBHOOK_TESTS events queued through both API processes, delivered by the workers.
      const eventIds = await Promise.all(
        Array.from({ length: WEBHOOK_TESTS }, async () => {
          const response = await call('POST', '/v2/webhook/test');
          assert.equal(response.status, 202);
          return ((await response.json()) as { event_id: string }).event_id;
        }),
      );

      // Orders: each key sent twice at once (the proxy sends the two to different API processes).
      const orderAnswers = await Promise.all(
        Array.from({ length: ORDERS }, async (_, index) => {
          const send = () =>
            untilDefined(
              `order ${index}`,
              async () => {
                const response = await call(
                  'POST',
                  '/api/v1/orders',
                  orderBody({ client_order_reference_id: `scale-${index}` }),
                  { 'idempotency-key': `scale-order-${index}` },
                );
                const body = (await response.json()) as { order_id?: string };
                if (response.status === 201 && body.order_id) return body.order_id;
                // The twin is still creating it: the documented 409, retried.
                assert.equal(response.status, 409, JSON.stringify(body));
                return undefined;
              },
              { intervalMs: 250 },
            );
          const [first, second] = await Promise.all([send(), send()]);
          assert.equal(first, second, `scale-order-${index}: both answers name one order`);
          return first;
        }),
      );

      const received = () => receiver.distinctIds();
      await receiver.waitFor(
        () => eventIds.every((id) => received().has(id)),
        `all ${WEBHOOK_TESTS} healthcheck events delivered`,
        180_000,
      );
      const orderEvents = () =>
        new Set(
          receiver.received.map(
            (entry) => (JSON.parse(entry.body) as { data?: { order_id?: string } }).data?.order_id,
          ),
        );
      await receiver.waitFor(
        () => orderAnswers.every((id) => orderEvents().has(id)),
        `an order webhook for each of the ${ORDERS} orders`,
        180_000,
      );
      // Repeats are allowed only as documented: the same webhook-id and the same bytes.
      const bodies = new Map<string, Set<string>>();
      for (const entry of receiver.received) {
        const id = String(entry.headers['webhook-id']);
        bodies.set(id, (bodies.get(id) ?? new Set()).add(entry.body));
      }
      for (const [id, variants] of bodies)
        assert.equal(variants.size, 1, `${id}: every delivery carries the same bytes`);
      const repeats = receiver.received.length - bodies.size;

      const orders = await query<{ n: string; payments: string }>(
        `SELECT count(*) AS n, count(DISTINCT payment_id) AS payments FROM ${env.DATABASE_SCHEMA}.orders WHERE developer_id = $1`,
        [devId],
      );
      assert.equal(Number(orders[0]?.n), ORDERS, 'one order per Idempotency-Key');
      const charges = await query<{ status: string; n: string }>(
        `SELECT status, count(*) AS n FROM ${env.DATABASE_SCHEMA}.order_payments WHERE developer_id = $1 GROUP BY status`,
        [devId],
      );
      assert.deepEqual(
        charges.map((row) => [row.status, Number(row.n)]),
        [['captured', ORDERS]],
        'one charge per order, nothing else held',
      );

      // Schedules: the minutely payment sweeper, registered by both workers, runs once per minute.
      const SWEEP = 'orders.sweep-payments';
      const occurrences = async () =>
        query<{ slot: string; n: string }>(
          `SELECT data->>'slot' AS slot, count(*) AS n FROM ${jobs}.job WHERE name = $1 AND data->>'name' = $2 GROUP BY 1`,
          [SEND_IT, SWEEP],
        );
      await untilDefined(
        'two occurrences of the minutely schedule, each run',
        async () => {
          const seen = await occurrences();
          const runs = await query<{ state: string }>(
            `SELECT state FROM ${jobs}.job WHERE name = $1 AND singleton_key IS DISTINCT FROM 'start-up'`,
            [SWEEP],
          );
          return seen.length >= 2 &&
            runs.length === seen.length &&
            runs.every((run) => run.state === 'completed')
            ? true
            : undefined;
        },
        { intervalMs: 250, timeoutMs: 150_000 },
      );
      const perSlot = await query<{ name: string; slot: string; n: string }>(
        `SELECT data->>'name' AS name, data->>'slot' AS slot, count(*) AS n FROM ${jobs}.job WHERE name = $1 GROUP BY 1, 2`,
        [SEND_IT],
      );
      assert.ok(
        perSlot.every((row) => Number(row.n) === 1),
        'each occurrence of each schedule forwarded once',
      );
      const sweeps = await query<{ state: string; retry_count: number }>(
        `SELECT state, retry_count FROM ${jobs}.job WHERE name = $1 AND singleton_key IS DISTINCT FROM 'start-up'`,
        [SWEEP],
      );
      const sweepSlots = perSlot.filter((row) => row.name === SWEEP).length;
      assert.equal(sweeps.length, sweepSlots, 'one job per occurrence');
      assert.ok(
        sweeps.every((job) => job.retry_count === 0),
        'each run once, none repeated',
      );
      const startups = await query(
        `SELECT 1 FROM ${jobs}.job WHERE name = $1 AND singleton_key = 'start-up'`,
        [SWEEP],
      );
      assert.ok(startups.length >= 1 && startups.length <= 2, 'a start-up sweep, at most one per worker');

      for (const role of roles)
        assert.equal(role.process.exitCode, null, `a process died:\n${role.output()}`);
      assert.ok(
        proxy.served.every((count) => count > 0),
        'both API processes served requests',
      );
      console.log(
        `# scale-out: proxy sent ${proxy.served.join(' + ')} requests to 2 API processes; 2 workers; ` +
          `r2 accepted ${accepted}/${READS} reads of ${READ_DAYS} days on a ${HOURLY_BUDGET_DAYS}-day budget, r1 refused 1; ` +
          `${WEBHOOK_TESTS} test events + ${ORDERS} order events delivered (${receiver.received.length} deliveries, ${repeats} repeats); ` +
          `${ORDERS} orders from ${ORDERS * 2} requests, ${ORDERS} charges; ${sweepSlots} payment-sweeper occurrences run once each; lost 0`,
      );
    },
  );
});
