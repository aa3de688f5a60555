import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import { findConnectionForDeveloper } from '../../src/features/connections/service.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { authenticateUser, connectSandboxUser } from '../helpers/connections.ts';

const WIRE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('user information', () => {
  let service: TestService;
  let dev: TestDeveloper;
  let other: TestDeveloper;
  let empty: TestDeveloper;
  const users: string[] = [];
  let pendingId: string;
  let foreignId: string;

  const get = (url: string, developer = dev) =>
    service.app.inject({ method: 'GET', url, headers: developer.headers });

  before(async () => {
    service = await startTestService();
    dev = await createDeveloper(service.ctx);
    other = await createDeveloper(service.ctx, { name: 'Other developer' });
    empty = await createDeveloper(service.ctx, { name: 'No users yet' });
    for (const referenceId of ['family', 'family', 'solo', 'x', 'y']) {
      users.push((await connectSandboxUser(service.app, dev, { referenceId })).userId);
    }
    pendingId = (await authenticateUser(service.app, dev, 'SANDBOX', { reference_id: 'family' })).userId;
    foreignId = (await connectSandboxUser(service.app, other, { referenceId: 'family' })).userId;
  });
  after(async () => {
    await service?.close();
  });

  test('userInfo by user_id: the single form with every User field', async () => {
    const response = await get(`/v2/userInfo?user_id=${users[0]}`);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.status, 'success');
    assert.equal(body.is_authenticated, true);
    assert.deepEqual(Object.keys(body.user).sort(), [
      'active',
      'created_at',
      'last_polled_at',
      'last_webhook_update',
      'most_recent_data_at',
      'provider',
      'reference_id',
      'scopes',
      'user_id',
    ]);
    assert.equal(body.user.user_id, users[0]);
    assert.equal(body.user.provider, 'SANDBOX');
    assert.equal(body.user.reference_id, 'family');
    assert.equal(body.user.active, true);
    assert.match(body.user.created_at, WIRE_TIME);
    assert.match(body.user.scopes, /^[a-z,]+$/);
    const upper = await get(`/v2/userInfo?user_id=${users[0]?.toUpperCase()}`);
    assert.equal(upper.statusCode, 200, 'UUIDs are case-insensitive');
  });

  test('userInfo by reference_id: a bare array of every match (pending included), own users only', async () => {
    const body = (await get('/v2/userInfo?reference_id=family')).json() as { user_id: string }[];
    assert.ok(Array.isArray(body));
    assert.deepEqual(body.map((user) => user.user_id).sort(), [users[0], users[1], pendingId].sort());
    assert.deepEqual((await get('/v2/userInfo?reference_id=nobody')).json(), []);
    const both = await get(`/v2/userInfo?user_id=${users[2]}&reference_id=solo`);
    assert.equal(both.json().user.user_id, users[2]);
    assert.equal((await get(`/v2/userInfo?user_id=${users[2]}&reference_id=family`)).statusCode, 404);
  });

  test('userInfo errors: 400 naming the parameter, 404 unknown or foreign, 401', async () => {
    const none = problemOf(await get('/v2/userInfo'));
    assert.equal(none.status, 400);
    assert.match(none.body.detail, /^invalid user_id: provide user_id or reference_id/);
    const malformed = problemOf(await get('/v2/userInfo?user_id=123'));
    assert.equal(malformed.body.detail, 'invalid user_id: expected a UUID');
    assert.equal((await get(`/v2/userInfo?user_id=${UNKNOWN}`)).statusCode, 404);
    assert.equal((await get(`/v2/userInfo?user_id=${foreignId}`)).statusCode, 404);
    assert.equal((await get(`/v2/userInfo?user_id=${users[0]}`, other)).statusCode, 404);
    assert.equal(
      (await service.app.inject({ method: 'GET', url: `/v2/userInfo?user_id=${users[0]}` })).statusCode,
      401,
    );
  });

  test('pending users are not authenticated', async () => {
    const body = (await get(`/v2/userInfo?user_id=${pendingId}`)).json();
    assert.equal(body.is_authenticated, false);
  });

  test('subscriptions without page: every connected user, no pagination', async () => {
    const body = (await get('/v2/subscriptions')).json();
    assert.equal(body.status, 'success');
    assert.deepEqual(body.users.map((user: { user_id: string }) => user.user_id).sort(), [...users].sort());
    assert.deepEqual((await get('/v2/subscriptions', empty)).json(), { status: 'success', users: [] });
  });

  test('subscriptions with page: zero-based pages, next and max_page', async () => {
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const body = (await get(`/v2/subscriptions?page=${page}&per_page=2`)).json();
      assert.equal(body.data.max_page, 2);
      assert.equal(body.data.next, page < 2 ? page + 1 : null);
      seen.push(...body.data.results.map((user: { user_id: string }) => user.user_id));
    }
    assert.deepEqual(seen.sort(), [...users].sort());
    const beyond = (await get('/v2/subscriptions?page=7&per_page=2')).json();
    assert.deepEqual(beyond.data, { next: null, max_page: 2, results: [] });
    const defaults = (await get('/v2/subscriptions?page=0')).json();
    assert.equal(defaults.data.results.length, 5);
    assert.deepEqual((await get('/v2/subscriptions?page=0', empty)).json().data, {
      next: null,
      max_page: 0,
      results: [],
    });
  });

  test('subscriptions: invalid page or per_page is a 400 naming it', async () => {
    for (const [query, name] of [
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=0&per_page=0', 'per_page'],
      ['page=0&per_page=1001', 'per_page'],
      ['page=0&per_page=2.5', 'per_page'],
    ]) {
      const problem = problemOf(await get(`/v2/subscriptions?${query}`));
      assert.equal(problem.status, 400, query);
      assert.match(problem.body.detail, new RegExp(`^invalid ${name}`), query);
    }
  });

  test('bulkUserInfo: the developer’s users among the ids, in order; others left out', async () => {
    const ids = [users[3], foreignId, UNKNOWN, users[1]];
    const response = await service.app.inject({
      method: 'POST',
      url: '/v2/bulkUserInfo',
      headers: dev.headers,
      payload: ids,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      response.json().map((user: { user_id: string }) => user.user_id),
      [users[3], users[1]],
    );
    const malformed = problemOf(
      await service.app.inject({
        method: 'POST',
        url: '/v2/bulkUserInfo',
        headers: dev.headers,
        payload: [users[0], 'nope'],
      }),
    );
    assert.equal(malformed.body.detail, 'invalid user_ids[1]: expected a UUID');
    const notArray = await service.app.inject({
      method: 'POST',
      url: '/v2/bulkUserInfo',
      headers: dev.headers,
      payload: { a: 1 },
    });
    assert.equal(notArray.statusCode, 400);
    // A JSON scalar passes Ajv's array coercion without being replaced: it must still be a 400.
    for (const scalar of ['"%00"', '12', 'null', 'true']) {
      const refused = problemOf(
        await service.app.inject({
          method: 'POST',
          url: '/v2/bulkUserInfo',
          headers: { ...dev.headers, 'content-type': 'application/json' },
          payload: scalar,
        }),
      );
      assert.equal(refused.status, 400, scalar);
      assert.equal(refused.body.detail, 'invalid body: expected a JSON array of user ids', scalar);
    }
    assert.equal(
      (await service.app.inject({ method: 'POST', url: '/v2/bulkUserInfo', payload: [] })).statusCode,
      401,
    );
  });

  test('PATCH /v2/users/{user_id}: reference_id and active', async () => {
    const url = `/v2/users/${users[4]}`;
    const patch = (payload: unknown, developer = dev, path = url) =>
      service.app.inject({
        method: 'PATCH',
        url: path,
        headers: developer.headers,
        payload: payload as object,
      });
    const changed = await patch({ reference_id: 'renamed', active: false });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json().status, 'success');
    assert.equal(changed.json().user.reference_id, 'renamed');
    assert.equal(changed.json().user.active, false);
    assert.equal((await get(`/v2/userInfo?user_id=${users[4]}`)).json().user.active, false);
    assert.equal((await patch({ reference_id: null })).json().user.reference_id, null);
    assert.equal((await patch({ active: true })).json().user.active, true);

    assert.match(problemOf(await patch({})).body.detail, /^invalid body/);
    assert.match(
      problemOf(await patch({ nickname: 'x' })).body.detail,
      /^invalid body/,
      'unknown fields are ignored',
    );
    assert.match(problemOf(await patch({ active: 'maybe' })).body.detail, /^invalid active/);
    assert.equal(
      problemOf(await patch({ active: true }, dev, '/v2/users/nope')).body.detail,
      'invalid user_id: expected a UUID',
    );
    assert.equal((await patch({ active: true }, dev, `/v2/users/${foreignId}`)).statusCode, 404);
    assert.equal((await patch({ active: true }, other)).statusCode, 404);
    assert.equal(
      (await service.app.inject({ method: 'PATCH', url, payload: { active: true } })).statusCode,
      401,
    );
  });

  test('findConnectionForDeveloper: the lookup other modules use', async () => {
    const row = await findConnectionForDeveloper(service.ctx.db, dev.devId, users[0] ?? '');
    assert.equal(row.id, users[0]);
    await assert.rejects(
      findConnectionForDeveloper(service.ctx.db, other.devId, users[0] ?? ''),
      (error: unknown) => {
        return error instanceof AppError && error.status === 404;
      },
    );
    await assert.rejects(findConnectionForDeveloper(service.ctx.db, dev.devId, 'x'), (error: unknown) => {
      return error instanceof AppError && error.status === 400 && /user_id/.test(error.message);
    });
  });
});
