// PostgreSQL up but refusing the service's database itself: `ALTER DATABASE … ALLOW_CONNECTIONS
// false` (maintenance, a restore in progress), every session of it ended. A new connection is
// then refused with SQLSTATE 55000, which the store took for a fault of the request (500); it is
// the database being unavailable, so every request answers 503 problem+json with Retry-After,
// over a real socket, and serves again once the database accepts sessions. Those 503s are
// logged once per outage window as a warning without a stack, not as an error per request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { logLines } from '../helpers/log-lines.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';

describe('the database refusing new sessions', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let admin: pg.Client;
  let name: string;
  let address: string;
  const log = logLines<{ level: number; source?: string; err?: unknown }>();

  before(async () => {
    // A clock that stands still: every request of the outage falls in one reporting window.
    const frozen = new Date('2026-03-01T12:00:00Z');
    service = await startTestService({
      work: false,
      clock: { now: () => frozen },
      logTo: log.stream,
      env: { LOG_LEVEL: 'warn' },
    });
    developer = await createDeveloper(service.ctx);
    const url = new URL(service.database!.url);
    name = decodeURIComponent(url.pathname.slice(1));
    url.pathname = '/postgres';
    admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    address = await service.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await admin?.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`).catch(() => {});
    await admin?.end();
    await service?.close();
  });

  const get = async (path: string) => {
    const response = await fetch(`${address}${path}`, { headers: developer.headers });
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      body: await response.text(),
      retryAfter: response.headers.get('retry-after'),
    };
  };

  test('answers 503 problem+json with Retry-After meanwhile, then serves again', async () => {
    assert.equal((await get('/v2/subscriptions')).status, 200);
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    // The first answers may come from sessions that were just ended (57P01); the later ones
    // open new sessions, which the server refuses (55000).
    const linesBefore = log.lines.length;
    for (let i = 0; i < 6; i++) {
      const answer = await get('/v2/subscriptions');
      assert.equal(answer.status, 503, answer.body);
      assert.match(answer.type, /^application\/problem\+json/);
      assert.ok(answer.retryAfter, 'says when to retry');
    }
    const outageLines = log.lines.slice(linesBefore);
    assert.deepEqual(
      outageLines.filter((line) => line.level >= 50),
      [],
      'no error line for a database being unavailable',
    );
    const requestLines = outageLines.filter((line) => line.source === 'http');
    assert.equal(requestLines.length, 1, 'one warning for the six requests');
    assert.equal(requestLines[0]?.err, undefined, 'without a stack');
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    assert.equal((await get('/v2/subscriptions')).status, 200);
  });
});
