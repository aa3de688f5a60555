// The OAuth callback when PostgreSQL refuses its work half-way, after the state is spent and the
// provider has handed the tokens over: a deadlock provoked on purpose, then the service's
// connection terminated on every try. The answer is a redirect (the work run again) or a 503
// problem+json with Retry-After, never a 500, and the same auth link still works afterwards.
//
// The tests reach inside the callback's transaction with a trigger on `provider_tokens` (in the
// test's own database) that takes an advisory lock the test holds: the service's insert waits
// there, where the test can deadlock it or terminate its connection.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { authenticateUser, callback, decideSandboxConsent } from '../helpers/connections.ts';
import { until } from '../helpers/until.ts';

const GATE = 4242;
const DEADLOCK_CHECK = '3s';

describe('the OAuth callback when the database refuses mid-way', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let admin: pg.Client;

  before(async () => {
    service = await startTestService({ work: false });
    developer = await createDeveloper(service.ctx);
    admin = new pg.Client({ connectionString: service.database!.url });
    await admin.connect();
    await admin.query(`
      CREATE FUNCTION test_gate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The waiter checks for a deadlock this long after it starts waiting: by then the
        -- holder waits on it too, so the check finds the cycle and fails the service's side.
        PERFORM set_config('deadlock_timeout', '${DEADLOCK_CHECK}', true);
        PERFORM pg_advisory_xact_lock(${GATE});
        RETURN NULL;
      END $$;
      CREATE TRIGGER test_gate AFTER INSERT ON provider_tokens FOR EACH ROW EXECUTE FUNCTION test_gate();
    `);
  });
  after(async () => {
    await admin?.end();
    await service?.close();
  });

  /** A second session that holds the gate until `open()`; deadlocks never pick it as the victim. */
  async function closeGate() {
    const holder = new pg.Client({ connectionString: service.database!.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`SET LOCAL deadlock_timeout = '60s'`);
    await holder.query('SELECT pg_advisory_xact_lock($1)', [GATE]);
    return {
      holder,
      async open() {
        await holder.query('ROLLBACK');
        await holder.end();
      },
    };
  }

  /** The backend of the service waiting at the gate now, if one is. */
  const atGate = async () => {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [GATE],
    );
    return rows[0]?.pid;
  };

  const statusOf = async (userId: string) =>
    (await admin.query<{ status: string }>('SELECT status FROM connections WHERE id = $1', [userId])).rows[0]
      ?.status;

  test('a deadlock in the activating transaction: run again, the browser is sent on, the tokens kept', async () => {
    const { userId, authUrl } = await authenticateUser(service.app, developer, 'SANDBOX', {
      reference_id: 'deadlocked',
    });
    const back = await decideSandboxConsent(service.app, authUrl, 'approve', 'deadlock-account');
    const gate = await closeGate();
    const answer = callback(service.app, back);
    await until('the service waiting at the gate', atGate);
    // The service's transaction has inserted the tokens and waits for the gate; the holder now
    // waits for that row: a cycle PostgreSQL breaks by failing the service's transaction (40P01).
    await gate.holder.query(
      `INSERT INTO provider_tokens (user_id, access_token, updated_at) VALUES ($1, 'holder', now())`,
      [userId],
    );
    await gate.open();
    const response = await answer;
    assert.equal(response.statusCode, 302, response.body);
    const location = new URL(String(response.headers.location));
    assert.equal(location.searchParams.get('user_id'), userId);
    assert.equal(await statusOf(userId), 'active');
    const tokens = await admin.query<{ access_token: string }>(
      'SELECT access_token FROM provider_tokens WHERE user_id = $1',
      [userId],
    );
    assert.equal(tokens.rows.length, 1);
    assert.notEqual(tokens.rows[0]!.access_token, 'holder');
  });

  test('the connection lost on every try: a 503 problem to retry, and the same link works afterwards', async () => {
    const { userId, authUrl } = await authenticateUser(service.app, developer, 'SANDBOX', {
      reference_id: 'terminated',
    });
    const back = await decideSandboxConsent(service.app, authUrl, 'approve', 'terminated-account');
    const gate = await closeGate();
    let settled = false;
    const answer = callback(service.app, back).finally(() => {
      settled = true;
    });
    let terminated = 0;
    try {
      // Each try of the transaction reaches the gate on a connection of its own; each is ended.
      while (!settled) {
        const pid = await until('a try at the gate, or the answer', async () =>
          settled ? -1 : await atGate(),
        );
        if (pid === -1) break;
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        terminated += 1;
      }
    } finally {
      await gate.open();
    }
    const response = await answer;
    assert.ok(terminated >= 1);
    const problem = problemOf(response);
    assert.equal(problem.status, 503, response.body);
    assert.match(problem.contentType, /^application\/problem\+json/);
    assert.ok(Number(response.headers['retry-after']) > 0);
    assert.equal(await statusOf(userId), 'pending', 'nothing was half-done');

    // The person goes through the provider's consent again with the same link: connected.
    const again = await decideSandboxConsent(service.app, authUrl, 'approve', 'terminated-account');
    const retried = await callback(service.app, again);
    assert.equal(retried.statusCode, 302, retried.body);
    assert.equal(new URL(String(retried.headers.location)).searchParams.get('user_id'), userId);
    assert.equal(await statusOf(userId), 'active');
  });

  test('a flow that spent its state and died without giving it back is failed at its expiry', async () => {
    const { userId } = await authenticateUser(service.app, developer, 'SANDBOX', { reference_id: 'died' });
    // What a flow leaves when the database went away before it could give its state back.
    const { rows } = await admin.query<{ id: string }>(
      `UPDATE auth_sessions SET consumed_at = now() - interval '20 minutes', expires_at = now() - interval '1 minute'
        WHERE user_id = $1 RETURNING id`,
      [userId],
    );
    assert.equal(await statusOf(userId), 'pending');
    assert.equal(await service.ctx.connecting.expireAuthSession(rows[0]!.id), true);
    assert.equal(await statusOf(userId), undefined, 'the pending connection is gone, its auth error sent');
    assert.equal(await service.ctx.connecting.expireAuthSession(rows[0]!.id), false, 'once');
  });

  test('a flow that spent its state a moment ago is left to finish, even past its expiry', async () => {
    const { userId } = await authenticateUser(service.app, developer, 'SANDBOX', { reference_id: 'running' });
    const { rows } = await admin.query<{ id: string }>(
      `UPDATE auth_sessions SET consumed_at = now(), expires_at = now() - interval '1 second'
        WHERE user_id = $1 RETURNING id`,
      [userId],
    );
    assert.equal(await service.ctx.connecting.expireAuthSession(rows[0]!.id), false);
    assert.equal(await statusOf(userId), 'pending');
  });
});
