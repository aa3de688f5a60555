import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PassThrough } from 'node:stream';
import { isSupportedDate, readDateTime } from '../../src/model/calendar.ts';
import { bodyProblem, headerProblem, textProblem, urlProblem } from '../../src/http/input-limits.ts';
import { boundedSchema } from '../../src/http/schema-bounds.ts';

describe('calendar dates', () => {
  test('real dates in the supported range only', () => {
    for (const good of ['2024-02-29', '2000-02-29', '1900-01-01', '9999-12-31', '2026-03-01'])
      assert.ok(isSupportedDate(good), good);
    for (const bad of ['2026-02-30', '2023-02-29', '1900-02-29', '0000-01-01', '1899-12-31', '2024-13-01'])
      assert.ok(!isSupportedDate(bad), bad);
    for (const bad of ['2024-1-1', ' 2024-01-01', '2024-01-01T00:00:00Z', 'garbage', ''])
      assert.ok(!isSupportedDate(bad), bad);
  });

  test('datetimes: real time of day, offsets within ±18 h, offset required when asked', () => {
    assert.equal(readDateTime('2024-03-05T07:12:00Z')?.ms, Date.UTC(2024, 2, 5, 7, 12));
    assert.equal(readDateTime('2024-03-05T07:12:00.123456+01:00')?.ms, Date.UTC(2024, 2, 5, 6, 12, 0, 123));
    assert.equal(readDateTime('2024-03-05T07:12-0130')?.offsetMinutes, -90);
    assert.equal(readDateTime('2024-03-05T07:12:00')?.offsetMinutes, null);
    assert.equal(readDateTime('2024-03-05T07:12:00', { requireOffset: true }), null);
    for (const bad of [
      '2026-02-30T00:00:00Z',
      '2024-03-05T24:00:00Z',
      '2024-03-05T23:60:00Z',
      '2024-03-05T23:59:60Z',
      '2024-03-05T07:12:00+19:00',
      '2024-03-05T07:12:00+01:60',
      '0000-01-01T00:00:00Z',
      '2024-03-05 07:12:00Z',
    ])
      assert.equal(readDateTime(bad), null, bad);
  });
});

describe('input limits', () => {
  test('text: NUL and control characters, length, well-formed Unicode', () => {
    assert.equal(textProblem('plain text\twith\nlines', 'text', 100), null);
    assert.match(textProblem('a\u0000', 'text', 100) ?? '', /NUL/);
    assert.match(textProblem('a\u001b', 'text', 100) ?? '', /U\+001B/);
    assert.match(textProblem('a\nb', 'line', 100) ?? '', /U\+000A/);
    assert.equal(textProblem('a\tb', 'header', 100), null);
    assert.match(textProblem('\ud800', 'text', 100) ?? '', /surrogate/);
    assert.match(textProblem('abc', 'text', 2) ?? '', /longer than 2/);
  });

  test('bodies: depth, array size, strings, keys and numbers, found iteratively', () => {
    assert.equal(bodyProblem({ data: [{ metadata: { name: 'x', n: 1.5 } }] }), null);
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    assert.match(bodyProblem(deep)?.problem ?? '', /nested deeper than 32/);
    assert.match(bodyProblem({ ids: Array.from({ length: 1001 }, () => 1) })?.problem ?? '', /1000 items/);
    assert.deepEqual(bodyProblem({ data: [{ name: 'a\u0000' }] }), {
      name: 'data[0].name',
      problem: 'must not contain NUL characters',
    });
    assert.deepEqual(bodyProblem(['ok', 'b\u0000']), {
      name: 'body[1]',
      problem: 'must not contain NUL characters',
    });
    assert.match(bodyProblem({ 'a\u0000': 1 })?.name ?? '', /field name/);
    assert.match(bodyProblem({ value: Infinity })?.problem ?? '', /out of range/);
    assert.equal(bodyProblem(Buffer.from('\u0000raw')), null, 'raw bodies are the route’s business');
    // A raw upload reaches the boundary as its request stream: bytes, not a structure to walk
    // (its socket.parser.socket… chain is deeper than any body may be).
    const stream = new PassThrough();
    let chain: Record<string, unknown> = { parser: {} };
    for (let level = 0; level < 40; level++) chain = { socket: { parser: chain } };
    Object.assign(stream, chain);
    assert.equal(bodyProblem(stream), null, 'a request stream is the route’s business');
    assert.equal(bodyProblem(Object.assign(Object.create(null) as object, { a: 'b' })), null);
    assert.match(
      bodyProblem(Object.assign(Object.create(null) as object, { a: '\u0000' }))?.problem ?? '',
      /NUL/,
    );
  });

  test('URLs: decoded path segments and query components', () => {
    assert.equal(urlProblem('/v2/userInfo?reference_id=caf%C3%A9&x=a+b'), null);
    assert.deepEqual(urlProblem('/v2/userInfo?reference_id=%00'), {
      name: 'reference_id',
      problem: 'must not contain NUL characters',
    });
    assert.equal(urlProblem('/v2/webhook/deliveries/%00/replay')?.name, 'path');
    assert.match(urlProblem('/v2/x?a=%E0%A4%A')?.problem ?? '', /malformed/);
    assert.match(urlProblem('/v2/%ZZ')?.problem ?? '', /malformed/);
    assert.match(urlProblem(`/v2/x?a=${'b'.repeat(5000)}`)?.problem ?? '', /longer than 4096/);
    assert.equal(headerProblem({ 'dev-id': 'a\u0001' })?.name, 'dev-id header');
    assert.equal(headerProblem({ accept: ['text/html', 'application/json'] }), null);
  });

  test('schemas get default bounds where they set none, on a copy', () => {
    const schema = {
      type: 'object',
      properties: {
        page: { type: 'integer', minimum: 0 },
        name: { type: 'string' },
        kind: { type: 'string', enum: ['a', 'b'] },
        either: { anyOf: [{ type: 'number' }, { type: 'null' }] },
        list: { type: 'array', items: { type: 'string', maxLength: 5 } },
        model: { $ref: 'PlannedWorkout' },
      },
    };
    const bounded = boundedSchema(schema, 100) as unknown as {
      properties: Record<string, Record<string, unknown>>;
    };
    assert.deepEqual(bounded.properties.page, { type: 'integer', minimum: 0, maximum: 2_147_483_647 });
    assert.equal(bounded.properties.name!.maxLength, 100);
    assert.equal(bounded.properties.kind!.maxLength, undefined);
    assert.deepEqual((bounded.properties.either!.anyOf as object[])[0], {
      type: 'number',
      minimum: -1e15,
      maximum: 1e15,
    });
    assert.equal((bounded.properties.list!.items as { maxLength: number }).maxLength, 5);
    assert.deepEqual(bounded.properties.model, { $ref: 'PlannedWorkout' });
    assert.deepEqual(schema.properties.page, { type: 'integer', minimum: 0 }, 'the original is untouched');
  });
});
