// The Idempotency-Key store below HTTP, on the real database: what a key may look like, which
// bodies count as the same request, and the life of a key (claim, replay, conflict, lease
// take-over, completion, release, expiry). The HTTP behaviour on real orders is in orders.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/core/errors.ts';
import {
  canonicalJson,
  claimKey,
  completeKey,
  conflictFor,
  lookupKey,
  parseIdempotencyKey,
  releaseKey,
  requestHash,
  sweepExpiredKeys,
} from '../../src/features/orders/idempotency.ts';
import { createDeveloper, startTestService, type TestService } from '../helpers/app.ts';

const T0 = new Date('2026-04-01T09:00:00Z');
const TTL = 24 * 3_600_000;
const LEASE = 60_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('Idempotency-Key store', () => {
  let service: TestService;
  let developerId: string;
  let otherDeveloperId: string;
  let keyNumber = 0;
  const newKey = () => `key-${++keyNumber}`;
  const claim = (key: string, hash: string, now = T0, developer = developerId) =>
    claimKey(service.ctx.db, { developerId: developer, key, hash, now, ttlMs: TTL, leaseMs: LEASE });
  const row = (key: string, developer = developerId) =>
    service.ctx.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('developer_id', '=', developer)
      .where('key', '=', key)
      .executeTakeFirst();

  before(async () => {
    service = await startTestService({ work: false });
    developerId = (await createDeveloper(service.ctx, { orderApi: true })).devId;
    otherDeveloperId = (await createDeveloper(service.ctx, { orderApi: true })).devId;
  });
  after(async () => {
    await service?.close();
  });

  describe('keys and request identity', () => {
    test('a key is 1 to 255 printable ASCII characters; absent is no key', () => {
      assert.equal(parseIdempotencyKey(undefined), undefined);
      assert.equal(parseIdempotencyKey('a'), 'a');
      assert.equal(parseIdempotencyKey('!~'), '!~', 'the printable range ends included');
      assert.equal(parseIdempotencyKey('x'.repeat(255)), 'x'.repeat(255));
      assert.equal(parseIdempotencyKey(['first', 'second']), 'first', 'a repeated header: the first one');
      const refused = (raw: string | string[], detail: string) =>
        assert.throws(
          () => parseIdempotencyKey(raw),
          (error: unknown) => error instanceof AppError && error.status === 400 && error.message === detail,
          JSON.stringify(raw),
        );
      refused('', 'invalid Idempotency-Key: must not be empty');
      refused([], 'invalid Idempotency-Key: must not be empty');
      const shape = 'invalid Idempotency-Key: expected 1 to 255 printable ASCII characters';
      refused('x'.repeat(256), shape);
      refused('with space', shape);
      refused('tab\there', shape);
      refused('ключ', shape);
      refused(' leading', shape);
      refused('trailing ', shape);
    });

    test('canonical JSON sorts object keys at every depth and keeps array order', () => {
      assert.equal(
        canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null }, e: 'x' }),
        '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1,"e":"x"}',
      );
      assert.equal(canonicalJson([2, 1]), '[2,1]');
      assert.equal(canonicalJson({ kept: 1, dropped: undefined }), '{"kept":1}', 'undefined members vanish');
      assert.equal(canonicalJson(undefined), 'null');
      assert.equal(canonicalJson('text'), '"text"');
      assert.equal(canonicalJson({ B: 1, a: 2, _: 3 }), '{"B":1,"_":3,"a":2}', 'code-unit order');
      assert.equal(canonicalJson({}), '{}');
    });

    test('the request hash is SHA-256 over method, path and canonical body', () => {
      // sha256("POST /api/v1/orders\n{\"a\":1,\"b\":{\"c\":2,\"d\":3}}"), computed independently.
      const hash = requestHash('post', '/api/v1/orders', { b: { d: 3, c: 2 }, a: 1 });
      assert.equal(hash, '7aa63359b280b3993972489df9ae167bebb56d750cfbed0dd762d8960a595ccd');
      assert.notEqual(hash, requestHash('POST', '/api/v1/orders', { a: 1, b: { c: 2, d: 4 } }));
      assert.notEqual(hash, requestHash('PUT', '/api/v1/orders', { a: 1, b: { c: 2, d: 3 } }));
      assert.notEqual(hash, requestHash('POST', '/api/v1/other', { a: 1, b: { c: 2, d: 3 } }));
    });

    test('the two conflicts say what to do', () => {
      const inFlight = conflictFor('in_flight', 'k1');
      assert.equal(inFlight.status, 409);
      assert.equal(
        inFlight.message,
        'a request with Idempotency-Key "k1" is still in flight; retry once it has finished',
      );
      const different = conflictFor('different_request', 'k1');
      assert.equal(different.status, 409);
      assert.equal(
        different.message,
        'Idempotency-Key "k1" was already used with a different request body; use a new key for a new order',
      );
    });
  });

  describe('the life of a key', () => {
    test('the first claim wins and stores an in-flight row with its lease and expiry', async () => {
      const key = newKey();
      const first = await claim(key, 'h1');
      assert.equal(first.kind, 'claimed');
      const stored = await row(key);
      assert.equal(stored?.status, 'in_flight');
      assert.equal(stored?.request_hash, 'h1');
      assert.equal(stored?.claim, first.kind === 'claimed' ? first.claim : undefined);
      assert.deepEqual(stored?.locked_until, at(LEASE));
      assert.deepEqual(stored?.created_at, T0);
      assert.deepEqual(stored?.expires_at, at(TTL));
      assert.equal(stored?.response_status, null);
      // While it is in flight: the same request waits, another request conflicts.
      assert.deepEqual(await claim(key, 'h1', at(1000)), { kind: 'conflict', reason: 'in_flight' });
      assert.deepEqual(await claim(key, 'h2', at(1000)), { kind: 'conflict', reason: 'different_request' });
      assert.deepEqual(await lookupKey(service.ctx.db, developerId, key, 'h1', at(1000)), {
        kind: 'conflict',
        reason: 'in_flight',
      });
      assert.deepEqual(await lookupKey(service.ctx.db, developerId, key, 'h2', at(1000)), {
        kind: 'conflict',
        reason: 'different_request',
      });
    });

    test('completed: the same request is replayed, a different one conflicts, another developer is separate', async () => {
      const key = newKey();
      const claimed = await claim(key, 'h1');
      assert.equal(claimed.kind, 'claimed');
      if (claimed.kind !== 'claimed') return;
      const body = { order_id: 'o-1', nested: { items: [1, 2] } };
      await service.ctx.db
        .transaction()
        .execute((trx) => completeKey(trx, developerId, key, claimed.claim, { status: 201, body }));
      const replay = { kind: 'replay', response: { status: 201, body } };
      assert.deepEqual(await claim(key, 'h1', at(5000)), replay);
      assert.deepEqual(await lookupKey(service.ctx.db, developerId, key, 'h1', at(5000)), replay);
      assert.deepEqual(await claim(key, 'h2', at(5000)), { kind: 'conflict', reason: 'different_request' });
      // Even long after the lease: a completed key is never taken over while it lives.
      assert.deepEqual(await claim(key, 'h1', at(TTL - 1)), replay);
      assert.deepEqual(await lookupKey(service.ctx.db, developerId, key, 'h1', at(TTL - 1)), replay);
      assert.equal((await claim(key, 'h1', T0, otherDeveloperId)).kind, 'claimed', 'keys are per developer');
      assert.equal(
        await lookupKey(service.ctx.db, developerId, newKey(), 'h1', T0),
        undefined,
        'unknown key',
      );
    });

    test('completing twice, or with a claim that is not ours, is a conflict and changes nothing', async () => {
      const key = newKey();
      const claimed = await claim(key, 'h1');
      if (claimed.kind !== 'claimed') return assert.fail('not claimed');
      const complete = (token: string) =>
        service.ctx.db
          .transaction()
          .execute((trx) => completeKey(trx, developerId, key, token, { status: 201, body: { n: 1 } }));
      await assert.rejects(complete('someone-else'), (error: unknown) => {
        assert.ok(error instanceof AppError && error.status === 409);
        assert.equal(
          error.message,
          `Idempotency-Key "${key}" was taken over by another request; retry to get its result`,
        );
        return true;
      });
      assert.equal((await row(key))?.status, 'in_flight');
      await complete(claimed.claim);
      await assert.rejects(complete(claimed.claim), { status: 409 } as object);
      assert.deepEqual((await row(key))?.response_body, { n: 1 });
    });

    test('a crashed request’s claim is taken over, with the same token, once its lease has run out', async () => {
      const key = newKey();
      const first = await claim(key, 'h1');
      if (first.kind !== 'claimed') return assert.fail('not claimed');
      assert.deepEqual(await claim(key, 'h1', at(LEASE - 1)), { kind: 'conflict', reason: 'in_flight' });
      assert.equal(
        await lookupKey(service.ctx.db, developerId, key, 'h1', at(LEASE)),
        undefined,
        'at the end of the lease the same request may take over',
      );
      assert.deepEqual(await lookupKey(service.ctx.db, developerId, key, 'h2', at(LEASE)), {
        kind: 'conflict',
        reason: 'different_request',
      });
      assert.deepEqual(await claim(key, 'h2', at(LEASE)), { kind: 'conflict', reason: 'different_request' });
      const takeover = await claim(key, 'h1', at(LEASE));
      assert.deepEqual(
        takeover,
        { kind: 'claimed', claim: first.claim },
        'the same token: one order at most',
      );
      const stored = await row(key);
      assert.deepEqual(stored?.locked_until, at(2 * LEASE), 'a fresh lease');
      assert.deepEqual(stored?.created_at, T0, 'still the same key life');
      assert.deepEqual(stored?.expires_at, at(TTL));
    });

    test('an expired key is free again: a new claim token and a new life, for any request', async () => {
      const key = newKey();
      const first = await claim(key, 'h1');
      if (first.kind !== 'claimed') return assert.fail('not claimed');
      await service.ctx.db
        .transaction()
        .execute((trx) => completeKey(trx, developerId, key, first.claim, { status: 201, body: {} }));
      assert.equal(await lookupKey(service.ctx.db, developerId, key, 'h2', at(TTL)), undefined, 'expired');
      assert.notEqual(await lookupKey(service.ctx.db, developerId, key, 'h2', at(TTL - 1)), undefined);
      const again = await claim(key, 'h2', at(TTL));
      assert.equal(again.kind, 'claimed');
      assert.notEqual(again.kind === 'claimed' ? again.claim : '', first.claim);
      const stored = await row(key);
      assert.equal(stored?.request_hash, 'h2');
      assert.equal(stored?.status, 'in_flight');
      assert.equal(stored?.response_status, null);
      assert.equal(stored?.response_body, null);
      assert.deepEqual(stored?.created_at, at(TTL));
      assert.deepEqual(stored?.expires_at, at(2 * TTL));
    });

    test('release forgets only its own in-flight claim', async () => {
      const key = newKey();
      const first = await claim(key, 'h1');
      if (first.kind !== 'claimed') return assert.fail('not claimed');
      await releaseKey(service.ctx.db, developerId, key, 'not-ours');
      await releaseKey(service.ctx.db, otherDeveloperId, key, first.claim);
      assert.ok(await row(key), 'someone else’s release changes nothing');
      await releaseKey(service.ctx.db, developerId, key, first.claim);
      assert.equal(await row(key), undefined);
      assert.equal((await claim(key, 'h2')).kind, 'claimed', 'the key can be used afresh');

      const completedKey = newKey();
      const done = await claim(completedKey, 'h1');
      if (done.kind !== 'claimed') return assert.fail('not claimed');
      await service.ctx.db
        .transaction()
        .execute((trx) => completeKey(trx, developerId, completedKey, done.claim, { status: 201, body: {} }));
      await releaseKey(service.ctx.db, developerId, completedKey, done.claim);
      assert.equal((await row(completedKey))?.status, 'completed', 'a completed key is never released');
    });

    test('sweeping deletes one developer’s expired keys and nothing else', async () => {
      const expiring = newKey();
      const living = newKey();
      const foreign = newKey();
      await claim(expiring, 'h', at(-TTL));
      await claim(living, 'h', at(-TTL + 1));
      await claim(foreign, 'h', at(-TTL), otherDeveloperId);
      await sweepExpiredKeys(service.ctx.db, developerId, T0);
      assert.equal(await row(expiring), undefined, 'expired exactly now');
      assert.ok(await row(living));
      assert.ok(await row(foreign, otherDeveloperId), 'another developer’s keys wait for their own sweep');
    });
  });
});
