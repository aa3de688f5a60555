// The per-developer output format (docs/wire-contract.md#output-formats): set through the API over
// a real socket (and its 400s) and through the dashboard, and applied to deliveries at a real
// receiver. The delivery test needs the engine to call the formatter (the seam the merger wires:
// features/output-formats/format-event.ts); until the engine does, it skips, saying so.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { EventBundle } from '../../src/features/output-formats/fhir-bundle.ts';
import { FALLBACK_HEADER, FORMAT_HEADER } from '../../src/features/output-formats/formats.ts';
import {
  createEventFormatter,
  FORMAT_FRESH_MS,
  formatEventForDelivery,
} from '../../src/features/output-formats/format-event.ts';
import { buildDataEvent } from '../../src/features/data/events.ts';
import { generate } from '../../src/providers/sandbox/generate.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { DashboardClient } from '../helpers/dashboard.ts';
import { fhirErrors } from '../helpers/fhir-schema.ts';
import { setUrl, standardSignatureMatches } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

describe('output format per developer', () => {
  let service: TestService;
  let base: string;
  const receivers: WebhookReceiver[] = [];

  before(async () => {
    service = await startTestService();
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const address = service.app.server.address();
    assert.ok(address && typeof address === 'object');
    base = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    await service?.close();
    for (const receiver of receivers) await receiver.close();
  });

  const request = (developer: TestDeveloper | null, method: 'GET' | 'PUT', body?: unknown) =>
    fetch(`${base}/v2/output-format`, {
      method,
      headers: {
        ...(developer?.headers ?? {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });

  test('GET is json by default; PUT sets fhir, fit and back to json', async () => {
    const developer = await createDeveloper(service.ctx);
    const initial = await request(developer, 'GET');
    assert.equal(initial.status, 200);
    assert.deepEqual(await initial.json(), {
      output_format: 'json',
      content_type: 'application/json',
      formats: ['json', 'fhir', 'fit'],
    });
    for (const [format, media] of [
      ['fhir', 'application/fhir+json'],
      ['fit', 'application/vnd.ant.fit'],
      ['json', 'application/json'],
    ] as const) {
      const set = await request(developer, 'PUT', { output_format: format });
      assert.equal(set.status, 200);
      assert.deepEqual(await set.json(), {
        output_format: format,
        content_type: media,
        formats: ['json', 'fhir', 'fit'],
      });
      const read = (await (await request(developer, 'GET')).json()) as { output_format: string };
      assert.equal(read.output_format, format);
    }
    // One developer's choice is not another's.
    await request(developer, 'PUT', { output_format: 'fhir' });
    const other = await createDeveloper(service.ctx);
    assert.equal(
      ((await (await request(other, 'GET')).json()) as { output_format: string }).output_format,
      'json',
    );
  });

  test('a bad body is a 400 problem naming output_format; no credentials is a 401', async () => {
    const developer = await createDeveloper(service.ctx);
    for (const body of [{ output_format: 'xml' }, { output_format: 7 }, { output_format: null }, {}]) {
      const response = await request(developer, 'PUT', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match(String(response.headers.get('content-type')), /^application\/problem\+json/);
      const problem = (await response.json()) as { detail: string };
      assert.match(problem.detail, /output_format/, JSON.stringify(problem));
    }
    const broken = await request(developer, 'PUT', '{"output_format":');
    assert.equal(broken.status, 400);
    assert.equal((await request(null, 'GET')).status, 401);
    assert.equal((await request(null, 'PUT', { output_format: 'fhir' })).status, 401);
    // Nothing was changed by the refusals.
    assert.equal(
      ((await (await request(developer, 'GET')).json()) as { output_format: string }).output_format,
      'json',
    );
  });

  test('the dashboard shows the format and sets it (the same setting)', async () => {
    const developer = await createDeveloper(service.ctx, { name: '<b>Formats & co</b>' });
    const browser = new DashboardClient(service.app);
    assert.equal((await browser.signIn(developer.devId, developer.apiKey)).statusCode, 303);
    const page = await browser.get('/dashboard/output-format');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /value="json" checked/);
    assert.doesNotMatch(page.body, /<b>Formats/, 'the name is escaped');
    const saved = await browser.submit('/dashboard/output-format', '/dashboard/output-format', {
      output_format: 'fhir',
    });
    assert.equal(saved.statusCode, 303);
    assert.equal((await service.ctx.outputFormats.get({ id: developer.devId })).output_format, 'fhir');
    const after = await browser.get('/dashboard/output-format');
    assert.match(after.body, /value="fhir" checked/);
    assert.match(after.body, /Events are now delivered as fhir/);

    const refused = await browser.submit('/dashboard/output-format', '/dashboard/output-format', {
      output_format: 'xml"><script>',
    });
    assert.equal(refused.statusCode, 303);
    const shown = await browser.get('/dashboard/output-format');
    assert.match(shown.body, /invalid output_format/);
    assert.doesNotMatch(shown.body, /<script>/);
    assert.equal((await service.ctx.outputFormats.get({ id: developer.devId })).output_format, 'fhir');
  });

  test("the engine's call reads the stored format, remembers it for a second, then sees a change", async () => {
    const developer = await createDeveloper(service.ctx);
    let now = new Date('2025-03-01T00:00:00.000Z');
    const formatter = createEventFormatter({ db: service.ctx.db, clock: { now: () => now } });
    const payload = buildDataEvent('sleep', {
      user: { user_id: '0b7c3f4e-2a51-4c8e-9d36-7f1e2a3b4c5d', provider: 'SANDBOX' },
      data: generate('sleep', { seed: 'formatter', startDate: '2025-02-01', endDate: '2025-02-03' }) as never,
    });
    const row = {
      id: 'evt-formatter',
      developer_id: developer.devId,
      type: payload.type,
      created_at: now,
      body: JSON.stringify(payload),
    };
    const first = await formatter.format(row);
    assert.equal(first.body, row.body, 'json by default');
    assert.equal(first.headers[FORMAT_HEADER], 'json');

    await service.ctx.outputFormats.set({ id: developer.devId }, 'fhir');
    assert.equal((await formatter.format(row)).headers[FORMAT_HEADER], 'json', 'remembered within a second');
    now = new Date(now.getTime() + FORMAT_FRESH_MS);
    const fhir = await formatter.format(row);
    assert.equal(fhir.contentType, 'application/fhir+json');
    assert.equal(fhir.headers[FORMAT_HEADER], 'fhir');
    assert.equal(fhirErrors(JSON.parse(String(fhir.body))), null);

    // The memory-less call tools use reads the store every time.
    await service.ctx.outputFormats.set({ id: developer.devId }, 'fit');
    const fit = await formatEventForDelivery({ db: service.ctx.db }, developer.devId, {
      id: row.id,
      type: row.type,
      createdAt: row.created_at,
      body: row.body,
    });
    assert.equal(fit.headers[FALLBACK_HEADER], 'no-fit-form');
  });

  test('fhir: a data event reaches a real receiver as a signed FHIR Bundle; an auth event as JSON, saying why', async () => {
    const developer = await createDeveloper(service.ctx);
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    await setUrl(service, developer, receiver.url);
    assert.equal((await request(developer, 'PUT', { output_format: 'fhir' })).status, 200);
    const { userId } = await connectSandboxUser(service.app, developer);

    const ack = await fetch(
      `${base}/v2/daily?user_id=${userId}&start_date=2024-02-01&end_date=2024-02-04&to_webhook=true`,
      { headers: developer.headers, signal: AbortSignal.timeout(10_000) },
    );
    assert.equal(ack.status, 200);
    const { reference } = (await ack.json()) as { reference: string };
    await receiver.waitFor(
      (list) => list.some((entry) => entry.headers['service-reference'] === reference),
      'the daily event',
    );
    const delivery = receiver.received.find((entry) => entry.headers['service-reference'] === reference)!;
    assert.equal(delivery.headers['content-type'], 'application/fhir+json');
    assert.equal(delivery.headers[FORMAT_HEADER], 'fhir');
    assert.ok(standardSignatureMatches(delivery.headers, delivery.body, developer.webhookSecret));
    const bundle = JSON.parse(delivery.body) as EventBundle;
    assert.equal(bundle.resourceType, 'Bundle');
    assert.equal(bundle.type, 'collection');
    assert.equal(bundle.identifier.value, delivery.headers['webhook-id']);
    assert.equal(fhirErrors(bundle), null);
    const patient = bundle.entry[0]?.resource;
    assert.equal(patient?.resourceType, 'Patient');
    assert.equal(patient?.id, userId);
    const observations = bundle.entry.filter((entry) => entry.resource.resourceType === 'Observation');
    assert.ok(observations.length > 0, 'the days give observations');

    await receiver.waitFor(
      (list) => list.some((entry) => (JSON.parse(entry.body) as { type?: string }).type === 'auth'),
      'the auth event',
    );
    const auth = receiver.received.find(
      (entry) => (JSON.parse(entry.body) as { type?: string }).type === 'auth',
    )!;
    assert.equal(auth.headers['content-type'], 'application/json');
    assert.equal(auth.headers[FORMAT_HEADER], 'json');
    assert.equal(auth.headers[FALLBACK_HEADER], 'no-fhir-form');
  });
});
