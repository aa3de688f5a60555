// Tampered page cursors are 400 problems naming the cursor on both stores, never 500s (issue 40,
// row 11: a FHIR `_cursor` with a far-future date was a 500 on embedded storage, whose PGlite
// cannot take a year past 9999, and a 200 on PostgreSQL). One test per route family that takes a
// cursor (FHIR searches, the order and result lists, the order webhook log, the webhook delivery
// log), each over a real socket, with dates out of range, huge numbers, and bytes that are not UTF-8;
// and the instants those routes take beside their cursors (`since`, `_since`).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectSandboxUser } from '../helpers/connections.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';

const storage = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded storage';
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const FAR_FUTURE = '+275760-09-13T00:00:00.000Z';
const NOT_UTF8 = Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0xc3]).toString('base64url');

describe(`tampered cursors (${storage}, over a real socket)`, () => {
  let service: TestService;
  let developer: TestDeveloper;
  let base: string;
  let userId: string;

  before(async () => {
    service = await startTestService({ work: false });
    developer = await createDeveloper(service.ctx, { orderApi: true });
    ({ userId } = await connectSandboxUser(service.app, developer));
    base = await service.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => service?.close());

  async function get(path: string) {
    const response = await fetch(`${base}${path}`, { headers: developer.headers });
    const text = await response.text();
    return { status: response.status, type: response.headers.get('content-type') ?? '', text };
  }

  /** Each cursor is a 400 problem naming `name`; the cursors in `accepted` are in range and read. */
  async function expectRefused(
    path: (cursor: string) => string,
    name: string,
    refused: string[],
    accepted: string[],
  ) {
    for (const cursor of refused) {
      const response = await get(path(encodeURIComponent(cursor)));
      assert.equal(response.status, 400, `${cursor}: ${response.status} ${response.text}`);
      assert.match(response.type, /application\/problem\+json/);
      assert.ok(response.text.includes(name), `${cursor}: the problem names ${name}: ${response.text}`);
    }
    for (const cursor of accepted) {
      const response = await get(path(encodeURIComponent(cursor)));
      assert.equal(response.status, 200, `${cursor}: ${response.status} ${response.text}`);
    }
  }

  test('FHIR searches and $everything: _cursor', async () => {
    const refused = [
      encode({ type: 0, after: { at: FAR_FUTURE, key: 'k' }, skip: 0 }),
      encode({ type: 0, after: { at: '-000001-01-01T00:00:00.000Z', key: 'k' }, skip: 0 }),
      encode({ type: 0, after: { at: '2025-01-01T00:00:00.000Z', key: 'a\u0000b' }, skip: 0 }),
      encode({ type: 0, after: { at: '2025-01-01T00:00:00.000Z', key: 'x'.repeat(600) }, skip: 0 }),
      encode({ type: 99, after: null, skip: 0 }),
      encode({ type: 0, after: null, skip: 1e15 }),
      NOT_UTF8,
      'not a cursor!',
    ];
    const accepted = [
      encode({ type: 0, after: { at: '2100-01-01T00:00:00.000Z', key: 'k' }, skip: 0 }),
      encode({ type: 1, after: null, skip: 3 }),
    ];
    await expectRefused(
      (cursor) => `/v2/fhir/Observation?subject=Patient/${userId}&_cursor=${cursor}`,
      '_cursor',
      refused,
      accepted,
    );
    await expectRefused(
      (cursor) => `/v2/fhir/Patient/${userId}/$everything?_cursor=${cursor}`,
      '_cursor',
      refused,
      accepted,
    );
    // The same class in the instant beside it: year 0 parses in JavaScript, not in PGlite.
    await expectRefused(
      (since) => `/v2/fhir/Patient/${userId}/$everything?_since=${since}`,
      '_since',
      ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00'],
      ['0001-01-01T00:00:00Z'],
    );
  });

  test('orders and results: cursor', async () => {
    await expectRefused(
      (cursor) => `/api/v1/orders?cursor=${cursor}`,
      'cursor',
      [
        encode({ t: Date.parse(FAR_FUTURE), i: '1' }),
        encode({ t: 9_000_000_000_000_000, i: '1' }),
        encode({ t: Date.parse('2025-01-01T00:00:00Z'), i: '1'.repeat(25) }),
        NOT_UTF8,
      ],
      [encode({ t: Date.parse('9999-01-01T00:00:00Z'), i: '99999999999999999999' })],
    );
    await expectRefused(
      (since) => `/api/v1/orders?since=${since}`,
      'since',
      ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00'],
      ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z'],
    );
    await expectRefused(
      (cursor) => `/api/v1/results?cursor=${cursor}`,
      'cursor',
      [encode({ i: '1'.repeat(25) }), encode({ i: 7 }), NOT_UTF8],
      [encode({ i: '99999999999999999999' })],
    );
  });

  test('the order webhook log: cursor', async () => {
    await expectRefused(
      (cursor) => `/api/v1/webhook-deliveries?cursor=${cursor}`,
      'cursor',
      ['9999999999999999999', '9223372036854775808', '0', '-1', '1e3'],
      ['9223372036854775807', '1'],
    );
  });

  test('the webhook delivery log: cursor', async () => {
    await expectRefused(
      (cursor) => `/v2/webhook/deliveries?cursor=${cursor}`,
      'cursor',
      [encode({ s: 2 ** 60 }), encode({ s: -1 }), encode({ s: 'x' }), NOT_UTF8, 'A'.repeat(300)],
      [encode({ s: Number.MAX_SAFE_INTEGER }), encode({ s: 1 })],
    );
  });
});
