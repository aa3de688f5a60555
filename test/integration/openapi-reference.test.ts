import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { DATA_EVENT_NAMES } from '../../src/features/data/events.ts';
import { KIND_NAMES, KIND_SETTINGS } from '../../src/features/delivery/destination-kinds.ts';
import { ORDER_WEBHOOK_EVENT_TYPES } from '../../src/features/orders/domain/events.ts';
import {
  type Document,
  documentValidators,
  exampleOf,
  operationsOf,
  webhookPayloadPath,
} from '../helpers/openapi-document.ts';

const run = promisify(execFile);

/** Every event type some `events.ts` under src/features builds (`type: '…'` / `event_type: '…'`). */
function eventTypesInSource(): Set<string> {
  const types = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'events.ts') {
        const text = readFileSync(path, 'utf8');
        for (const match of text.matchAll(/\b(?:event_)?type: '([a-z_.]+)'/g)) types.add(match[1]!);
        for (const match of text.matchAll(/EVENT_TYPE = '([a-z_.]+)'/g)) types.add(match[1]!);
        // Tables of events that share one shape (the user notices: `deauth: { status: … }`).
        for (const match of text.matchAll(/^\s+([a-z_]+): \{ status: '/gm)) types.add(match[1]!);
      }
    }
  };
  walk(join(import.meta.dirname, '../../src/features'));
  // Names held in constant lists rather than written as literals.
  for (const name of Object.values(DATA_EVENT_NAMES)) types.add(name);
  for (const name of ORDER_WEBHOOK_EVENT_TYPES) types.add(name);
  return types;
}

/**
 * The API reference: an example on every request body and success response (each valid against
 * its schema), curl and TypeScript samples on every operation (and they work as printed), and a
 * `webhooks` section naming every event the service sends.
 */
describe('the API reference document', () => {
  let service: TestService;
  let document: Document;
  let developer: TestDeveloper;
  before(async () => {
    service = await startTestService({ work: false });
    developer = await createDeveloper(service.ctx);
    document = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  after(async () => service?.close());

  test('every operation has an example request body and success response, each valid against its schema', () => {
    const validator = documentValidators(document);
    const missing: string[] = [];
    const invalid: string[] = [];
    let checked = 0;
    for (const { method, path, operation } of operationsOf(document)) {
      const name = `${method.toUpperCase()} ${path}`;
      const media = [
        ...Object.entries(operation.requestBody?.content ?? {}).map(([type, each]) => ({
          where: ['paths', path, method, 'requestBody', 'content', type],
          label: `${name} request ${type}`,
          each,
        })),
        ...Object.entries(operation.responses)
          .filter(([status]) => status.startsWith('2'))
          .flatMap(([status, response]) =>
            Object.entries(response.content ?? {}).map(([type, each]) => ({
              where: ['paths', path, method, 'responses', status, 'content', type],
              label: `${name} ${status} ${type}`,
              each,
            })),
          ),
      ];
      for (const { where, label, each } of media) {
        const example = exampleOf(each);
        if (!example) {
          missing.push(label);
          continue;
        }
        checked++;
        const validate = validator(...where, 'schema');
        if (!validate(example.value))
          invalid.push(`${label}: ${JSON.stringify(validate.errors).slice(0, 400)}`);
      }
    }
    assert.deepEqual(missing, [], 'without an example');
    assert.deepEqual(invalid, [], 'examples that do not fit their schema');
    assert.ok(checked >= 70, `only ${checked} examples checked`);
  });

  test("the create-destination body is documented as one variant per kind, each with that kind's settings schema", () => {
    const media = document.paths['/v2/destinations']?.post?.requestBody?.content['application/json'];
    const variants = ((media?.schema as { anyOf?: unknown[]; oneOf?: unknown[] }).anyOf ??
      (media?.schema as { oneOf?: unknown[] }).oneOf ??
      []) as {
      properties: {
        kind: { const?: string; enum?: string[] };
        settings: { title?: string; properties?: object };
      };
    }[];
    const kinds = variants.map(
      (variant) => variant.properties.kind.const ?? variant.properties.kind.enum?.[0],
    );
    assert.deepEqual(kinds, [...KIND_NAMES]);
    for (const variant of variants) {
      const kind = variant.properties.kind.const ?? variant.properties.kind.enum?.[0];
      const own = KIND_SETTINGS.get(kind!) as { title: string; properties: object };
      assert.equal(variant.properties.settings.title, own.title, kind);
      assert.deepEqual(
        Object.keys(variant.properties.settings.properties ?? {}),
        Object.keys(own.properties),
        kind,
      );
    }
  });

  test('every documented error response has a problem example that fits its schema and its status', () => {
    const validator = documentValidators(document);
    const missing: string[] = [];
    const invalid: string[] = [];
    let checked = 0;
    for (const { method, path, operation } of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^[45]\d\d$/.test(status)) continue;
        for (const [type, media] of Object.entries(response.content ?? {})) {
          const label = `${method.toUpperCase()} ${path} ${status} ${type}`;
          const example = exampleOf(media);
          if (!example) {
            missing.push(label);
            continue;
          }
          checked++;
          const validate = validator('paths', path, method, 'responses', status, 'content', type, 'schema');
          if (!validate(example.value))
            invalid.push(`${label}: ${JSON.stringify(validate.errors).slice(0, 300)}`);
          if (type !== 'application/problem+json') continue;
          const body = example.value as { status?: unknown; type?: unknown; instance?: unknown };
          if (body.status !== Number(status)) invalid.push(`${label}: example status ${String(body.status)}`);
          if (typeof body.type !== 'string' || !body.type.startsWith('http://127.0.0.1:8080/problems/'))
            invalid.push(`${label}: example type ${String(body.type)}`);
          if (typeof body.instance !== 'string' || !body.instance.startsWith(path.split('{')[0]!))
            invalid.push(`${label}: example instance ${String(body.instance)}`);
        }
      }
    }
    assert.deepEqual(missing, [], 'error responses without an example');
    assert.deepEqual(invalid, [], 'error examples that do not fit');
    assert.ok(checked >= 300, `only ${checked} error examples checked`);
  });

  test('an error example is the body the service answers with: a real 401 and 404 match theirs in every member but detail', async () => {
    const operation = document.paths['/v2/userInfo']?.get;
    assert.ok(operation, 'GET /v2/userInfo is documented');
    const unknownUser = '8d7a1c52-5b7e-4a8e-9f0e-2f3c1d9b6a41';
    for (const [status, query, headers] of [
      ['401', '', {}],
      ['404', `?user_id=${unknownUser}`, { 'dev-id': developer.devId, 'x-api-key': developer.apiKey }],
    ] as const) {
      const example = exampleOf(operation.responses[status]!.content!['application/problem+json']!)!
        .value as Record<string, unknown>;
      const url = `${String(example.instance)}${query}`;
      const answer = await service.app.inject({ method: 'GET', url, headers });
      assert.equal(answer.statusCode, Number(status), answer.body);
      const real = answer.json() as Record<string, unknown>;
      assert.deepEqual(Object.keys(real).sort(), Object.keys(example).sort());
      for (const member of ['type', 'title', 'status', 'instance'])
        assert.equal(real[member], example[member], `${status} ${member}`);
    }
  });

  test('every operation has curl and TypeScript samples for its own method and path', () => {
    const operations = operationsOf(document);
    assert.ok(operations.length >= 70, `${operations.length} operations`);
    for (const { method, path, operation } of operations) {
      const samples = operation['x-codeSamples'] ?? [];
      const curl = samples.find((sample) => sample.lang === 'Shell');
      const typescript = samples.find((sample) => sample.lang === 'TypeScript');
      const name = `${method.toUpperCase()} ${path}`;
      assert.ok(curl && typescript, `${name}: ${JSON.stringify(samples)}`);
      const prefix = path.split('{')[0]!;
      assert.match(
        curl.source,
        new RegExp(`^curl -sS -X ${method.toUpperCase()} 'http://127\\.0\\.0\\.1:8080`),
        name,
      );
      assert.ok(curl.source.includes(prefix), `${name}: ${curl.source}`);
      assert.ok(typescript.source.includes(`method: '${method.toUpperCase()}'`), name);
      // Swagger UI shows the description, not x-codeSamples: both samples are in it too.
      assert.ok(operation.description?.includes(curl.source), `${name}: curl sample in the description`);
      assert.ok(
        operation.description?.includes(typescript.source),
        `${name}: TypeScript sample in the description`,
      );
      assert.ok(typescript.source.includes(prefix), `${name}: ${typescript.source}`);
      if (operation.requestBody?.content['application/json']) {
        assert.match(curl.source, / -d '/, `${name} sends its body`);
        assert.match(typescript.source, /body: JSON\.stringify\(/, `${name} sends its body`);
      }
      if (operation.requestBody?.content['multipart/form-data']) {
        assert.match(curl.source, / -F 'file=@/, `${name} sends its file`);
        assert.match(typescript.source, /body: form,/, `${name} sends its file`);
      }
    }
  });

  test('the samples work as printed, against a real socket', async () => {
    const address =
      (await service.app.listen({ host: '127.0.0.1', port: 0 })) && service.app.server.address();
    const origin = `http://127.0.0.1:${(address as AddressInfo).port}`;
    const samplesOf = (path: string, method: string) =>
      (document.paths[path]![method]!['x-codeSamples'] ?? []).map((sample) => ({
        ...sample,
        source: sample.source.replaceAll('http://127.0.0.1:8080', origin),
      }));
    const shell = (path: string, method: string) =>
      samplesOf(path, method).find((sample) => sample.lang === 'Shell')!.source;
    const typescriptOf = (path: string, method: string) =>
      samplesOf(path, method).find((sample) => sample.lang === 'TypeScript')!.source;
    const env = { ...process.env, DEV: developer.devId, KEY: developer.apiKey };
    const scratch = mkdtempSync(join(tmpdir(), 'apidocs-samples-'));
    try {
      // A body-taking operation: the curl sample sets the webhook URL its example body gives.
      const example = exampleOf(
        document.paths['/v2/webhook']!.put!.requestBody!.content['application/json']!,
      );
      const url = (example?.value as { url?: unknown } | undefined)?.url;
      assert.equal(typeof url, 'string', 'the example body gives a url');
      const curl = await run('bash', ['-c', shell('/v2/webhook', 'put')], { env });
      assert.equal(JSON.parse(curl.stdout).url, url);
      // An upload: the multipart curl sample sends the file it names (here, a PDF by its content).
      writeFileSync(join(scratch, 'report.pdf'), '%PDF-1.7\n%sample\n');
      const uploaded = await run('bash', ['-c', shell('/v2/lab-reports', 'post')], { env, cwd: scratch });
      assert.equal(JSON.parse(uploaded.stdout).current_status, 'processing', uploaded.stdout);
      // The TypeScript sample of a read with a query, run as a module by Node.
      const file = join(scratch, 'sample.ts');
      const source = samplesOf('/v2/integrations/detailed', 'get').find(
        (sample) => sample.lang === 'TypeScript',
      )!.source;
      writeFileSync(file, `${source}\nconsole.log(JSON.stringify(result));\n`);
      const typescript = await run(process.execPath, [file], { env });
      assert.ok(Array.isArray(JSON.parse(typescript.stdout).providers), typescript.stdout.slice(0, 300));
      // The TypeScript upload sample (FormData from the file it names).
      const uploadScript = join(scratch, 'upload.ts');
      writeFileSync(
        uploadScript,
        `${typescriptOf('/v2/lab-reports', 'post')}\nconsole.log(JSON.stringify(result));\n`,
      );
      const viaFetch = await run(process.execPath, [uploadScript], { env, cwd: scratch });
      assert.equal(JSON.parse(viaFetch.stdout).current_status, 'processing', viaFetch.stdout);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test('the webhooks section names every event type the service builds, each with an example that fits', () => {
    const webhooks = document.webhooks ?? {};
    const built = eventTypesInSource();
    for (const expected of [
      'planned_workout',
      'athlete',
      'large_request_sending',
      'user_reauth',
      'deauth',
      'merged',
      'healthcheck',
      'lab_report.failed',
    ])
      assert.ok(built.has(expected), `the source scan finds ${expected}`);
    // plannedWorkout is the data type's name; its event is planned_workout.
    built.delete('plannedWorkout');
    assert.deepEqual(
      [...built].filter((type) => !(type in webhooks)),
      [],
      'event types without an entry in webhooks',
    );
    const validator = documentValidators(document);
    for (const [type, entry] of Object.entries(webhooks)) {
      const media = entry.post.requestBody!.content['application/json']!;
      const example = exampleOf(media);
      assert.ok(example, `${type} has an example`);
      const validate = validator(...webhookPayloadPath(type));
      assert.ok(validate(example.value), `${type}: ${JSON.stringify(validate.errors)}`);
    }
  });
});
