// Every statement of the store's pools has a deadline (statement_timeout, store/db.ts); work that
// legitimately runs longer lifts it for itself. A tiny deadline and pg_sleep show both without
// timing anything: a statement past the deadline fails with PostgreSQL's cancel, an exempt one
// returns its row.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { databaseFault } from '../../src/core/errors.ts';
import {
  liftStatementDeadline,
  openStore,
  type Store,
  withoutStatementDeadline,
} from '../../src/store/db.ts';
import { createDeveloper, startTestService } from '../helpers/app.ts';
import { testDatabaseUrl } from '../helpers/database.ts';
import { insertUser } from '../helpers/users.ts';

// Far below the sleeps below; one connection, so the session asked about is the one that ran.
const DEADLINE_MS = 50;
const LONGER_S = 1;

let store: Store;
before(async () => {
  store = await openStore({
    databaseUrl: await testDatabaseUrl(),
    dataDir: undefined,
    poolSize: 1,
    statementTimeoutMs: DEADLINE_MS,
  });
});
after(async () => {
  await store?.close();
});

const sleep = (db: Store['db']) =>
  sql<{ slept: string }>`select pg_sleep(${LONGER_S})::text as slept`.execute(db);

test('a statement that runs past the deadline is cut, and the client is told to retry (503)', async () => {
  const error = await sleep(store.db).then(
    () => assert.fail('the statement ran past its deadline'),
    (caught: unknown) => caught,
  );
  assert.equal((error as { code?: unknown }).code, '57014');
  const fault = databaseFault(error);
  assert.equal(fault?.status, 503);
  assert.match(fault!.message, /did not answer this request in time/);
  assert.ok(Number(fault!.headers['retry-after']) > 0);
});

test('a transaction that lifts the deadline runs its long statement to the end', async () => {
  const { rows } = await store.db.transaction().execute(async (trx) => {
    await liftStatementDeadline(trx);
    return sleep(trx);
  });
  assert.equal(rows.length, 1);
  // Lifted for that transaction only: the connection's next statement has the deadline again.
  await assert.rejects(sleep(store.db), { code: '57014' });
});

test('lifting the deadline outside a transaction is refused, not silently ignored', async () => {
  await assert.rejects(liftStatementDeadline(store.db), /not in a transaction/);
});

test('work without the deadline runs long statements, and the connection gets it back after', async () => {
  const { rows } = await withoutStatementDeadline(store.db, async (connection) => {
    await sleep(connection);
    return connection.transaction().execute((trx) => sleep(trx));
  });
  assert.equal(rows.length, 1);
  const shown = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(store.db);
  assert.equal(shown.rows[0]?.statement_timeout, `${DEADLINE_MS}ms`);
  await assert.rejects(sleep(store.db), { code: '57014' });
});

test('a request whose statement is cut at the deadline is answered 503 problem+json with Retry-After', async () => {
  const service = await startTestService({ env: { DATABASE_STATEMENT_TIMEOUT_SECONDS: '1' } });
  // Another session holds the connections table: the request's read waits on it past the deadline.
  const holder = new pg.Client({ connectionString: service.ctx.store.postgres.connectionString });
  holder.on('error', () => {});
  try {
    const developer = await createDeveloper(service.ctx);
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'GARMIN' });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE connections IN ACCESS EXCLUSIVE MODE');
    const response = await service.app.inject({
      method: 'GET',
      url: `/v2/userInfo?user_id=${userId}`,
      headers: developer.headers,
    });
    assert.equal(response.statusCode, 503, response.body);
    assert.match(response.headers['content-type'] ?? '', /application\/problem\+json/);
    assert.ok(Number(response.headers['retry-after']) > 0);
    assert.match((response.json() as { detail: string }).detail, /did not answer this request in time/);
  } finally {
    await holder.end().catch(() => {});
    await service.close();
  }
});
