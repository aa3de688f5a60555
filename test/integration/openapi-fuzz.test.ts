// Property-based tests over the whole OpenAPI document: for every operation the app publishes
// at /openapi.json, fast-check generates requests from the operation's own parameter and body
// schemas (real ids and dates mixed with hostile values: NUL and control characters, unpaired
// surrogates, huge and non-finite numbers, impossible dates, deep nesting, long strings, wrong
// types, wrong content types, missing or foreign credentials) and checks every answer:
// - never a 5xx;
// - every error is application/problem+json with type, title and status (hosted pages may
//   answer a person with an HTML page instead);
// - every status is one the operation documents (so the document's error lists stay honest);
// - every 2xx JSON body validates against the operation's documented response schema.
// The seed is fixed and the budget bounded, so a run is repeatable and takes well under a minute.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { dataTypeNames } from '../../src/model/index.ts';
import { createDeveloper, startTestService } from '../helpers/app.ts';
import { authenticateUser, connectSandboxUser } from '../helpers/connections.ts';
import { createOrder } from '../helpers/orders.ts';

// Fixed for CI; FUZZ_SEED and FUZZ_RUNS explore further by hand (a failure prints its seed and path).
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 70);

type Json = Record<string, unknown>;
type Schema = Json;
type Param = {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
  seeds: unknown[];
};
type Operation = {
  method: string;
  path: string;
  params: Param[];
  body: { schema: Schema; example: unknown; form?: boolean } | null;
  authenticated: boolean;
  basic: boolean;
  hostedPage: boolean;
  /** An OAuth2 token endpoint answers errors as RFC 6749 JSON (`{"error": …}`), as clients expect. */
  oauthErrors?: boolean;
  /** Null for the hosted pages the document leaves out (their statuses are not documented). */
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }> | null;
};

// A service with something to find: a connected user, a pending one, an order, a webhook event.
const service = await startTestService({ work: false, env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
after(async () => {
  await service.close();
});
const developer = await createDeveloper(service.ctx, { orderApi: true });
const suspended = await createDeveloper(service.ctx, { orderApi: true, name: 'Suspended' });
await service.ctx.developers.setStatus(suspended.devId, 'suspended');
// A small hourly budget keeps generated data reads (and the provider syncs they cause) bounded.
await service.ctx.developers.setHourlyDaysLimit(developer.devId, 400);
const { userId } = await connectSandboxUser(service.app, developer, { referenceId: 'fuzz' });
const { userId: pendingUserId } = await authenticateUser(service.app, developer, 'SANDBOX');
const order = await createOrder(service, developer);
const eventId = (
  await service.ctx.db
    .selectFrom('events')
    .select('id')
    .where('developer_id', '=', developer.devId)
    .executeTakeFirstOrThrow()
).id;
const widgetSessionId = (
  (
    await service.app.inject({
      method: 'POST',
      url: '/v2/auth/generateWidgetSession',
      headers: developer.headers,
      payload: {},
    })
  ).json() as { session_id: string }
).session_id;
const consentQuery = Object.fromEntries(
  (await authenticateUser(service.app, developer, 'SANDBOX')).authUrl.searchParams,
);
const document = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Schema> };
};

const today = new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** Realistic values by parameter name, so generated requests also reach past the lookups. */
const SEEDS: Record<string, unknown[]> = {
  user_id: [userId, userId, pendingUserId, randomUUID()],
  provider: ['SANDBOX', 'sandbox', 'OURA'],
  resource: ['SANDBOX', 'OURA'],
  type: [...dataTypeNames, 'sleep', 'healthcheck'],
  event_id: [eventId],
  orderID: [order.order_id],
  orderItemID: [order.order_items[0]!.order_item_id],
  productTypeId: ['1', '2', '99'],
  productId: ['1', '10', '101'],
  start_date: [daysAgo(3), daysAgo(30), String(Math.floor(Date.now() / 1000) - 86_400)],
  end_date: [today, daysAgo(1), String(Math.floor(Date.now() / 1000))],
  since: ['2026-01-01T00:00:00Z', '2024-02-29T12:00:00+01:00'],
  to_webhook: ['false', 'true'],
  with_samples: ['false', 'true'],
  show_all: [true, false],
  dev_id: [developer.devId],
  'dev-id': [developer.devId],
  status: ['pending', 'delivered', 'order.processing'],
  reference_id: ['fuzz', 'other'],
  'idempotency-key': [randomUUID()],
  id: [widgetSessionId],
  file: ['sandbox.svg', 'oura.svg', 'x.svg'],
  slug: ['bad-request', 'not-found', 'nope'],
  lang: ['en', 'ja', 'xx'],
  kit_id: [order.order_items[0]!.supplier_item_id],
  supplier_kit_id: [order.order_items[0]!.supplier_item_id],
  decision: ['approve', 'deny'],
  account: ['fuzz-account'],
  grant_type: ['authorization_code'],
  ...Object.fromEntries(Object.entries(consentQuery).map(([name, value]) => [name, [value]])),
};

/** Strings a hostile client sends. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0001\u0002',
  '\u001b[31mred',
  '\u007f',
  'line\nbreak',
  '\ud800',
  'x\udfffy',
  '😀'.repeat(40),
  'x'.repeat(5000),
  '%00',
  '%',
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '2026-02-30',
  '0000-01-01',
  '9999-12-31',
  '2026-02-30T00:00:00Z',
  '1e30',
  '-1',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  'null',
  'true',
  '[]',
  '{}',
  '__proto__',
];
const HOSTILE_NUMBERS = [0, -1, 1e30, -1e30, 1e308, 2 ** 31, 2 ** 53 + 2, 0.5, -0];
const WRONG_TYPES: unknown[] = [null, true, 0, 'text', [], {}, [[[['deep']]]], { a: { b: { c: {} } } }];

const resolve = (schema: Schema): Schema => {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return resolve(document.components.schemas[ref.replace('#/components/schemas/', '')] ?? {});
};

/** Values for one schema: mostly valid (seeds, examples, schema-shaped), sometimes hostile. */
function valueOf(input: Schema, name: string, depth: number): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  const seeds = [...(SEEDS[name] ?? []), ...(schema.example === undefined ? [] : [schema.example])];
  const wrong = fc.constantFrom(...HOSTILE_STRINGS, ...HOSTILE_NUMBERS, ...WRONG_TYPES);
  const options: { arbitrary: fc.Arbitrary<unknown>; weight: number }[] = [{ arbitrary: wrong, weight: 1 }];
  if (seeds.length > 0) options.push({ arbitrary: fc.constantFrom(...seeds), weight: 6 });
  options.push({ arbitrary: shaped(schema, name, depth), weight: 4 });
  return fc.oneof(...options);
}

/** Values shaped like the schema (types, enums, bounds, properties). */
function shaped(schema: Schema, name: string, depth: number): fc.Arbitrary<unknown> {
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (choices) return fc.oneof(...choices.map((choice) => shaped(resolve(choice), name, depth)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.const !== undefined) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1e6;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 1e6;
      const inRange =
        type === 'integer'
          ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) })
          : fc.double({ min, max, noNaN: true });
      return fc.oneof(
        { arbitrary: inRange, weight: 4 },
        { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 1 },
      );
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (depth > 4) return fc.constant([]);
      const items = (schema.items as Schema | undefined) ?? {};
      const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, 3);
      return fc.array(valueOf(items, name, depth + 1), { maxLength });
    }
    case 'object': {
      if (depth > 4) return fc.constant({});
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const required = (schema.required as string[] | undefined) ?? [];
      const shape = Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, valueOf(value, key, depth + 1)]),
      );
      return fc.record(shape, { requiredKeys: required.filter((key) => key in shape) });
    }
    default:
      return fc.oneof(
        { arbitrary: fc.string({ maxLength: 24 }), weight: 3 },
        { arbitrary: fc.string({ unit: 'binary', maxLength: 24 }), weight: 2 },
        { arbitrary: fc.constantFrom(...HOSTILE_STRINGS), weight: 2 },
      );
  }
}

/** Paths to every leaf of a JSON value. */
function leavesOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, index) => leavesOf(item, [...path, index]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => leavesOf(item, [...path, key]));
  return [path];
}

/** A copy of `value` with the leaf at `path` replaced. */
function replaced(value: unknown, path: readonly (string | number)[], leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Json) }) as Record<
    string | number,
    unknown
  >;
  copy[head!] = replaced(copy[head!], rest, leaf);
  return copy;
}

/** A valid example with one field made hostile: reaches the checks behind the schema. */
function mutatedExample(example: unknown): fc.Arbitrary<unknown> {
  const leaves = leavesOf(example);
  if (leaves.length === 0) return fc.constant(example);
  const hostile = fc.constantFrom(...HOSTILE_STRINGS, ...HOSTILE_NUMBERS, ...WRONG_TYPES);
  return fc
    .record({ at: fc.constantFrom(...leaves), value: hostile })
    .map(({ at, value }) => replaced(example, at, value));
}

/** A JSON body that no schema describes: unparsable, enormous in depth, or the wrong shape. */
const RAW_BODIES = [
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '1e400',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"data":[${'{"a":'.repeat(200)}1${'}'.repeat(200)}]}`,
  '{"data":["\\u0000"]}',
  '{"data":["\\ud800"]}',
];

function operationsOf(): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      const parameters = (raw.parameters as Json[] | undefined) ?? [];
      const content = (raw.requestBody as { content?: Record<string, Json> } | undefined)?.content;
      const json = content?.['application/json'];
      const security = raw.security as Json[] | undefined;
      operations.push({
        method: method.toUpperCase(),
        path,
        params: parameters.map((parameter) => ({
          name: String(parameter.name),
          in: parameter.in as Param['in'],
          required: parameter.required === true,
          schema: (parameter.schema as Schema | undefined) ?? {},
          seeds: [
            ...(parameter.example === undefined ? [] : [parameter.example]),
            ...Object.values(
              (parameter.examples as Record<string, { value: unknown }> | undefined) ?? {},
            ).map((example) => example.value),
          ],
        })),
        body: json ? { schema: (json.schema as Schema | undefined) ?? {}, example: json.example } : null,
        authenticated: security !== undefined,
        basic: security?.some((entry) => 'basic' in entry) ?? false,
        hostedPage: ((raw.tags as string[] | undefined) ?? []).includes('hosted pages'),
        responses: raw.responses as Operation['responses'],
      });
    }
  }
  operations.push(...HOSTED_PAGES);
  // Disconnecting the seeded user last keeps it around for every other operation.
  return operations.sort(
    (a, b) => Number(a.path.includes('deauthenticate')) - Number(b.path.includes('deauthenticate')),
  );
}

/** Hosted pages the document leaves out (hide: true): fuzzed too, as a browser would reach them. */
const text = { type: 'string' };
const fields = (...names: string[]) => ({
  type: 'object',
  properties: Object.fromEntries(names.map((name) => [name, text])),
});
const hosted = (method: string, path: string, query: string[], form: string[] | null = null): Operation => ({
  method,
  path,
  params: [
    ...[...path.matchAll(/\{([^}]+)\}/g)].map((match) => ({
      name: match[1]!,
      in: 'path' as const,
      required: true,
      schema: text,
      seeds: [],
    })),
    ...query.map((name) => ({ name, in: 'query' as const, required: false, schema: text, seeds: [] })),
  ],
  body: form ? { schema: fields(...form), example: undefined, form: true } : null,
  authenticated: false,
  basic: false,
  hostedPage: true,
  responses: null,
});
const CONSENT_FIELDS = Object.keys(consentQuery);
const HOSTED_PAGES: Operation[] = [
  hosted('GET', '/widget/session/{id}', []),
  hosted('POST', '/widget/session/{id}/connect', [], ['provider']),
  hosted('GET', '/providers/sandbox/consent', CONSENT_FIELDS),
  hosted('POST', '/providers/sandbox/consent', [], [...CONSENT_FIELDS, 'decision', 'account']),
  {
    ...hosted(
      'POST',
      '/providers/sandbox/token',
      [],
      ['grant_type', 'code', 'redirect_uri', 'code_verifier'],
    ),
    oauthErrors: true,
  },
  hosted('GET', '/activate', ['kit_id']),
  hosted('POST', '/activate', [], ['supplier_kit_id', 'first_name', 'last_name', 'email', 'date_of_birth']),
  hosted('GET', '/auth/success', ['lang']),
  hosted('GET', '/v2/static/icons/{file}', []),
  hosted('GET', '/problems/{slug}', []),
];

type Credentials = 'valid' | 'none' | 'wrong-key' | 'suspended' | 'basic' | 'odd-dev-id';

function requestsFor(operation: Operation): fc.Arbitrary<Request> {
  const param = (p: Param) => {
    const value = fc.oneof(
      ...(p.seeds.length > 0 ? [{ arbitrary: fc.constantFrom(...p.seeds), weight: 3 }] : []),
      { arbitrary: valueOf(p.schema, p.name, 0), weight: 6 },
    );
    return p.required ? value : fc.option(value, { freq: 3, nil: undefined });
  };
  const values = (where: Param['in']) =>
    fc.record(
      Object.fromEntries(operation.params.filter((p) => p.in === where).map((p) => [p.name, param(p)])),
    );
  const body = operation.body
    ? fc.oneof(
        { arbitrary: valueOf(operation.body.schema, 'body', 0).map((value) => ({ json: value })), weight: 6 },
        ...(operation.body.example === undefined
          ? []
          : [
              { arbitrary: fc.constant({ json: operation.body.example as unknown }), weight: 2 },
              {
                arbitrary: mutatedExample(operation.body.example).map((json) => ({ json })),
                weight: 4,
              },
            ]),
        { arbitrary: fc.constantFrom(...RAW_BODIES).map((raw) => ({ raw })), weight: 1 },
      )
    : fc.constant(undefined);
  const credentials: fc.Arbitrary<Credentials> = fc.oneof(
    { arbitrary: fc.constant('valid' as const), weight: 8 },
    { arbitrary: fc.constantFrom<Credentials>('none', 'wrong-key', 'suspended', 'odd-dev-id'), weight: 2 },
    ...(operation.basic ? [{ arbitrary: fc.constant('basic' as const), weight: 2 }] : []),
  );
  const contentType = fc.oneof(
    {
      arbitrary: fc.constant(operation.body?.form ? 'application/x-www-form-urlencoded' : 'application/json'),
      weight: 12,
    },
    {
      arbitrary: fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded'),
      weight: 1,
    },
  );
  return fc.record({
    path: values('path'),
    query: values('query'),
    headers: values('header'),
    body,
    credentials,
    contentType,
  });
}

type Request = {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: { json: unknown } | { raw: string } | undefined;
  credentials: Credentials;
  contentType: string;
};

/** Percent-encodes text; a lone surrogate (which encodeURIComponent refuses) goes out as bad UTF-8. */
const encode = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  try {
    return encodeURIComponent(text);
  } catch {
    return `%ED%A0%80${encodeURIComponent(text.replace(/[\ud800-\udfff]/g, ''))}`;
  }
};

function urlOf(operation: Operation, request: Request): string {
  // An empty segment would route to another operation (/orders/ is /orders): send a dash instead.
  const path = operation.path.replace(
    /\{([^}]+)\}/g,
    (_match, name: string) => encode(request.path[name] ?? '') || '-',
  );
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(request.query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) pairs.push(`${encode(name)}=${encode(item)}`);
  }
  return pairs.length > 0 ? `${path}?${pairs.join('&')}` : path;
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  switch (request.credentials) {
    case 'valid':
      Object.assign(headers, developer.headers);
      break;
    case 'wrong-key':
      Object.assign(headers, { 'dev-id': developer.devId, 'x-api-key': 'sk_test_wrong' });
      break;
    case 'suspended':
      Object.assign(headers, suspended.headers);
      break;
    case 'basic':
      headers.authorization = `Basic ${Buffer.from(`${developer.devId}:${developer.apiKey}`).toString('base64')}`;
      break;
    case 'odd-dev-id':
      Object.assign(headers, {
        'dev-id': `${developer.devId}\u00e9${'x'.repeat(300)}`,
        'x-api-key': developer.apiKey,
      });
      break;
    case 'none':
      break;
  }
  return headers;
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'doc', components: document.components });
const validators = new Map<Schema, ReturnType<typeof ajv.compile>>();

/** A response schema with its component references pointed into the registered document. */
const anchored = (schema: unknown): unknown =>
  Array.isArray(schema)
    ? schema.map(anchored)
    : schema !== null && typeof schema === 'object'
      ? Object.fromEntries(
          Object.entries(schema).map(([key, value]) => [
            key,
            key === '$ref' && typeof value === 'string' ? `doc${value}` : anchored(value),
          ]),
        )
      : schema;

function validatorFor(schema: Schema) {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(anchored(schema) as Schema);
    validators.set(schema, validate);
  }
  return validate;
}

function payloadOf(body: { json?: unknown; raw?: string }, contentType: string): string {
  if (body.raw !== undefined) return body.raw;
  if (contentType !== 'application/x-www-form-urlencoded' || typeof body.json !== 'object' || !body.json)
    return JSON.stringify(body.json ?? null);
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body.json))
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  return form.toString();
}

const tally = {
  requests: 0,
  operations: new Set<string>(),
  statuses: new Map<number, number>(),
};

async function send(operation: Operation, request: Request) {
  const url = urlOf(operation, request);
  const headers = headersOf(request);
  const body = request.body as { json?: unknown; raw?: string } | undefined;
  if (body) headers['content-type'] = request.contentType;
  let response;
  try {
    response = await service.app.inject({
      method: operation.method as 'GET',
      url,
      headers,
      ...(body === undefined ? {} : { payload: payloadOf(body, request.contentType) }),
    });
  } catch (error) {
    // The HTTP client refused to send it (a header value Node will not put on the wire).
    if ((error as { code?: string }).code === 'ERR_INVALID_CHAR') return;
    throw error;
  }
  tally.requests++;
  tally.operations.add(`${operation.method} ${operation.path}`);
  tally.statuses.set(response.statusCode, (tally.statuses.get(response.statusCode) ?? 0) + 1);

  const label = `${operation.method} ${url.slice(0, 300)} (${request.credentials}) -> ${response.statusCode}: ${response.body.slice(0, 400)}`;
  assert.ok(response.statusCode < 500, `no 5xx: ${label}`);
  const contentType = String(response.headers['content-type'] ?? '');
  if (response.statusCode >= 400) {
    // Hosted pages answer the person in front of them with a page; everything else is a problem.
    if (operation.oauthErrors && !contentType.startsWith('application/problem+json')) {
      assert.equal(typeof (JSON.parse(response.body) as { error?: unknown }).error, 'string', label);
    } else if (!(operation.hostedPage && contentType.startsWith('text/html'))) {
      assert.match(contentType, /^application\/problem\+json/, `problem+json: ${label}`);
      const problem = JSON.parse(response.body) as { type?: unknown; title?: unknown; status?: unknown };
      assert.equal(typeof problem.type, 'string', `type: ${label}`);
      assert.equal(typeof problem.title, 'string', `title: ${label}`);
      assert.equal(problem.status, response.statusCode, `status: ${label}`);
    }
  }
  if (!operation.responses) return;
  const documented = operation.responses[String(response.statusCode)];
  const routing = response.statusCode === 404 || response.statusCode === 405;
  assert.ok(documented || routing || response.statusCode < 400, `documented status: ${label}`);
  if (response.statusCode >= 200 && response.statusCode < 300 && contentType.startsWith('application/json')) {
    const schema = documented?.content?.['application/json']?.schema;
    if (schema) {
      const validate = validatorFor(schema);
      assert.ok(
        validate(JSON.parse(response.body)),
        `response schema: ${label}\n${JSON.stringify(validate.errors?.slice(0, 3))}`,
      );
    }
  }
}

describe('OpenAPI property-based tests: every operation, generated and hostile requests', () => {
  const operations = operationsOf();

  test('the document has operations to fuzz', () => {
    assert.ok(operations.length >= 50, `${operations.length} operations`);
  });

  for (const operation of operations) {
    test(`${operation.method} ${operation.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(requestsFor(operation), (request) => send(operation, request)),
        { seed: SEED, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
    });
  }

  test('summary', () => {
    const statuses = [...tally.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
    const serverErrors = [...tally.statuses.entries()]
      .filter(([status]) => status >= 500)
      .reduce((sum, [, count]) => sum + count, 0);
    console.log(
      `openapi fuzz (seed ${SEED}): ${tally.requests} requests over ${tally.operations.size} of ` +
        `${operations.length} operations; ${serverErrors} 5xx; statuses ${statuses}`,
    );
    assert.equal(serverErrors, 0, 'no 5xx');
    assert.equal(tally.operations.size, operations.length, 'every operation was exercised');
    assert.ok(tally.requests >= RUNS_PER_OPERATION * operations.length * 0.9);
  });
});
