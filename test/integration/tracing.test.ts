import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/core/log.ts';
import { readSettings } from '../../src/core/settings.ts';
import { inSpan } from '../../src/core/tracing.ts';
import { tracingSettings } from '../../src/core/tracing-settings.ts';
import { startTracing, type Tracing } from '../../src/runtime/tracing.ts';
import { providerEnv } from '../fakes/fake-server.ts';
import { startWahooFake, type WahooFake } from '../fakes/wahoo.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { freePort } from '../helpers/child-service.ts';
import { connectThroughFake } from '../helpers/connections.ts';
import { until } from '../helpers/until.ts';
import { setUrl } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * Traces across the whole path of a provider notification: the provider's POST to Tributary (a
 * server span), the notification job it queued, the job's call to the provider's API, and the
 * webhook delivery of the resulting data event, as one trace exported over OTLP/HTTP (JSON) to a
 * real HTTP receiver here. The provider is the Wahoo fake; the developer's endpoint a local receiver.
 */

/** One span as OTLP/JSON encodes it (ids are hex strings in the JSON encoding of OTLP). */
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number };
};
type OtlpExport = {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: Record<string, unknown> }[] };
    scopeSpans: { scope?: { name?: string }; spans: OtlpSpan[] }[];
  }[];
};

/** OTLP span kinds (opentelemetry-proto trace.proto: SPAN_KIND_SERVER = 2, CLIENT = 3, CONSUMER = 5). */
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

const attribute = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes?.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : (value.stringValue ?? value.intValue ?? value.boolValue);
};

/** A collector's OTLP/HTTP traces endpoint, as small as it gets: it keeps what it is sent. */
async function startOtlpReceiver() {
  const spans: OtlpSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  const refused: string[] = [];
  const scopes = new Set<string>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // The JSON encoding (OTLP/HTTP: Content-Type application/json, POST to /v1/traces).
      if (
        request.method !== 'POST' ||
        request.url !== '/v1/traces' ||
        request.headers['content-type'] !== 'application/json'
      ) {
        refused.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
        response.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
      for (const resourceSpans of body.resourceSpans) {
        resources.push(
          Object.fromEntries(
            (resourceSpans.resource?.attributes ?? []).map((entry) => [entry.key, entry.value.stringValue]),
          ),
        );
        for (const scope of resourceSpans.scopeSpans) {
          scopes.add(scope.scope?.name ?? '');
          spans.push(...scope.spans);
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    resources,
    refused,
    scopes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('tracing: one trace from a provider notification to the webhook delivery', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let tracing: Tracing | null;
  let fake: WahooFake;
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let publicUrl: string;
  let userId: string;
  const logLines: Record<string, unknown>[] = [];

  before(async () => {
    otlp = await startOtlpReceiver();
    const log = createLogger('warn');
    tracing = await startTracing(
      readSettings(tracingSettings, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url }),
      log,
    );
    fake = await startWahooFake({ webhookToken: 'wahoo-webhook-token-trace', historyDays: 5 });
    fake.limitPer5Minutes = 100_000;
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    service = await startTestService({
      env: {
        ...providerEnv('WAHOO', fake),
        PUBLIC_URL: publicUrl,
        WAHOO_REQUEST_BUDGET: '100000/300,100000/3600,100000/86400',
        WAHOO_WEBHOOK_SECRET: 'wahoo-webhook-token-trace',
        LOG_LEVEL: 'info',
      },
      logTo: new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString('utf8').split('\n'))
            if (line.trim() !== '') logLines.push(JSON.parse(line) as Record<string, unknown>);
          done();
        },
      }),
    });
    await service.app.listen({ port, host: '127.0.0.1' });
    fake.webhookUrl = `${publicUrl}/providers/WAHOO/webhook`;
    developer = await createDeveloper(service.ctx);
    receiver = await startWebhookReceiver();
    await setUrl(service, developer, receiver.url);
  });
  after(async () => {
    await service?.close();
    await tracing?.shutdown();
    await receiver?.close();
    await fake?.close();
    await otlp?.close();
  });

  test('request -> job -> provider call -> webhook delivery share one trace', async (t) => {
    assert.ok(tracing, 'an endpoint starts tracing');
    ({ userId } = await connectThroughFake(service.app, developer, 'WAHOO', fake, 'trace-person'));
    await until('the backfill to finish', () => service.ctx.connectors.backfill.progress(userId), {
      done: (rows) => rows.length > 0 && rows.every((row) => row.status === 'done'),
      timeoutMs: 120_000,
    });
    // The backfill's own events delivered first, so the next one is the notification's.
    await until(
      'the backfill events to be delivered',
      async () =>
        (
          await service.ctx.db
            .selectFrom('deliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', '=', 'pending')
            .executeTakeFirstOrThrow()
        ).n,
      { done: (pending) => Number(pending) === 0 },
    );
    const workout = fake.workoutsOf('account-1')[0];
    assert.ok(workout, 'the fake has a workout to notify about');

    const before = receiver.received.length;
    const notification = await fake.notifyWorkout(workout.id);
    assert.equal(notification.status, 200, notification.responseBody);
    await receiver.waitFor(
      (list) =>
        list.slice(before).some((entry) => (JSON.parse(entry.body) as { type: string }).type === 'activity'),
      'the activity event the notification leads to',
      60_000,
    );
    const delivered = receiver.received
      .slice(before)
      .find((entry) => (JSON.parse(entry.body) as { type: string }).type === 'activity')!;
    const traceparent = String(delivered.headers.traceparent ?? '');
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent);
    assert.ok(match, `the delivery carries a sampled traceparent, got "${traceparent}"`);
    const [, traceId, deliverySpanId] = match;

    // Every span of that trace, once the SDK has exported them.
    const inTrace = () => otlp.spans.filter((span) => span.traceId === traceId);
    const byId = (id: string | undefined) => inTrace().find((span) => span.spanId === id);
    /** From the delivery span up through the parents exported so far. */
    const chainUp = () => {
      const found: OtlpSpan[] = [];
      for (let span = byId(deliverySpanId); span; span = byId(span.parentSpanId)) found.unshift(span);
      return found;
    };
    // A parent ends after its children (the delivery job records the attempt after the POST):
    // wait until the chain reaches a span without a parent.
    await until(
      'the delivery span and its ancestors up to the root to be exported',
      async () => {
        await tracing!.flush();
        return chainUp();
      },
      {
        done: (found) => found.length > 0 && !found[0]!.parentSpanId,
        timeoutMs: 30_000,
        show: () => JSON.stringify(inTrace().map((span) => span.name)),
      },
    );
    assert.deepEqual(otlp.refused, [], 'every export was OTLP/HTTP JSON to /v1/traces');

    // Connecting traced too: the OAuth code exchange is a client span of the callback request.
    const exchange = fake.requests.find(
      (request) => request.path === '/oauth/token' && request.body.includes('grant_type=authorization_code'),
    );
    const exchangeParent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(
      String(exchange?.headers.traceparent ?? ''),
    );
    assert.ok(exchangeParent, 'the token exchange carried a traceparent');
    const exchangeSpan = otlp.spans.find((span) => span.spanId === exchangeParent[2]);
    assert.equal(exchangeSpan?.name, 'POST OAuth');
    assert.equal(exchangeSpan.kind, CLIENT);
    const callback = otlp.spans.find((span) => span.spanId === exchangeSpan.parentSpanId);
    assert.equal(callback?.kind, SERVER);
    assert.match(String(attribute(callback, 'http.route')), /callback/);
    assert.equal(otlp.resources[0]?.['service.name'], 'tributary');
    // Only our spans: pg-boss's own instrumentation (a trace per job) stays off.
    assert.deepEqual([...otlp.scopes], ['tributary']);

    // Walk up from the delivery: each span's parent is in the same trace, up to the root.
    const chain = chainUp();
    const names = chain.map((span) => span.name);
    t.diagnostic(`the chain: ${names.join(' > ')}`);
    const root = chain[0]!;
    assert.equal(
      root.parentSpanId || undefined,
      undefined,
      `the chain ends at a root span: ${names.join(' > ')}`,
    );
    assert.equal(root.kind, SERVER, names.join(' > '));
    assert.equal(root.name, 'POST /providers/:provider/webhook');
    assert.equal(attribute(root, 'http.response.status_code'), 200);
    // The request id of the span is the one the response and its log line carried.
    const requestId = attribute(root, 'tributary.request_id');
    assert.equal(typeof requestId, 'string');
    const requestLine = logLines.find(
      (line) => line.reqId === requestId && line.path === '/providers/WAHOO/webhook',
    );
    assert.ok(requestLine, 'the request is logged with its request id');
    assert.equal(requestLine.trace_id, traceId, 'and its log line names the trace');

    const notificationJob = chain.find((span) => span.name === 'process connectors.notification');
    assert.ok(notificationJob, `the notification job is in the chain: ${names.join(' > ')}`);
    assert.equal(notificationJob.kind, CONSUMER);
    assert.equal(
      notificationJob.parentSpanId,
      root.spanId,
      'the job is a child of the request that queued it',
    );
    const deliveryJob = chain.find((span) => span.name === 'process delivery.deliver');
    assert.ok(deliveryJob, `the delivery job is in the chain: ${names.join(' > ')}`);
    assert.ok(chain.indexOf(deliveryJob) > chain.indexOf(notificationJob));
    const delivery = chain.at(-1)!;
    assert.equal(delivery.name, 'POST webhook');
    assert.equal(delivery.kind, CLIENT);
    assert.equal(delivery.parentSpanId, deliveryJob.spanId);
    assert.equal(attribute(delivery, 'http.response.status_code'), 200);
    assert.equal(attribute(delivery, 'tributary.webhook.event_id'), delivered.headers['webhook-id']);

    // The job called the provider: a client span under the job, whose traceparent the fake received.
    const providerCalls = inTrace().filter(
      (span) => span.kind === CLIENT && attribute(span, 'tributary.provider') === 'WAHOO',
    );
    assert.ok(
      providerCalls.length > 0,
      `a provider call in the trace: ${inTrace()
        .map((span) => span.name)
        .join(', ')}`,
    );
    for (const call of providerCalls) {
      let ancestor = byId(call.parentSpanId);
      while (ancestor && ancestor !== notificationJob) ancestor = byId(ancestor.parentSpanId);
      assert.ok(ancestor, `${call.name} runs inside the notification job`);
      const received = fake.requests.filter(
        (request) => request.headers.traceparent === `00-${traceId}-${call.spanId}-01`,
      );
      assert.ok(received.length > 0, `the fake received ${call.name}'s traceparent`);
      assert.equal(attribute(call, 'http.response.status_code'), 200);
    }
  });

  test('a log line written inside a span names its trace', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
          done();
        },
      }),
    );
    log.info('outside');
    const ids = await inSpan('a job of the test', {}, async (span) => {
      log.info('inside');
      return span?.spanContext();
    });
    assert.ok(ids);
    assert.equal(lines[0]?.trace_id, undefined);
    assert.equal(lines[1]?.trace_id, ids.traceId);
    assert.equal(lines[1]?.span_id, ids.spanId);
  });

  test('a problem names its request: the request id of the x-request-id header, a span of its own', async () => {
    // Probes make no spans: a request to /health with a traceparent of its own, first.
    const probeTrace = '1af7651916cd43dd8448eb211c80319c';
    const probe = await fetch(`${publicUrl}/health`, {
      headers: { traceparent: `00-${probeTrace}-b7ad6b7169203331-01` },
    });
    assert.equal(probe.status, 200);
    const response = await fetch(`${publicUrl}/v2/no-such-route`, {
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    });
    const problem = problemOf({
      headers: Object.fromEntries(response.headers),
      body: await response.text(),
      statusCode: response.status,
    });
    assert.equal(problem.status, 404);
    assert.equal(problem.body.request_id, response.headers.get('x-request-id'));
    // The caller's traceparent is continued: the server span is the caller's span's child.
    await until(
      'the 404 request span',
      async () => {
        await tracing!.flush();
        return otlp.spans.find((span) => attribute(span, 'tributary.request_id') === problem.body.request_id);
      },
      { done: Boolean, timeoutMs: 30_000 },
    );
    const span = otlp.spans.find(
      (candidate) => attribute(candidate, 'tributary.request_id') === problem.body.request_id,
    )!;
    assert.equal(span.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(span.parentSpanId, 'b7ad6b7169203331');
    assert.equal(attribute(span, 'http.response.status_code'), 404);

    // The probe, answered before the 404 was asked, made no span.
    assert.deepEqual(
      otlp.spans.filter((candidate) => candidate.traceId === probeTrace),
      [],
    );
  });
});
