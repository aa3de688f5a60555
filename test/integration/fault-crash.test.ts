// kill -9 of the single process in the middle of work, then a restart: nothing is lost. Runs on
// PostgreSQL with DATABASE_URL, on embedded storage otherwise (one process suffices for both).
// Webhook delivery under kill -9 is test/integration/webhook-crash.test.ts; this file covers:
// - a burst of order creations: every order retried with its Idempotency-Key ends created once,
//   charged once, its webhook delivered; every authorisation the crash left without an order is
//   voided by the payment sweeper (no orphan payment);
// - a provider backfill (the Oura fake, a real HTTP server in this process, slowed down so the kill
//   lands mid-backfill): after the restart every type is backfilled over the whole window and the
//   user is whole (active, tokens kept), not half-written.
// What happened is printed as a `#` line (counts of orders, events, restarts, and what was lost).
// Every wait is on a state (responses, the receiver, the fake's request log, the service's log,
// the store after a clean stop), bounded, and says what it waited for.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type OuraFake, startOuraFake } from '../fakes/oura.ts';
import { missingProviderSamples } from '../helpers/provider-samples.ts';
import { followAuthorize, providerEnv } from '../fakes/fake-server.ts';
import {
  childEnvironment,
  type ChildEnvironment,
  runCli,
  type RunningService,
  startService,
} from '../helpers/child-service.ts';
import { withChildStore } from '../helpers/child-store.ts';
import { orderBody } from '../helpers/orders.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { untilDefined } from '../helpers/until.ts';
import { QUICK_SUPERVISION_ENV } from '../helpers/job-queue-settings.ts';

const storage = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded storage';
const cleanups: (() => Promise<unknown>)[] = [];

after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function createDeveloper(env: Record<string, string>, name: string) {
  const created = await runCli(
    ['developers', 'create', '--name', name, '--environment', 'sandbox', '--order-api', '--json'],
    env,
  );
  assert.equal(created.code, 0, created.stderr);
  const { dev_id: devId, api_key: apiKey } = JSON.parse(created.stdout) as {
    dev_id: string;
    api_key: string;
  };
  return { devId, headers: { 'dev-id': devId, 'x-api-key': apiKey } };
}

/** A child service, restartable on the same storage, that keeps every run's output. */
function serviceOn(environment: ChildEnvironment) {
  let running: RunningService | undefined;
  const outputs: string[] = [];
  let starts = 0;
  cleanups.push(async () => running?.stop('SIGKILL'));
  return {
    get url() {
      return environment.env.PUBLIC_URL ?? '';
    },
    get restarts() {
      return Math.max(0, starts - 1);
    },
    output: () => [...outputs, running?.output() ?? ''].join(''),
    async start() {
      running = await startService(environment.env);
      starts += 1;
    },
    async stop(signal: NodeJS.Signals) {
      if (!running) return;
      await running.stop(signal);
      outputs.push(running.output());
      running = undefined;
    },
  };
}

describe(`kill -9 of the single process, then a restart (${storage})`, () => {
  it(
    'during a burst of order creations: every order created once, charged once, announced; no orphan payment',
    { timeout: 420_000 },
    async () => {
      const ORDERS = 60;
      const CONCURRENCY = 16;
      const KILL_AFTER = 15;
      // Every other client sends no Idempotency-Key: one whose request died with the process cannot
      // safely retry, so an authorisation made for it is left for the payment sweeper.
      const keyed = (index: number) => index % 2 === 0;
      const receiver = await startWebhookReceiver();
      cleanups.push(() => receiver.close());
      const environment = await childEnvironment({
        ...QUICK_SUPERVISION_ENV,
        ORDER_SANDBOX_TIMERS: 'off',
        // Short so the test's retries can take over the dead claims, and the sweeper settle them, soon.
        ORDER_CLAIM_LEASE_SECONDS: '3',
        ORDER_PAYMENT_GRACE_SECONDS: '5',
      });
      cleanups.push(() => environment.cleanup());
      const developer = await createDeveloper(environment.env, 'Order crash');
      const hook = await runCli(['webhook', 'set', developer.devId, '--url', receiver.url], environment.env);
      assert.equal(hook.code, 0, hook.stderr);
      const service = serviceOn(environment);
      await service.start();

      const reference = (index: number) => `crash-${index}`;
      const post = (index: number) =>
        fetch(`${service.url}/api/v1/orders`, {
          method: 'POST',
          headers: {
            ...developer.headers,
            'content-type': 'application/json',
            ...(keyed(index) ? { 'idempotency-key': `crash-order-${index}` } : {}),
          },
          body: JSON.stringify(orderBody({ client_order_reference_id: reference(index) })),
        });

      // The burst: CONCURRENCY requests in flight until KILL_AFTER have been answered, then kill -9.
      const firstAnswers = new Map<number, string>();
      const sent = new Set<number>();
      let next = 0;
      let killed = false;
      let inFlight = 0;
      let inFlightAtKill = 0;
      const killing = untilDefined(
        'orders answered before the kill',
        () => (firstAnswers.size >= KILL_AFTER ? true : undefined),
        { intervalMs: 200, timeoutMs: 120_000 },
      ).then(async () => {
        killed = true;
        inFlightAtKill = inFlight;
        await service.stop('SIGKILL');
      });
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (!killed && next < ORDERS) {
            const index = next++;
            sent.add(index);
            inFlight += 1;
            try {
              const response = await post(index);
              const body = (await response.json()) as { order_id?: string };
              if (response.status === 201 && body.order_id) firstAnswers.set(index, body.order_id);
            } catch {
              // The process died under this request.
            } finally {
              inFlight -= 1;
            }
          }
        }),
      );
      await killing;
      assert.ok(firstAnswers.size < ORDERS, 'the kill landed mid-burst');
      const abandoned = [...sent].filter((index) => !keyed(index) && !firstAnswers.has(index));

      await service.start();
      // Every keyed order again with its key (a replay for those answered, a takeover of the claim,
      // once its lease ran out, for those the crash interrupted), and the orders never sent.
      const orderIds = new Map<number, string>(firstAnswers);
      let refused = 0;
      const todo = Array.from({ length: ORDERS }, (_, index) => index).filter(
        (index) => keyed(index) || !sent.has(index),
      );
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, worker) => {
          for (let slot = worker; slot < todo.length; slot += CONCURRENCY) {
            const index = todo[slot]!;
            const id = await untilDefined(
              `order ${reference(index)} created after the restart`,
              async () => {
                const response = await post(index);
                const body = (await response.json()) as { order_id?: string };
                if (response.status === 201 && body.order_id) return body.order_id;
                assert.ok(
                  [409, 503].includes(response.status),
                  `${reference(index)}: ${response.status} ${JSON.stringify(body)}`,
                );
                refused += 1;
                return undefined;
              },
              { intervalMs: 200 },
            );
            if (firstAnswers.has(index))
              assert.equal(id, firstAnswers.get(index), `${reference(index)}: replayed, not re-created`);
            orderIds.set(index, id);
          }
        }),
      );

      // What the store holds, read after a clean stop (embedded storage has one process at a time).
      // Whatever is still unsettled (an authorisation the sweeper has not reached, an order whose
      // webhook has not gone out) gets another run of the service until it is.
      const read = () =>
        withChildStore(environment.env, async (db) => ({
          payments: await db
            .selectFrom('order_payments')
            .select(['id', 'status', 'order_id'])
            .where('developer_id', '=', developer.devId)
            .execute(),
          orders: await db
            .selectFrom('orders')
            .select(['id', 'client_order_reference_id', 'payment_id'])
            .where('developer_id', '=', developer.devId)
            .execute(),
        }));
      const announced = () =>
        new Set(
          receiver.received.map(
            (entry) => (JSON.parse(entry.body) as { data?: { order_id?: string } }).data?.order_id,
          ),
        );
      await service.stop('SIGTERM');
      let state = await read();
      for (let round = 0; ; round++) {
        const unannounced = state.orders.filter((order) => !announced().has(order.id));
        const unsettled = state.payments.filter((payment) => payment.status === 'authorized');
        if (unannounced.length === 0 && unsettled.length === 0) break;
        assert.ok(
          round < 3,
          `still unsettled after ${round} more runs: ${JSON.stringify({ unannounced, unsettled })}`,
        );
        await service.start();
        await receiver.waitFor(
          () => unannounced.every((order) => announced().has(order.id)),
          `webhooks for ${unannounced.length} orders`,
          120_000,
        );
        if (unsettled.length > 0)
          await untilDefined(
            'the payment sweeper settling what the crash left',
            () =>
              service.output().includes('settled payment authorisations left behind') ? true : undefined,
            { intervalMs: 200, timeoutMs: 150_000 },
          );
        await service.stop('SIGTERM');
        state = await read();
      }

      const byReference = new Map<string, number>();
      for (const order of state.orders)
        byReference.set(
          order.client_order_reference_id,
          (byReference.get(order.client_order_reference_id) ?? 0) + 1,
        );
      for (const [index, id] of orderIds) {
        assert.equal(byReference.get(reference(index)), 1, `${reference(index)}: exactly one order`);
        assert.ok(state.orders.some((order) => order.id === id));
      }
      // An abandoned request may or may not have committed its order before the kill; never twice.
      const committedAnyway = abandoned.filter((index) => byReference.get(reference(index)) === 1).length;
      assert.ok(abandoned.every((index) => (byReference.get(reference(index)) ?? 0) <= 1));
      assert.equal(state.orders.length, orderIds.size + committedAnyway, 'no order beyond the requests');

      const captured = state.payments.filter((payment) => payment.status === 'captured');
      const voided = state.payments.filter((payment) => payment.status === 'voided');
      assert.equal(captured.length, state.orders.length, 'every order charged exactly once');
      assert.deepEqual(
        new Set(captured.map((payment) => payment.id)),
        new Set(state.orders.map((order) => order.payment_id)),
        'each capture is its order’s payment',
      );
      assert.equal(
        state.payments.filter((payment) => payment.status === 'authorized').length,
        0,
        'nothing left held',
      );
      assert.ok(
        voided.every((payment) => payment.order_id === null),
        'only authorisations without an order were voided',
      );
      console.log(
        `# order crash (${storage}): ${state.orders.length} orders from ${ORDERS} requests; kill -9 after ` +
          `${firstAnswers.size} answers with ${inFlightAtKill} in flight (${abandoned.length} without a key, ` +
          `never retried: ${committedAnyway} had committed); ${refused} retries refused while a dead claim's ` +
          `lease ran; ${receiver.received.length} order webhooks for ${announced().size} orders; ` +
          `${voided.length} orphaned authorisations voided; ${service.restarts} restarts; lost 0`,
      );
    },
  );

  it(
    'during a provider backfill: every type backfilled over the whole window, the user whole',
    // The Oura fake builds its documents from the shared provider samples.
    { timeout: 420_000, skip: missingProviderSamples() },
    async () => {
      const TYPES = ['activity', 'athlete', 'body', 'daily', 'sleep'];
      const API = '/v2/usercollection';
      const fake: OuraFake = await startOuraFake();
      cleanups.push(() => fake.close());
      // Slow answers keep the backfill going long enough for the kill to land in the middle of it.
      fake.inject({ kind: 'slow', delayMs: 400, times: 100_000, match: API });
      const environment = await childEnvironment({
        ...QUICK_SUPERVISION_ENV,
        ...providerEnv('OURA', fake),
        LOG_LEVEL: 'info',
        PROVIDER_HTTP_RETRY_BASE_MS: '50',
      });
      cleanups.push(() => environment.cleanup());
      const developer = await createDeveloper(environment.env, 'Backfill crash');
      const service = serviceOn(environment);
      await service.start();

      const link = await fetch(`${service.url}/v2/auth/authenticateUser?resource=OURA`, {
        method: 'POST',
        headers: { ...developer.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ reference_id: 'backfill-crash' }),
      });
      assert.equal(link.status, 200, await link.clone().text());
      const { user_id: userId, auth_url: authUrl } = (await link.json()) as {
        user_id: string;
        auth_url: string;
      };
      const back = await followAuthorize(authUrl);
      const landing = await fetch(`${service.url}${back.pathname}${back.search}`, { redirect: 'manual' });
      assert.equal(landing.status, 302, await landing.text());

      const served = () => fake.requestsTo(API).filter((request) => request.status === 200).length;
      await untilDefined(
        'a few backfill pages served before the kill',
        () => (served() >= 4 ? true : undefined),
        { timeoutMs: 120_000 },
      );
      const servedAtKill = served();
      await service.stop('SIGKILL');
      const finishedBeforeKill = finishedTypes(service.output(), userId);
      assert.ok(finishedBeforeKill.size < TYPES.length, 'the kill landed mid-backfill');

      fake.clearFaults();
      await service.start();
      await untilDefined(
        `every type's backfill finished (${TYPES.join(', ')})`,
        () => (TYPES.every((type) => finishedTypes(service.output(), userId).has(type)) ? true : undefined),
        { intervalMs: 200, timeoutMs: 240_000 },
      );
      await service.stop('SIGTERM');

      const state = await withChildStore(environment.env, async (db) => {
        const user = await db
          .selectFrom('connections')
          .select(['status'])
          .where('id', '=', userId)
          .executeTakeFirst();
        const tokens = await db
          .selectFrom('provider_tokens')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('user_id', '=', userId)
          .executeTakeFirst();
        const backfills = await db
          .selectFrom('connector_backfills')
          .select(['type', 'status', 'chunks_done', 'chunks_total'])
          .select([sql<string>`start_day::text`.as('start_day'), sql<string>`end_day::text`.as('end_day')])
          .where('user_id', '=', userId)
          .execute();
        const coverage = await db
          .selectFrom('sync_coverage')
          .select([
            'type',
            sql<string>`start_day::text`.as('start_day'),
            sql<string>`end_day::text`.as('end_day'),
          ])
          .where('user_id', '=', userId)
          .execute();
        const records = await db
          .selectFrom('data_records')
          .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
          .where('user_id', '=', userId)
          .groupBy('type')
          .execute();
        return { user, tokens: Number(tokens?.n ?? 0), backfills, coverage, records };
      });

      assert.equal(state.user?.status, 'active', 'the user is connected, not half-written');
      assert.ok(state.tokens > 0, 'the user keeps its provider tokens');
      assert.deepEqual(state.backfills.map((row) => row.type).sort(), TYPES);
      for (const row of state.backfills) {
        assert.equal(row.status, 'done', `${row.type}: backfill done`);
        assert.equal(row.chunks_done, row.chunks_total, `${row.type}: every chunk done once`);
        if (row.type === 'athlete') continue;
        const gaps = uncovered(
          state.coverage.filter((range) => range.type === row.type),
          row.start_day,
          row.end_day,
        );
        assert.deepEqual(gaps, [], `${row.type}: ${row.start_day}..${row.end_day} covered without a gap`);
      }
      const counts = Object.fromEntries(state.records.map((row) => [row.type, Number(row.n)]));
      for (const type of TYPES) assert.ok((counts[type] ?? 0) > 0, `${type}: records stored`);
      console.log(
        `# backfill crash (${storage}): kill -9 after ${servedAtKill} provider pages with ${finishedBeforeKill.size}/${TYPES.length} types finished; ` +
          `after ${service.restarts} restarts all ${TYPES.length} types backfilled over the whole window ` +
          `(${Object.entries(counts)
            .map(([type, n]) => `${type} ${n}`)
            .join(', ')} records), user active, lost 0`,
      );
    },
  );
});

/** Types whose backfill the service logged as finished for this user, across every run's output. */
function finishedTypes(output: string, userId: string): Set<string> {
  const types = new Set<string>();
  for (const line of output.split('\n')) {
    if (!line.includes('backfill finished')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; userId?: string; type?: string };
      if (entry.msg === 'backfill finished' && entry.userId === userId && entry.type) types.add(entry.type);
    } catch {
      // Not a log line.
    }
  }
  return types;
}

/** Days of [from, to] that no coverage range includes, as `start..end` strings. */
function uncovered(ranges: { start_day: string; end_day: string }[], from: string, to: string): string[] {
  const dayNumber = (day: string) => Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
  const covered = new Set<number>();
  for (const range of ranges) {
    for (let day = dayNumber(range.start_day); day <= dayNumber(range.end_day); day++) covered.add(day);
  }
  const gaps: string[] = [];
  for (let day = dayNumber(from); day <= dayNumber(to); day++) {
    if (!covered.has(day)) gaps.push(new Date(day * 86_400_000).toISOString().slice(0, 10));
  }
  return gaps;
}
