import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { type DataTypeName, dataTypeNames, dataTypes } from '../../src/model/index.ts';
import { undeclaredKeys } from '../../src/model/schema-walk.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { authenticateUser, connectSandboxUser } from '../helpers/connections.ts';
import { dataRowCounts } from '../helpers/users.ts';
import { filterOf, parseReadParams } from '../../src/features/data/params.ts';
import { pageRecords } from '../../src/features/data/repo.ts';

type Envelope = {
  user: { user_id: string; provider: string };
  data: Record<string, unknown>[];
  type: string;
};

describe('data reads', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let userId: string;

  before(async () => {
    service = await startTestService({ env: { SANDBOX_ARRIVAL_MINUTES: 'off' } });
    developer = await createDeveloper(service.ctx);
    ({ userId } = await connectSandboxUser(service.app, developer));
  });
  after(async () => {
    await service?.close();
  });

  const get = (url: string, who: TestDeveloper = developer) =>
    service.app.inject({ method: 'GET', url, headers: who.headers });
  const readJson = async (url: string) => {
    const response = await get(url);
    assert.equal(response.statusCode, 200, response.body);
    return JSON.parse(response.body) as Envelope;
  };

  describe('parameter errors: 400 naming the parameter', () => {
    const cases: [string, string][] = [
      ['/v2/activity?start_date=2024-01-01', 'missing user_id: required parameter'],
      ['/v2/activity?user_id=nope&start_date=2024-01-01', 'invalid user_id: expected a UUID'],
      ['/v2/activity?user_id={u}', 'missing start_date: required parameter'],
      [
        '/v2/activity?user_id={u}&start_date=2024-1-1',
        'invalid start_date: expected YYYY-MM-DD or 10-digit unix seconds',
      ],
      [
        '/v2/activity?user_id={u}&start_date=2024-02-30',
        'invalid start_date: expected YYYY-MM-DD or 10-digit unix seconds',
      ],
      [
        '/v2/activity?user_id={u}&start_date=170406720',
        'invalid start_date: expected YYYY-MM-DD or 10-digit unix seconds',
      ],
      [
        '/v2/activity?user_id={u}&start_date=17040672000',
        'invalid start_date: expected YYYY-MM-DD or 10-digit unix seconds',
      ],
      [
        '/v2/activity?user_id={u}&start_date=2024-01-01T00:00:00Z',
        'invalid start_date: expected YYYY-MM-DD or 10-digit unix seconds',
      ],
      [
        '/v2/body?user_id={u}&start_date=yesterday',
        'invalid start_date: expected YYYY-MM-DD or 10-digit unix seconds',
      ],
      [
        '/v2/daily?user_id={u}&start_date=2024-01-01&end_date=soon',
        'invalid end_date: expected YYYY-MM-DD or 10-digit unix seconds',
      ],
      [
        '/v2/sleep?user_id={u}&start_date=2024-01-10&end_date=2024-01-09',
        'invalid end_date: must not be before start_date',
      ],
      [
        '/v2/sleep?user_id={u}&start_date=1704153600&end_date=1704067200',
        'invalid end_date: must not be before start_date',
      ],
      [
        '/v2/nutrition?user_id={u}&start_date=2024-01-01&to_webhook=maybe',
        'invalid to_webhook: expected true or false',
      ],
      [
        '/v2/menstruation?user_id={u}&start_date=2024-01-01&with_samples=yes',
        'invalid with_samples: expected true or false',
      ],
      [
        '/v2/hormone?user_id={u}&start_date=2024-01-01&with_samples=2',
        'invalid with_samples: expected true or false',
      ],
      [
        '/v2/plannedWorkout?user_id={u}&start_date=2024-01-01&with_samples=true',
        'invalid with_samples: not supported for plannedWorkout',
      ],
      ['/v2/athlete?user_id={u}&to_webhook=sometimes', 'invalid to_webhook: expected true or false'],
      ['/v2/athlete', 'missing user_id: required parameter'],
      [
        '/v3/connections/{u}/sleep?start_date=2024-13-01',
        'invalid start_date: expected YYYY-MM-DD or 10-digit unix seconds',
      ],
      [
        '/v3/connections/{u}/plannedWorkout?start_date=2024-01-01&with_samples=false',
        'invalid with_samples: not supported for plannedWorkout',
      ],
      ['/v3/connections/not-a-uuid/sleep?start_date=2024-01-01', 'invalid user_id: expected a UUID'],
    ];
    for (const [template, detail] of cases) {
      test(`${template} -> ${detail}`, async () => {
        const response = await get(template.replace('{u}', userId));
        const problem = problemOf(response);
        assert.equal(problem.status, 400, response.body);
        assert.equal(problem.contentType, 'application/problem+json; charset=utf-8');
        assert.equal(problem.body.detail, detail);
      });
    }

    test('an unknown v3 type is a 400 naming the parameter', async () => {
      const problem = problemOf(await get(`/v3/connections/${userId}/steps?start_date=2024-01-01`));
      assert.equal(problem.status, 400);
      assert.match(problem.body.detail, /^invalid type/);
    });

    test('no credentials: 401', async () => {
      const response = await service.app.inject({
        method: 'GET',
        url: `/v2/activity?user_id=${userId}&start_date=2024-01-01`,
      });
      assert.equal(response.statusCode, 401);
    });
  });

  describe('users', () => {
    test('unknown user: 404', async () => {
      const problem = problemOf(
        await get('/v2/activity?user_id=00000000-0000-4000-8000-000000000000&start_date=2024-01-01'),
      );
      assert.equal(problem.status, 404);
    });

    test('a user of another developer: 404 on every read', async () => {
      const stranger = await createDeveloper(service.ctx);
      for (const url of [
        `/v2/activity?user_id=${userId}&start_date=2024-01-01&to_webhook=false`,
        `/v2/athlete?user_id=${userId}`,
        `/v3/connections/${userId}/sleep?start_date=2024-01-01`,
        `/v2/plannedWorkout?user_id=${userId}&start_date=2024-01-01`,
      ]) {
        const problem = problemOf(await get(url, stranger));
        assert.equal(problem.status, 404, url);
        assert.match(problem.body.detail, /no user with user_id/);
      }
    });

    test('a pending user: 400 saying it has not completed authentication', async () => {
      const pending = await authenticateUser(service.app, developer, 'SANDBOX');
      const problem = problemOf(
        await get(`/v2/daily?user_id=${pending.userId}&start_date=2024-01-01&to_webhook=false`),
      );
      assert.equal(problem.status, 400);
      assert.match(problem.body.detail, /^invalid user_id: user .* has not completed authentication yet/);
    });

    test('an inactive user can still be read, but not to the webhook', async () => {
      const other = await connectSandboxUser(service.app, developer);
      const patch = await service.app.inject({
        method: 'PATCH',
        url: `/v2/users/${other.userId}`,
        headers: developer.headers,
        payload: { active: false },
      });
      assert.equal(patch.statusCode, 200, patch.body);
      const body = await readJson(
        `/v2/body?user_id=${other.userId}&start_date=2024-02-01&end_date=2024-02-04&to_webhook=false`,
      );
      assert.equal(body.data.length, 3);
      const problem = problemOf(
        await get(`/v2/body?user_id=${other.userId}&start_date=2024-02-01&end_date=2024-02-04`),
      );
      assert.equal(problem.status, 400);
      assert.match(problem.body.detail, /^invalid to_webhook: user .* is inactive/);
    });
  });

  describe('answers', () => {
    test('to_webhook=false: {user, data, type}, the records of the range in time order', async () => {
      const body = await readJson(
        `/v2/daily?user_id=${userId}&start_date=2024-03-01&end_date=2024-03-08&to_webhook=false`,
      );
      assert.deepEqual(Object.keys(body), ['user', 'data', 'type']);
      assert.equal(body.type, 'daily');
      assert.equal(body.user.user_id, userId);
      assert.equal(body.user.provider, 'SANDBOX');
      const starts = body.data.map((record) =>
        (record.metadata as { start_time: string }).start_time.slice(0, 10),
      );
      assert.deepEqual(starts, [
        '2024-03-01',
        '2024-03-02',
        '2024-03-03',
        '2024-03-04',
        '2024-03-05',
        '2024-03-06',
        '2024-03-07',
      ]);
    });

    test('unix seconds select by instant; dates by local day; the same records either way', async () => {
      const byDate = await readJson(
        `/v2/daily?user_id=${userId}&start_date=2024-03-01&end_date=2024-03-03&to_webhook=false`,
      );
      const byInstant = await readJson(
        `/v2/daily?user_id=${userId}&start_date=1709251200&end_date=1709424000&to_webhook=false`,
      );
      assert.deepEqual(byInstant.data, byDate.data);
    });

    test('to_webhook defaults to true: the acknowledgement with a reference', async () => {
      const response = await get(`/v2/sleep?user_id=${userId}&start_date=2024-03-01&end_date=2024-03-08`);
      assert.equal(response.statusCode, 200);
      const ack = response.json() as Record<string, unknown>;
      assert.equal(ack.status, 'success');
      assert.equal(ack.type, 'sleep');
      assert.equal(ack.message, 'Data sent to webhook');
      assert.match(String(ack.reference), /^[0-9a-f-]{36}$/);
      assert.equal(ack.trace_id, ack.reference);
      assert.equal(response.headers['service-reference'], ack.reference);
      assert.equal((ack.user as { user_id: string }).user_id, userId);
      const large = (
        await get(`/v2/sleep?user_id=${userId}&start_date=2024-01-01&end_date=2024-03-01`)
      ).json();
      assert.match(String(large.message), /^Large request submitted/);
    });

    test('with_samples=false empties every sample array; true restores them; summaries agree', async () => {
      const range = `user_id=${userId}&start_date=2024-04-01&end_date=2024-04-15&to_webhook=false`;
      for (const type of ['activity', 'sleep', 'daily', 'body'] as const) {
        const without = await readJson(`/v2/${type}?${range}`);
        const withSamples = await readJson(`/v2/${type}?${range}&with_samples=true`);
        assert.equal(without.data.length, withSamples.data.length);
        assert.ok(without.data.length > 0, type);
        const definition = dataTypes[type];
        let restored = 0;
        for (const [index, record] of withSamples.data.entries()) {
          assert.deepEqual(without.data[index], definition.stripSamples(record as never), `${type} summary`);
          for (const path of definition.samplePaths) {
            const stripped: unknown = path
              .split('.')
              .reduce<unknown>(
                (node, key) => (node as Record<string, unknown> | undefined)?.[key],
                without.data[index],
              );
            if (Array.isArray(stripped)) assert.equal(stripped.length, 0, `${type} ${path}`);
          }
          if (JSON.stringify(record) !== JSON.stringify(without.data[index])) restored++;
        }
        assert.ok(restored > 0, `${type}: some samples came back`);
      }
    });

    test('v3: {connection, data, type}, to_webhook false by default', async () => {
      const response = await get(
        `/v3/connections/${userId}/hormone?start_date=2024-03-01&end_date=2024-03-04`,
      );
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as { connection: Record<string, unknown>; data: unknown[]; type: string };
      assert.deepEqual(Object.keys(body), ['connection', 'data', 'type']);
      assert.equal(body.connection.id, userId);
      assert.equal(body.connection.provider, 'SANDBOX');
      assert.ok(Array.isArray(body.connection.scopes));
      assert.equal(body.type, 'hormone');
      assert.equal(body.data.length, 3);
      const ack = (
        await get(`/v3/connections/${userId}/hormone?start_date=2024-03-01&to_webhook=true`)
      ).json();
      assert.equal(ack.status, 'success');
      assert.equal(ack.connection.id, userId);
    });

    test('athlete: {athlete, user, type}', async () => {
      const response = await get(`/v2/athlete?user_id=${userId}&to_webhook=false`);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as {
        athlete: Record<string, unknown>;
        user: { user_id: string };
        type: string;
      };
      assert.equal(body.type, 'athlete');
      assert.equal(body.user.user_id, userId);
      assert.ok(typeof body.athlete.first_name === 'string');
      const athleteValidator = Compile(service.app.getSchema('Athlete') as never);
      assert.ok(athleteValidator.Check(body.athlete));
    });

    test('SANDBOX records of every type validate against the model schemas', async () => {
      for (const type of dataTypeNames) {
        const samples = dataTypes[type].acceptsWithSamples ? '&with_samples=true' : '';
        const body = await readJson(
          `/v2/${type}?user_id=${userId}&start_date=2024-05-01&end_date=2024-05-22&to_webhook=false${samples}`,
        );
        assert.ok(body.data.length > 0, `${type} has records`);
        const validator = Compile(dataTypes[type].schema);
        for (const record of body.data) {
          if (!validator.Check(record)) {
            assert.fail(
              `${type} invalid: ${JSON.stringify([...Value.Errors(dataTypes[type].schema, record)].slice(0, 3))}`,
            );
          }
          assert.deepEqual(undeclaredKeys(dataTypes[type].schema, record), [], `${type} keys`);
        }
      }
    });
  });

  describe('storage', () => {
    const countOf = async (type: DataTypeName) =>
      Number(
        (
          await service.ctx.db
            .selectFrom('data_records')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('user_id', '=', userId)
            .where('type', '=', type)
            .executeTakeFirstOrThrow()
        ).n,
      );

    const activityKeys = async () =>
      (
        await service.ctx.db
          .selectFrom('data_records')
          .select('identity_key')
          .where('user_id', '=', userId)
          .where('type', '=', 'activity')
          .execute()
      ).map((row) => row.identity_key);

    test('a re-sync replaces records, never duplicates them', async () => {
      const url = `/v2/activity?user_id=${userId}&start_date=2024-06-01&end_date=2024-07-01&to_webhook=false&with_samples=true`;
      const first = await readJson(url);
      const stored = await countOf('activity');
      // Forget what was synced, so the next read fetches the whole range again. It starts a day
      // earlier: the range it asks for is then not all settled days this process already knows
      // (features/data/settled-coverage.ts), so coverage is read from the store again.
      await service.ctx.db.deleteFrom('sync_coverage').where('user_id', '=', userId).execute();
      const keysBefore = await activityKeys();
      const second = await readJson(url.replace('start_date=2024-06-01', 'start_date=2024-05-31'));
      // The extra day adds its own records (the sync also reaches into neighbouring days for time
      // zones); the June ones are replaced, not added again.
      const keysAfter = await activityKeys();
      const storedAfter = await countOf('activity');
      assert.equal(new Set(keysAfter).size, keysAfter.length);
      assert.ok(keysBefore.every((key) => keysAfter.includes(key)));
      assert.equal(keysBefore.length, stored);
      const dayBefore = second.data.length - first.data.length;
      assert.deepEqual(second.data.slice(dayBefore), first.data);
      // Pushed records with the same identity replace as well.
      const user = await service.ctx.db
        .selectFrom('connections')
        .selectAll()
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      await service.ctx.db.transaction().execute(async (trx) => {
        await service.ctx.data.ingest(trx, user, 'activity', first.data, undefined, { emit: false });
        await service.ctx.data.ingest(trx, user, 'activity', first.data, undefined, { emit: false });
      });
      assert.equal(await countOf('activity'), storedAfter);
    });

    test('a covered range is not fetched again', async () => {
      const url = `/v2/nutrition?user_id=${userId}&start_date=2024-06-01&end_date=2024-06-10&to_webhook=false`;
      await readJson(url);
      const source = service.ctx.providers.get('SANDBOX')!.connector!.data!;
      const original = source.fetch;
      let calls = 0;
      source.fetch = (args) => {
        calls++;
        return original(args);
      };
      try {
        await readJson(url);
        await readJson(
          `/v2/nutrition?user_id=${userId}&start_date=2024-06-03&end_date=2024-06-05&to_webhook=false`,
        );
        assert.equal(calls, 0);
        await readJson(
          `/v2/nutrition?user_id=${userId}&start_date=2024-06-05&end_date=2024-06-12&to_webhook=false`,
        );
        assert.equal(calls, 1, 'only the uncovered days are fetched');
      } finally {
        source.fetch = original;
      }
    });

    test('records failing the model schemas are skipped (logged and counted), never stored, never a 500', async () => {
      const source = service.ctx.providers.get('SANDBOX')!.connector!.data!;
      const original = source.fetch;
      source.fetch = async function* (args) {
        yield { records: [{ metadata: { summary_id: 'broken' } }, { nonsense: true }] };
        yield* original(args);
      };
      try {
        const body = await readJson(
          `/v2/activity?user_id=${userId}&start_date=2023-01-01&end_date=2023-01-15&to_webhook=false`,
        );
        assert.ok(body.data.length > 0);
        assert.ok(
          body.data.every((record) => (record.metadata as { summary_id: string }).summary_id !== 'broken'),
        );
      } finally {
        source.fetch = original;
      }
    });

    test('a provider failure is a 503 problem with Retry-After, never a 500', async () => {
      const source = service.ctx.providers.get('SANDBOX')!.connector!.data!;
      const original = source.fetch;
      source.fetch = async function* () {
        yield* [];
        throw new Error('connection reset by provider');
      };
      try {
        const response = await get(
          `/v2/sleep?user_id=${userId}&start_date=2022-01-01&end_date=2022-01-05&to_webhook=false`,
        );
        const problem = problemOf(response);
        assert.equal(problem.status, 503);
        assert.equal(response.headers['retry-after'], '60');
        assert.match(problem.body.detail, /retry later/);
        assert.doesNotMatch(response.body, /connection reset/);
      } finally {
        source.fetch = original;
      }
    });

    test('a large with_samples response is streamed, not built whole', async () => {
      await service.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = service.app.server.address() as AddressInfo;
      const result = await new Promise<{ headers: Record<string, unknown>; chunks: number; body: string }>(
        (resolve, reject) => {
          const request = httpRequest(
            {
              host: '127.0.0.1',
              port,
              path: `/v2/activity?user_id=${userId}&start_date=2023-02-01&end_date=2023-06-01&to_webhook=false&with_samples=true`,
              headers: developer.headers,
            },
            (response) => {
              const parts: Buffer[] = [];
              response.on('data', (chunk: Buffer) => parts.push(chunk));
              response.on('end', () =>
                resolve({
                  headers: response.headers,
                  chunks: parts.length,
                  body: Buffer.concat(parts).toString('utf8'),
                }),
              );
              response.on('error', reject);
            },
          );
          request.on('error', reject);
          request.end();
        },
      );
      assert.equal(result.headers['transfer-encoding'], 'chunked');
      assert.equal(result.headers['content-length'], undefined);
      assert.ok(result.chunks > 5, `arrived in ${result.chunks} chunks`);
      const body = JSON.parse(result.body) as Envelope;
      assert.ok(body.data.length > 40);
      assert.ok(result.body.length > 4_000_000, `${result.body.length} bytes`);
    });

    test('summaries over more than one page are the stored records joined in order, page boundaries included', async () => {
      // 199, 200 and 201 daily records around the page size (200), and a year: the last page is
      // short, exactly full (then an empty page carries the tail) or one of several.
      for (const end of ['2021-07-19', '2021-07-20', '2021-07-21', '2022-01-01']) {
        const query = { start_date: '2021-01-01', end_date: end, to_webhook: 'false' };
        const response = await get(`/v2/daily?user_id=${userId}&${new URLSearchParams(query)}`);
        assert.equal(response.statusCode, 200, response.body);
        const params = parseReadParams('daily', query, new Date(), { toWebhook: false });
        const rows = await pageRecords(service.ctx.db, {
          userId,
          type: 'daily',
          filter: filterOf(params.window!),
          after: null,
          limit: 10_000,
          withSamples: false,
        });
        assert.ok(rows.length >= 199, `${rows.length} records`);
        const head = response.body.slice(0, response.body.indexOf('"data":[') + 8);
        const expected = `${head}${rows.map((row) => row.summary).join(',')}],"type":"daily"}`;
        assert.equal(response.body, expected);
      }
    });

    test('deleting the user deletes its records, coverage and budget', async () => {
      const doomed = await connectSandboxUser(service.app, developer);
      await readJson(
        `/v2/body?user_id=${doomed.userId}&start_date=2024-01-01&end_date=2024-01-10&to_webhook=false`,
      );
      const before = await dataRowCounts(service.ctx, doomed.userId);
      assert.ok(before.records > 0 && before.coverage > 0 && before.buckets > 0);
      const response = await service.app.inject({
        method: 'DELETE',
        url: `/v2/auth/deauthenticateUser?user_id=${doomed.userId}`,
        headers: developer.headers,
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(await dataRowCounts(service.ctx, doomed.userId), {
        records: 0,
        raw: 0,
        coverage: 0,
        buckets: 0,
      });
    });
  });

  describe('a read of days already settled here', () => {
    /** The texts of the statements this process submits while `run` runs. */
    const statementsDuring = async (run: () => Promise<unknown>): Promise<string[]> => {
      const submit = pg.Query.prototype.submit;
      const texts: string[] = [];
      pg.Query.prototype.submit = function (this: { text?: string }, connection: unknown) {
        texts.push(this.text ?? '');
        return submit.call(this, connection as never);
      };
      try {
        await run();
      } finally {
        pg.Query.prototype.submit = submit;
      }
      return texts;
    };

    for (const [label, start, end] of [
      ['one page', '2024-05-01', '2024-05-31'],
      ['several pages', '2022-01-01', '2024-01-01'],
    ] as const) {
      test(`finds, charges and reads its first page in one statement, the same bytes (${label})`, async () => {
        const url = `/v2/activity?user_id=${userId}&start_date=${start}&end_date=${end}&to_webhook=false`;
        // The first read syncs the days; the second learns that they are settled.
        const synced = await get(url);
        assert.equal(synced.statusCode, 200, synced.body);
        assert.equal((await get(url)).body, synced.body);
        let again: Awaited<ReturnType<typeof get>> | undefined;
        const texts = await statementsDuring(async () => {
          again = await get(url);
        });
        assert.equal(again?.statusCode, 200);
        assert.equal(again?.body, synced.body);
        const charges = texts.filter((text) => text.includes('"rate_buckets"'));
        assert.equal(charges.length, 1, JSON.stringify(texts));
        assert.match(charges[0]!, /"data_records"/);
        if (label === 'one page') {
          assert.equal(texts.filter((text) => text.includes('"data_records"')).length, 1);
          // Written as bytes, not by Fastify's serializer: its hooks' headers and the length still hold.
          for (const response of [synced, again!]) {
            assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
            assert.equal(response.headers['content-length'], String(Buffer.byteLength(response.body)));
            assert.equal(response.headers['x-content-type-options'], 'nosniff');
            assert.ok(response.headers['x-service-ratelimit-remaining']);
          }
        } else {
          assert.ok((JSON.parse(synced.body) as Envelope).data.length > 200);
        }
      });
    }
  });

  test('OpenAPI documents every data route under the data tag', async () => {
    const document = (await service.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const type of [...dataTypeNames, 'athlete']) {
      assert.deepEqual(document.paths[`/v2/${type}`]?.get?.tags, ['data'], type);
    }
    assert.ok(document.paths['/v2/plannedWorkout'].post);
    assert.ok(document.paths['/v2/plannedWorkout'].delete);
    assert.ok(document.paths['/v3/connections/{user_id}/{type}'].get);
  });
});
