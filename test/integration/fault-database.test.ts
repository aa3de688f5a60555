import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test, type TestContext } from 'node:test';
import {
  type ChildEnvironment,
  childEnvironment,
  type RunningService,
  runCli,
  startService,
} from '../helpers/child-service.ts';
import {
  createScratchDatabase,
  postgresSkipReason,
  type ScratchDatabase,
} from '../helpers/scratch-database.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/until.ts';

/**
 * Database faults against the real service process on PostgreSQL: every backend terminated
 * several times in the middle of traffic, then the database unreachable altogether (a proxy
 * between them cut) and back. The process stays up, every answer is a 2xx or a 503
 * problem+json (never a 500, never a dropped socket), /ready follows the database, and a
 * webhook job queued before the faults is still delivered.
 */
const skip = await postgresSkipReason();

type Outcome = { path: string; status: number | 'dropped'; contentType: string; retryAfter: string | null };

/** A webhook receiver that can hold chosen deliveries until released. */
async function startGatedReceiver() {
  const arrived = new Map<string, number>();
  const held = new Map<string, (() => void)[]>();
  const gates = new Set<string>();
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id'] ?? '');
      arrived.set(id, (arrived.get(id) ?? 0) + 1);
      const answer = () => response.writeHead(200).end();
      if (gates.has(id)) held.set(id, [...(held.get(id) ?? []), answer]);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals: (id: string) => arrived.get(id) ?? 0,
    hold: (id: string) => gates.add(id),
    release(id: string) {
      gates.delete(id);
      for (const answer of held.get(id) ?? []) answer();
      held.delete(id);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('database faults on PostgreSQL (real service process)', { skip }, () => {
  let database: ScratchDatabase;
  let proxy: TcpProxy;
  let environment: ChildEnvironment;
  let service: RunningService;
  let receiver: Awaited<ReturnType<typeof startGatedReceiver>>;
  let headers: Record<string, string>;

  before(async () => {
    const base = process.env.DATABASE_URL!;
    database = await createScratchDatabase(base, 'fault');
    const direct = new URL(base);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    environment = await childEnvironment({
      DATABASE_URL: database.url({ host: '127.0.0.1', port: proxy.port }),
      DATABASE_SCHEMA: 'public',
    });
    receiver = await startGatedReceiver();
    const created = await runCli(
      ['developers', 'create', '--name', 'Fault test', '--environment', 'sandbox', '--json'],
      environment.env,
    );
    assert.equal(created.code, 0, created.stderr);
    const developer = JSON.parse(created.stdout) as { dev_id: string; api_key: string };
    headers = { 'dev-id': developer.dev_id, 'x-api-key': developer.api_key };
    service = await startService(environment.env);
    const set = await fetch(`${service.url}/v2/webhook`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url }),
    });
    assert.equal(set.status, 200, await set.text());
  });

  after(async () => {
    await service?.stop('SIGTERM').catch(() => {});
    await receiver?.close();
    await proxy?.close();
    await environment?.cleanup();
    await database?.drop();
  });

  /** Requests from several clients at once until stopped; every answer is kept. */
  function driveTraffic(clients = 4) {
    const outcomes: Outcome[] = [];
    let running = true;
    const requests = [
      { path: '/v2/webhook', method: 'GET' },
      { path: '/v2/subscriptions', method: 'GET' },
      { path: '/v2/webhook/deliveries?limit=5', method: 'GET' },
      { path: '/v2/webhook/test', method: 'POST' },
    ];
    const client = async (offset: number) => {
      for (let i = offset; running; i++) {
        const { path, method } = requests[i % requests.length]!;
        try {
          const response = await fetch(`${service.url}${path}`, { method, headers });
          await response.arrayBuffer();
          outcomes.push({
            path,
            status: response.status,
            contentType: response.headers.get('content-type') ?? '',
            retryAfter: response.headers.get('retry-after'),
          });
        } catch {
          outcomes.push({ path, status: 'dropped', contentType: '', retryAfter: null });
          // A dead service answers nothing again; the assertions will say so.
          if (service.process.exitCode !== null || service.process.signalCode !== null) running = false;
        }
      }
    };
    const done = Promise.all(Array.from({ length: clients }, (_, offset) => client(offset)));
    return {
      outcomes,
      /** Waits until `count` more answers have come back (traffic keeps flowing). */
      async more(count: number) {
        const target = outcomes.length + count;
        await until(`${count} more responses`, () => {
          if (!running) throw new Error(`the service died:\n${service.output().slice(-3000)}`);
          return outcomes.length >= target;
        });
      },
      async stop() {
        running = false;
        await done;
      },
    };
  }

  const ready = () =>
    fetch(`${service.url}/ready`).then(
      (response) => response.status,
      () => 0,
    );
  const apiStatus = () =>
    fetch(`${service.url}/v2/webhook`, { headers }).then(
      (response) => response.status,
      () => 0,
    );

  function assertOnly2xxOr503Problems(outcomes: Outcome[]) {
    const wrong = outcomes.filter(
      (outcome) =>
        !(typeof outcome.status === 'number' && outcome.status >= 200 && outcome.status < 300) &&
        !(
          outcome.status === 503 &&
          outcome.contentType.startsWith('application/problem+json') &&
          outcome.retryAfter !== null
        ),
    );
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} answers were neither 2xx nor 503 problem+json`);
  }

  test('every backend terminated five times mid-traffic: process up, 2xx or 503 only, the queued job completes', async (t) => {
    // A delivery queued before the faults and still in flight (held by the receiver) through them.
    const queued = await fetch(`${service.url}/v2/webhook/test`, { method: 'POST', headers });
    assert.equal(queued.status, 202);
    const { event_id: heldEvent } = (await queued.json()) as { event_id: string };
    receiver.hold(heldEvent);
    await until('the held delivery to reach the receiver', () => receiver.arrivals(heldEvent) > 0);

    const traffic = driveTraffic();
    let terminated = 0;
    try {
      for (let round = 0; round < 5; round++) {
        await traffic.more(20);
        terminated += await database.terminateBackends();
      }
      await traffic.more(40);
    } finally {
      receiver.release(heldEvent);
      await traffic.stop();
    }

    assert.equal(service.process.exitCode, null, `the service exited:\n${service.output().slice(-3000)}`);
    assert.ok(terminated >= 5, `terminated ${terminated} backends`);
    assertOnly2xxOr503Problems(traffic.outcomes);
    const ok = traffic.outcomes.filter((outcome) => outcome.status === 200 || outcome.status === 202).length;
    const unavailable = traffic.outcomes.filter((outcome) => outcome.status === 503).length;
    t.diagnostic(`${terminated} backends terminated; ${ok} answers 2xx, ${unavailable} answers 503`);
    assert.equal(await ready(), 200);

    // The job queued before the faults completes: delivered and recorded as delivered.
    await until(`event ${heldEvent} recorded as delivered`, async () => {
      const response = await fetch(`${service.url}/v2/webhook/deliveries?limit=200&type=healthcheck`, {
        headers,
      }).catch(() => undefined);
      if (response?.status !== 200) return false;
      const { deliveries } = (await response.json()) as {
        deliveries: { event_id: string; status: string }[];
      };
      return deliveries.some(
        (delivery) => delivery.event_id === heldEvent && delivery.status === 'delivered',
      );
    });
    assert.ok(receiver.arrivals(heldEvent) >= 1);
  });

  test('the database unreachable, then back: /ready 503 then 200, requests 503 problem+json, jobs resume', async (t) => {
    const traffic = driveTraffic(2);
    try {
      await outageAndRecovery(traffic, t);
    } finally {
      await proxy.restore();
      await traffic.stop();
    }
    assert.equal(service.process.exitCode, null, `the service exited:\n${service.output().slice(-3000)}`);
    assertOnly2xxOr503Problems(traffic.outcomes);

    // Jobs resume: an event queued after the outage is delivered.
    const queued = await fetch(`${service.url}/v2/webhook/test`, { method: 'POST', headers });
    assert.equal(queued.status, 202);
    const { event_id: eventId } = (await queued.json()) as { event_id: string };
    await until(`event ${eventId} delivered after the outage`, () => receiver.arrivals(eventId) > 0);

    assert.equal(await service.stop('SIGTERM'), 0, 'graceful shutdown after the faults');
  });

  async function outageAndRecovery(traffic: ReturnType<typeof driveTraffic>, t: TestContext) {
    await traffic.more(10);
    await proxy.cut();
    await until('/ready to report the database down', async () => (await ready()) === 503);
    const down = await fetch(`${service.url}/ready`);
    assert.deepEqual(await down.json(), {
      status: 'not_ready',
      database: 'unreachable',
      pending_migrations: [],
    });
    const cutAt = traffic.outcomes.length;
    await until(
      'requests answered 503 during the outage',
      () => traffic.outcomes.slice(cutAt).filter((outcome) => outcome.status === 503).length >= 8,
    );
    const problem = await fetch(`${service.url}/v2/webhook`, { headers });
    assert.equal(problem.status, 503);
    assert.equal(problem.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.ok(Number(problem.headers.get('retry-after')) > 0);
    const body = (await problem.json()) as { type: string; status: number; detail: string };
    assert.match(body.type, /\/problems\/service-unavailable$/);
    assert.equal(body.status, 503);

    await proxy.restore();
    const restoredAt = Date.now();
    await until('/ready to report the database back', async () => (await ready()) === 200);
    await until('the API to answer again', async () => (await apiStatus()) === 200);
    t.diagnostic(`API answering again ${Date.now() - restoredAt} ms after the database came back`);
    await traffic.more(10);
  }
});
