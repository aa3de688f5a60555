import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AppError,
  databaseFault,
  databaseUnavailable,
  postgresFault,
  isDatabaseConnectionError,
  isDatabaseContentionError,
  isDiskFullError,
  isStatementTimeoutError,
  isTransientDatabaseError,
  markDatabaseError,
} from '../../src/core/errors.ts';
import { faultReporter } from '../../src/store/fault-reporter.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test('connection-class database errors are recognized; statement errors are not', () => {
  for (const error of [
    withCode('terminating connection due to administrator command', '57P01'),
    withCode('the database system is shutting down', '57P02'),
    withCode('the database system is starting up', '57P03'),
    withCode('sorry, too many clients already', '53300'),
    // The server refusing the session itself: these fell through to a 500 before.
    Object.assign(withCode('database "t" is not currently accepting connections', '55000'), {
      routine: 'CheckMyDatabase',
    }),
    Object.assign(withCode('la base de données « t » n’accepte plus les connexions', '55000'), {
      routine: 'CheckMyDatabase',
    }),
    withCode('database "t" is not currently accepting connections (Queue: q, Worker: w)', '55000'),
    Object.assign(withCode('database "t" does not exist', '3D000'), { routine: 'InitPostgres' }),
    withCode('terminating connection due to idle-session timeout', '57P05'),
    withCode('connection failure', '08006'),
    withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    withCode('read ECONNRESET', 'ECONNRESET'),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
  ])
    assert.ok(isDatabaseConnectionError(error), error.message);

  for (const error of [
    withCode('duplicate key value violates unique constraint', '23505'),
    withCode('syntax error at or near "selec"', '42601'),
    withCode('canceling statement due to statement timeout', '57014'),
    // The same codes raised by a statement are the statement's.
    Object.assign(withCode('currval of sequence "s" is not yet defined in this session', '55000'), {
      routine: 'currval_oid',
    }),
    Object.assign(withCode('database "x" does not exist', '3D000'), { routine: 'dropdb' }),
    new TypeError('fetch failed'),
    'Connection terminated',
    undefined,
  ])
    assert.equal(isDatabaseConnectionError(error), false, String(error));
});

test('a database outage is a 503 service-unavailable problem with Retry-After', () => {
  const error = databaseUnavailable(withCode('connect ECONNREFUSED', 'ECONNREFUSED'));
  assert.ok(error instanceof AppError);
  assert.equal(error.status, 503);
  assert.equal(error.kind, 'service_unavailable');
  assert.ok(Number(error.headers['retry-after']) > 0);
});

test('a full disk is a 507 insufficient-storage problem; other database errors stay internal', () => {
  const full = withCode('could not extend file "base/5/16390": No space left on device', '53100');
  assert.ok(isDiskFullError(full));
  assert.ok(isDiskFullError(withCode('ENOSPC: no space left on device, write', 'ENOSPC')));
  assert.equal(databaseFault(full)?.status, 507);
  assert.equal(databaseFault(full)?.kind, 'insufficient_storage');
  assert.equal(databaseFault(withCode('read ECONNRESET', 'ECONNRESET'))?.status, 503);
  assert.equal(databaseFault(withCode('duplicate key value violates unique constraint', '23505')), undefined);
});

test('a database fault wrapped in other errors is still a database fault', () => {
  const refused = withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED');
  const wrapped = new Error('could not store the tokens', { cause: refused });
  const deeper = new Error('callback failed', { cause: new Error('token store', { cause: wrapped }) });
  for (const error of [
    wrapped,
    deeper,
    new AggregateError([new Error('other'), refused], 'both attempts failed'),
  ]) {
    assert.ok(isDatabaseConnectionError(error), error.message);
    const fault = databaseFault(error);
    assert.equal(fault?.status, 503, error.message);
    assert.ok(Number(fault?.headers['retry-after']) > 0);
  }
  // A library's own error type keeps the database's error in `cause` without Error options.
  const libraryError = Object.assign(new Error('Queue x does not exist'), {
    cause: withCode('sorry, too many clients already', '53300'),
  });
  assert.equal(databaseFault(libraryError)?.status, 503);
  const full = new Error('write failed', { cause: withCode('could not extend file', '53100') });
  assert.equal(databaseFault(full)?.status, 507);
  assert.ok(isDiskFullError(full));
});

test("pg-boss's copy of a worker's error (a plain object with its fields) is recognized too", () => {
  // What pg-boss emits on 'error' when a worker's fetch fails: the error's fields spread into an object.
  const refused = withCode('sorry, too many clients already', '53300');
  const emitted = { ...refused, message: `${refused.message} (Queue: q, Worker: w)`, stack: refused.stack };
  assert.ok(isDatabaseConnectionError(emitted));
  assert.ok(isDiskFullError({ message: 'could not extend file', code: '53100' }));
  assert.equal(isDatabaseConnectionError({ message: 'duplicate key', code: '23505' }), false);
  assert.equal(isDatabaseConnectionError({ code: '53300' }), false, 'not error-like without a message');
});

test("a provider's socket error under a wrapper is not taken for PostgreSQL's by postgresFault", () => {
  // What fetch throws when a provider refuses the connection, wrapped by the OAuth client.
  const providerDown = new Error('provider unreachable: fetch failed', {
    cause: new TypeError('fetch failed', {
      cause: withCode('connect ECONNREFUSED 10.0.0.9:443', 'ECONNREFUSED'),
    }),
  });
  assert.equal(postgresFault(providerDown), undefined);
  assert.equal(
    postgresFault(new Error('x', { cause: withCode('ENOSPC: no space left on device', 'ENOSPC') })),
    undefined,
  );
  // PostgreSQL's own words still count, wrapped or not.
  for (const error of [
    new Error('exchange failed', { cause: withCode('sorry, too many clients already', '53300') }),
    new Error('exchange failed', { cause: new Error('timeout exceeded when trying to connect') }),
    new Error('exchange failed', { cause: withCode('deadlock detected', '40P01') }),
  ])
    assert.equal(postgresFault(error)?.status, 503, error.message);
});

test('a deadlock or a serialization failure is a 503 to retry, not a 500', () => {
  const deadlock = withCode('deadlock detected', '40P01');
  const serialization = withCode('could not serialize access due to concurrent update', '40001');
  for (const error of [deadlock, serialization, new Error('activation failed', { cause: deadlock })]) {
    assert.ok(isDatabaseContentionError(error), error.message);
    assert.ok(isTransientDatabaseError(error), error.message);
    assert.equal(isDatabaseConnectionError(error), false, error.message);
    const fault = databaseFault(error);
    assert.equal(fault?.status, 503, error.message);
    assert.equal(fault?.kind, 'service_unavailable');
    assert.ok(Number(fault?.headers['retry-after']) > 0);
  }
  assert.equal(
    isTransientDatabaseError(withCode('duplicate key value violates unique constraint', '23505')),
    false,
  );
  assert.equal(isTransientDatabaseError(withCode('could not extend file', '53100')), false);
});

test('a statement cut at its deadline is a 503 to retry later, not a 500 nor a retry at once', () => {
  const cut = withCode('canceling statement due to statement timeout', '57014');
  for (const error of [cut, new Error('read failed', { cause: cut })]) {
    assert.ok(isStatementTimeoutError(error), error.message);
    // Run again at once, the same statement would most likely be cut again.
    assert.equal(isTransientDatabaseError(error), false, error.message);
    const fault = databaseFault(error);
    assert.equal(fault?.status, 503, error.message);
    assert.equal(fault?.kind, 'service_unavailable');
    assert.match(fault!.message, /in time/);
    assert.ok(Number(fault?.headers['retry-after']) > 0);
  }
  assert.equal(isStatementTimeoutError(withCode('deadlock detected', '40P01')), false);
});

test('the cause chain is followed to a bounded depth and survives cycles', () => {
  const refused = withCode('connect ECONNREFUSED', 'ECONNREFUSED');
  let nested: Error = refused;
  for (let level = 0; level < 8; level++) nested = new Error(`level ${level}`, { cause: nested });
  assert.equal(databaseFault(nested)?.status, 503);
  // Past the bound, a wrapper is judged by what it shows.
  let tooDeep: Error = refused;
  for (let level = 0; level < 40; level++) tooDeep = new Error(`level ${level}`, { cause: tooDeep });
  assert.equal(databaseFault(tooDeep), undefined);
  const first = new Error('first');
  const second = new Error('second', { cause: first });
  (first as { cause?: unknown }).cause = second;
  assert.equal(databaseFault(first), undefined);
  assert.equal(databaseFault(new Error('bug', { cause: 'a string cause' })), undefined);
  assert.equal(databaseFault(new AggregateError([], 'nothing')), undefined);
});

test('lost connections are reported once per window, with how many failures the line stands for', () => {
  const lines: Record<string, unknown>[] = [];
  const log = { warn: (fields: Record<string, unknown>) => lines.push(fields) };
  let now = 0;
  const report = faultReporter(log, { source: 'pool', message: 'lost' }, () => now);
  const lost = withCode('terminating connection due to administrator command', '57P01');
  report(lost);
  report(lost);
  report(lost);
  assert.equal(lines.length, 1);
  now = 10_000;
  report(lost);
  assert.equal(lines.length, 2);
  assert.equal(lines[1]?.failuresSinceLastReport, 2);
  assert.equal(lines[1]?.code, '57P01');
  assert.equal('client' in (lines[1] ?? {}), false);
});

test("another service's socket error is a 503 that names it, not the database", () => {
  // What an S3 client or a provider's API lets escape when its host refuses the connection.
  const refused = Object.assign(withCode('connect ECONNREFUSED 10.0.0.9:443', 'ECONNREFUSED'), {
    address: '10.0.0.9',
    port: 443,
  });
  for (const error of [refused, new Error('the upload failed', { cause: refused })]) {
    const fault = databaseFault(error);
    assert.equal(fault?.status, 503);
    assert.ok(Number(fault?.headers['retry-after']) > 0);
    assert.doesNotMatch(fault!.message, /database/);
    assert.match(fault!.message, /10\.0\.0\.9:443/);
    assert.match(fault!.message, /ECONNREFUSED/);
  }
  const unresolved = Object.assign(withCode('getaddrinfo EAI_AGAIN s3.example.com', 'EAI_AGAIN'), {
    hostname: 's3.example.com',
  });
  assert.match(databaseFault(unresolved)!.message, /s3\.example\.com/);
  // The same code raised by the store's own client is the database's, wrapped or not.
  const ours = markDatabaseError(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'));
  for (const error of [ours, new Error('could not store the tokens', { cause: ours })]) {
    assert.match(databaseFault(error)!.message, /the database is unreachable/);
    assert.match(postgresFault(error)!.message, /the database is unreachable/);
  }
  // PostgreSQL's own words need no mark.
  assert.match(
    databaseFault(withCode('sorry, too many clients already', '53300'))!.message,
    /the database is unreachable/,
  );
});
