import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import type { Db } from '../../src/store/db.ts';
import { queryTemplate } from '../../src/store/query-template.ts';

/** A Kysely that runs nothing: it records each statement it is given and answers no rows. */
function recordingDb(): { db: Db; seen: CompiledQuery[] } {
  const seen: CompiledQuery[] = [];
  const connection: DatabaseConnection = {
    async executeQuery(query) {
      seen.push(query);
      return { rows: [] };
    },
    // eslint-disable-next-line require-yield -- never streams
    async *streamQuery() {
      throw new Error('not used');
    },
  };
  const driver: Driver = {
    async init() {},
    async acquireConnection() {
      return connection;
    },
    async beginTransaction() {},
    async commitTransaction() {},
    async rollbackTransaction() {},
    async releaseConnection() {},
    async destroy() {},
  };
  const db = new Kysely({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }) as unknown as Db;
  return { db, seen };
}

test('a template runs the statement Kysely builds, with each call’s values in place', async () => {
  const { db, seen } = recordingDb();
  const build = (kysely: Db, input: { userId: string; limit: number; at: Date }) =>
    kysely
      .selectFrom('connections')
      .select('id')
      .where('id', '=', input.userId)
      .where('status', '<>', 'pending')
      .where(sql<boolean>`${input.at}::timestamptz < now()`)
      .limit(input.limit);
  const run = queryTemplate(['userId', 'limit', 'at'], build);
  const at = new Date(0);
  await run(db, { userId: 'u1', limit: 5, at });
  await run(db, { userId: 'u2', limit: 7, at });
  const direct = build(db, { userId: 'u2', limit: 7, at }).compile();
  assert.equal(seen[1]!.sql, direct.sql);
  assert.deepEqual(seen[1]!.parameters, direct.parameters);
  assert.deepEqual(seen[0]!.parameters, ['u1', 'pending', at, 5]);
});

test('an input that does not reach the statement as a parameter is refused', async () => {
  const { db } = recordingDb();
  const unused = queryTemplate(['userId', 'other'], (kysely: Db, input: { userId: string; other: string }) =>
    kysely.selectFrom('connections').select('id').where('id', '=', input.userId),
  );
  await assert.rejects(unused(db, { userId: 'u', other: 'o' }), /other is not a parameter/);
  const inlined = queryTemplate(['userId'], (kysely: Db, input: { userId: string }) =>
    kysely.selectFrom('connections').select(sql.lit(input.userId).as('x')),
  );
  await assert.rejects(inlined(db, { userId: 'u' }), /inlined/);
});
