// Fastify's compilers (Ajv, fast-json-stringify: ~116 modules) are loaded by the first route
// part that runs, not when the app is built: a start-up serves /ready without them. Each test
// file runs in a process of its own, so nothing else has loaded them here first.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { lazySchemaController } from '../../src/http/lazy-compilers.ts';

const loaded = (compilerPackage: string) =>
  Object.keys(createRequire(import.meta.url).cache).some((path) =>
    path.includes(`/node_modules/${compilerPackage}/`),
  );

type RouteCompiler = (route: unknown) => ((input: unknown) => unknown) & { errors?: unknown };
const { buildValidator, buildSerializer } = lazySchemaController.compilersFactory as unknown as Record<
  'buildValidator' | 'buildSerializer',
  (externalSchemas: unknown, options: unknown) => RouteCompiler
>;

test('the compilers are loaded by the first validation and serialization, not by building routes', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
  const validate = buildValidator(
    {},
    { customOptions: {}, plugins: [] },
  )({ schema, method: 'GET', url: '/x', httpPart: 'querystring' });
  const serialize = buildSerializer({}, {})({ schema, method: 'GET', url: '/x', httpStatus: '200' });
  assert.equal(loaded('@fastify/ajv-compiler'), false);
  assert.equal(loaded('ajv'), false);
  assert.equal(loaded('@fastify/fast-json-stringify-compiler'), false);

  assert.equal(validate({ n: 1 }), true);
  assert.equal(validate({}), false);
  assert.match(JSON.stringify(validate.errors), /must have required property 'n'/);
  assert.equal(loaded('@fastify/ajv-compiler'), true);
  assert.equal(serialize({ n: 2, extra: true }), '{"n":2}');
  assert.equal(loaded('@fastify/fast-json-stringify-compiler'), true);
});
