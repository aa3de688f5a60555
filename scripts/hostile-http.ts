// Hostile input against a running server, over real sockets, as an outsider would send it: for
// every operation of the OpenAPI document the server serves, malformed JSON, wrong types, huge
// numbers, impossible dates, unknown enum values, odd path parameters (NUL, .., very long,
// unicode, bad percent-encoding), oversize bodies and wrong content types, each sent raw (no
// client-side URL normalization). Every answer is checked: no 5xx, every 4xx is
// application/problem+json, no answer slower than the deadline. Prints one line per finding and
// exits 1 when there is any.
//
//   eval "$(npx tributary sandbox env)"      # API, DEV, KEY
//   node scripts/hostile-http.ts [--only /v2/destinations] [--deadline-ms 15000]
import { request } from 'node:http';
import { connect } from 'node:net';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    'deadline-ms': { type: 'string', default: '15000' },
    verbose: { type: 'boolean', default: false },
    /** Instead: each writing operation, its example request sent this many times at once. */
    race: { type: 'string' },
  },
});
const API = process.env.API ?? 'http://127.0.0.1:8080';
const DEV = process.env.DEV ?? '';
const KEY = process.env.KEY ?? '';
/** A connected user (the README's USER_ID) lets fuzzed requests reach past the user lookup. */
const USER_ID = process.env.USER_ID ?? '00000000-0000-4000-8000-000000000000';
const DEADLINE_MS = Number(args['deadline-ms']);
const base = new URL(API);

type Json = Record<string, unknown>;
type Sent = { method: string; path: string; headers?: Record<string, string>; body?: Buffer | string };
type Answer =
  { status: number; contentType: string; body: string; ms: number } | { error: string; ms: number };

const auth: Record<string, string> = {
  'dev-id': DEV,
  'x-api-key': KEY,
  authorization: `Basic ${Buffer.from(`${DEV}:${KEY}`).toString('base64')}`,
};

/**
 * Node's client refuses raw non-ASCII request lines and control characters in headers; this
 * sends such a request byte for byte and reads the answer until the server closes.
 */
function sendRaw(sent: Sent): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const body = sent.body === undefined ? Buffer.alloc(0) : Buffer.from(sent.body);
    const headers = {
      ...auth,
      host: base.host,
      connection: 'close',
      'content-length': String(body.length),
      ...sent.headers,
    };
    const head = `${sent.method} ${sent.path} HTTP/1.1\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}\r\n`;
    const socket = connect(Number(base.port), base.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(DEADLINE_MS, () => socket.destroy(new Error(`no answer within ${DEADLINE_MS} ms`)));
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(head, 'utf8'), body])));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => resolve({ error: error.message, ms: Date.now() - started }));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headText = '', ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(headText)?.[1] ?? 0);
      if (status === 0)
        return resolve({ error: `no status line (${text.length} bytes)`, ms: Date.now() - started });
      const contentType = /\r\ncontent-type: *([^\r]*)/i.exec(headText)?.[1] ?? '';
      resolve({ status, contentType, body: rest.join('\r\n\r\n'), ms: Date.now() - started });
    });
  });
}

function send(sent: Sent): Promise<Answer> {
  // The executor throwing (ERR_UNESCAPED_CHARACTERS, ERR_INVALID_CHAR) rejects the promise.
  return sendOverHttp(sent).catch(() => sendRaw(sent));
}

function sendOverHttp(sent: Sent): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const body = sent.body === undefined ? undefined : Buffer.from(sent.body);
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method: sent.method,
        path: sent.path,
        headers: {
          ...auth,
          ...(body === undefined ? {} : { 'content-length': String(body.length) }),
          ...sent.headers,
        },
        timeout: DEADLINE_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < 16 * 1024 * 1024) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
            ms: Date.now() - started,
          }),
        );
        res.on('error', (error) => resolve({ error: error.message, ms: Date.now() - started }));
      },
    );
    req.on('timeout', () => {
      req.destroy(new Error(`no answer within ${DEADLINE_MS} ms`));
    });
    req.on('error', (error) => resolve({ error: error.message, ms: Date.now() - started }));
    req.end(body);
  });
}

const findings: string[] = [];
let sentCount = 0;

function judge(label: string, sent: Sent, answer: Answer) {
  sentCount++;
  const what = `${label}: ${sent.method} ${sent.path.length > 160 ? `${sent.path.slice(0, 160)}…` : sent.path}`;
  if ('error' in answer) {
    // A connection the server closed on a malformed request line is acceptable only with a 400;
    // a reset or a timeout is a finding.
    findings.push(`${what} -> no answer (${answer.error})`);
    return;
  }
  const shown = answer.body.slice(0, 240).replaceAll('\n', ' ');
  if (answer.status >= 500 && answer.status !== 507) {
    findings.push(`${what} -> ${answer.status} ${shown}`);
  } else if (answer.status >= 400 && !answer.contentType.startsWith('application/problem+json')) {
    // Hosted pages (widget, consent, activation) answer a person with HTML.
    if (!answer.contentType.startsWith('text/html')) {
      findings.push(`${what} -> ${answer.status} as ${answer.contentType || 'no content-type'}: ${shown}`);
    }
  } else if (answer.status >= 400 && sent.method !== 'HEAD') {
    try {
      const problem = JSON.parse(answer.body) as Json;
      if (typeof problem.detail !== 'string' || problem.status !== answer.status) {
        findings.push(`${what} -> ${answer.status} problem without detail/status: ${shown}`);
      }
    } catch {
      findings.push(`${what} -> ${answer.status} problem+json that is not JSON: ${shown}`);
    }
  }
  if (args.verbose) console.log(`${answer.status} ${answer.ms}ms ${what} ${shown.slice(0, 120)}`);
}

async function check(label: string, sent: Sent) {
  judge(label, sent, await send(sent));
}

// ---- values ---------------------------------------------------------------------------------

const LONG = 'a'.repeat(5000);
const PATH_VALUES = [
  '%00',
  '..',
  '%2e%2e',
  '..%2f..%2fetc%2fpasswd',
  LONG,
  encodeURIComponent('ü✓😀'),
  'ü✓', // raw UTF-8 bytes in the request line
  '%ff',
  '%',
  '%E0%A4%A',
  "1'%20OR%201=1",
  '-1',
  '99999999999999999999999',
  '0',
  encodeURIComponent('<script>'),
  '%ed%a0%80', // an encoded lone surrogate
];
const QUERY_VALUES = [
  '',
  'abc',
  '-1',
  '99999999999999999999999',
  '1e400',
  'NaN',
  '2026-13-45',
  '99999-01-01',
  '-271821-04-19',
  '0000-00-00',
  '253402300800',
  '-62135596801',
  '%00',
  '%ff',
  'x'.repeat(10_000),
  encodeURIComponent('ü✓😀'),
  'not_a_known_enum_value',
  'true%00',
];

function wrongTypes(schema: Json | undefined): unknown[] {
  const out: unknown[] = [
    null,
    true,
    'text',
    1e308,
    -1e308,
    1e23, // beyond any int4 and int8
    -1,
    1.5,
    [],
    {},
    'x'.repeat(70_000),
  ];
  if (schema?.enum) out.push('not_a_known_enum_value');
  if (schema?.format === 'date-time' || schema?.format === 'date') {
    out.push('2026-13-45', '99999-01-01T00:00:00Z', '0000-00-00', '2026-02-30T25:61:61Z');
  }
  return out;
}

function resolveRef(doc: Json, schema: unknown): Json | undefined {
  let current = schema as Json | undefined;
  for (let i = 0; i < 10 && current && typeof current.$ref === 'string'; i++) {
    const path = (current.$ref as string).replace(/^#\//, '').split('/');
    current = path.reduce<Json | undefined>((node, key) => node?.[key] as Json | undefined, doc);
  }
  return current;
}

/** The properties of a body schema, looking into the first branch of anyOf/oneOf/allOf. */
function bodyProperties(doc: Json, schema: Json | undefined): Record<string, Json> {
  const resolved = resolveRef(doc, schema);
  if (!resolved) return {};
  if (resolved.properties) return resolved.properties as Record<string, Json>;
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const branches = resolved[key] as Json[] | undefined;
    if (branches?.[0]) return bodyProperties(doc, branches[0]);
  }
  return {};
}

function exampleBody(doc: Json, schema: Json | undefined, media: Json | undefined): Json {
  const fromMedia = media?.example ?? Object.values((media?.examples as Json | undefined) ?? {})[0];
  const value = (fromMedia as Json | undefined)?.value ?? fromMedia;
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Json;
  const properties = bodyProperties(doc, schema);
  const out: Json = {};
  for (const [name, property] of Object.entries(properties)) {
    const p = resolveRef(doc, property) ?? {};
    out[name] =
      (p.examples as unknown[] | undefined)?.[0] ??
      p.default ??
      (p.type === 'string' ? 'x' : p.type === 'integer' ? 1 : null);
  }
  return out;
}

// ---- per operation --------------------------------------------------------------------------

type Param = { name: string; in: string; schema?: Json };

function fillPath(template: string, values: Record<string, string>) {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? 'x');
}

async function walkOperation(doc: Json, method: string, template: string, operation: Json) {
  const params = ((operation.parameters as unknown[] | undefined) ?? [])
    .map((p) => resolveRef(doc, p) as unknown as Param)
    .filter(Boolean);
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const headerParams = params.filter((p) => p.in === 'header');
  const saneValue = (name: string) =>
    name === 'user_id'
      ? USER_ID
      : name === 'reference_id'
        ? 'me'
        : name === 'type'
          ? 'sleep'
          : name === 'provider'
            ? 'SANDBOX'
            : name.endsWith('id')
              ? '00000000-0000-4000-8000-000000000000'
              : 'x';
  const sane = Object.fromEntries(pathParams.map((p) => [p.name, saneValue(p.name)]));
  // Every other parameter sane while one is fuzzed, so the fuzzed one is what is judged.
  const now = Math.floor(Date.now() / 1000);
  const saneQuery: Record<string, string> = {};
  for (const p of queryParams) {
    if (p.name === 'user_id' || p.name === 'reference_id') saneQuery[p.name] = saneValue(p.name);
    if (p.name === 'start_date') saneQuery[p.name] = String(now - 7 * 86400);
    if (p.name === 'end_date') saneQuery[p.name] = String(now);
    if (p.name === 'to_webhook') saneQuery[p.name] = 'false';
  }
  const queryWith = (name: string, raw: string) =>
    [
      ...Object.entries(saneQuery)
        .filter(([key]) => key !== name)
        .map(([key, value]) => `${key}=${value}`),
      raw,
    ].join('&');
  const samplePath = fillPath(template, sane);
  const label = `${method} ${template}`;
  const requestBody = resolveRef(doc, operation.requestBody);
  const content = (requestBody?.content ?? {}) as Record<string, Json>;
  const jsonMedia = content['application/json'];
  const body = jsonMedia ? exampleBody(doc, jsonMedia.schema as Json, jsonMedia) : undefined;
  const jsonHeaders = { 'content-type': 'application/json' };
  const bodyFor = (b: unknown) => (jsonMedia ? { headers: jsonHeaders, body: JSON.stringify(b) } : {});

  if (args.race) {
    if (method === 'GET') return;
    const sent: Sent = {
      method,
      path: samplePath + (Object.keys(saneQuery).length ? `?${queryWith('', '')}` : ''),
      headers: { 'idempotency-key': `race-${template}`, ...(jsonMedia ? jsonHeaders : {}) },
      ...(jsonMedia ? { body: JSON.stringify(body) } : {}),
    };
    const answers = await Promise.all(Array.from({ length: Number(args.race) }, () => send(sent)));
    for (const answer of answers) judge(`${label} race`, sent, answer);
    return;
  }
  for (const p of pathParams) {
    for (const value of PATH_VALUES) {
      await check(`${label} path ${p.name}`, {
        method,
        path: fillPath(template, { ...sane, [p.name]: value }),
        ...bodyFor(body),
      });
    }
  }
  for (const p of queryParams) {
    for (const value of [
      ...QUERY_VALUES,
      ...(((p.schema?.enum as string[]) ?? []).length ? ['NOT_AN_ENUM'] : []),
    ]) {
      await check(`${label} query ${p.name}`, {
        method,
        path: `${samplePath}?${queryWith(p.name, `${p.name}=${value}`)}`,
        ...bodyFor(body),
      });
    }
    await check(`${label} query ${p.name} twice`, {
      method,
      path: `${samplePath}?${queryWith(p.name, `${p.name}=1&${p.name}=2`)}`,
      ...bodyFor(body),
    });
    await check(`${label} query ${p.name}[]`, {
      method,
      path: `${samplePath}?${queryWith(p.name, `${p.name}[a]=1`)}`,
      ...bodyFor(body),
    });
  }
  await check(`${label} query __proto__`, {
    method,
    path: `${samplePath}?__proto__[x]=1&constructor=1`,
    ...bodyFor(body),
  });
  for (const p of headerParams) {
    for (const value of ['x'.repeat(5000), 'ü✓', '-1', '']) {
      await check(`${label} header ${p.name}`, {
        method,
        path: samplePath,
        headers: { [p.name]: value, ...(jsonMedia ? jsonHeaders : {}) },
        ...(jsonMedia ? { body: JSON.stringify(body) } : {}),
      });
    }
  }

  if (jsonMedia) {
    const raw = [
      '{',
      '{"a":',
      '[]',
      'null',
      '"str"',
      '123',
      '{"a":1,}',
      "{'a':1}",
      '['.repeat(100_000),
      '{"a":' + '9'.repeat(5000) + '}',
      '\u0000',
      '\ufeff{}',
      '{"__proto__":{"x":1}}',
    ];
    for (const text of raw)
      await check(`${label} body ${JSON.stringify(text.slice(0, 20))}`, {
        method,
        path: samplePath,
        headers: jsonHeaders,
        body: text,
      });
    for (const [name, property] of Object.entries(bodyProperties(doc, jsonMedia.schema as Json))) {
      for (const value of wrongTypes(resolveRef(doc, property))) {
        await check(`${label} body.${name}=${JSON.stringify(value)?.slice(0, 30)}`, {
          method,
          path: samplePath,
          headers: jsonHeaders,
          body: JSON.stringify({ ...body, [name]: value }),
        });
      }
    }
    await check(`${label} invalid utf-8 body`, {
      method,
      path: samplePath,
      headers: jsonHeaders,
      body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    });
    await check(`${label} oversize body`, {
      method,
      path: samplePath,
      headers: jsonHeaders,
      body: `{"a":"${'x'.repeat(2 * 1024 * 1024)}"}`,
    });
    for (const type of [
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/json;;;',
      'application/jsonx',
      '',
    ]) {
      await check(`${label} content-type ${JSON.stringify(type)}`, {
        method,
        path: samplePath,
        headers: { 'content-type': type },
        body: JSON.stringify(body),
      });
    }
    await check(`${label} no body`, { method, path: samplePath, headers: jsonHeaders });
  }
  const multipart = Object.keys(content).find((type) => type.startsWith('multipart/'));
  if (multipart) {
    for (const [type, text] of [
      ['multipart/form-data', '--x\r\n'],
      ['multipart/form-data; boundary=x', 'garbage'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 truncated',
      ],
      ['multipart/form-data; boundary=x', '--x--\r\n'],
      ['application/json', '{}'],
      ['text/plain', 'hello'],
    ] as const) {
      await check(`${label} multipart ${JSON.stringify(type)} ${JSON.stringify(text.slice(0, 12))}`, {
        method,
        path: samplePath,
        headers: { 'content-type': type },
        body: text,
      });
    }
  }
}

// ---- whole server ---------------------------------------------------------------------------

const docAnswer = await send({ method: 'GET', path: '/openapi.json' });
if ('error' in docAnswer || docAnswer.status !== 200) {
  console.error(`hostile-http: could not read ${API}/openapi.json`);
  process.exit(2);
}
const doc = JSON.parse(docAnswer.body) as Json;
for (const [template, operations] of Object.entries(doc.paths as Record<string, Json>)) {
  if (args.only && !template.startsWith(args.only)) continue;
  for (const [method, operation] of Object.entries(operations)) {
    if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
    await walkOperation(doc, method.toUpperCase(), template, operation as Json);
  }
}
// Server-wide: request lines and headers no route sees.
for (const path of [
  '/%',
  '/v2/%00',
  '/v2/../../etc/passwd',
  `/${'a'.repeat(20_000)}`,
  '/v2/activity?%',
  '/v2/activity?a=%zz',
  '//v2//activity',
  '/v2/activity#x',
  '*',
]) {
  await check('request line', { method: 'GET', path });
}
for (const method of ['OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'])
  await check('method', { method, path: '/v2/activity' });
await check('huge header', {
  method: 'GET',
  path: '/v2/subscriptions',
  headers: { 'x-big': 'x'.repeat(20_000) },
});
await check('header ctl', {
  method: 'GET',
  path: '/v2/subscriptions',
  headers: { 'x-request-id': 'a\u0001b' },
});

console.log(`hostile-http: ${sentCount} requests, ${findings.length} findings`);
for (const finding of findings) console.log(finding);
process.exit(findings.length > 0 ? 1 : 0);
