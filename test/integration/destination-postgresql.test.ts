import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import {
  api,
  deauthEvent,
  destinationDeliveries,
  emit,
  replayDelivered,
  sleepEvent,
  waitForStatus,
} from '../helpers/destinations.ts';
import { insertUser } from '../helpers/users.ts';
import { withClient } from '../helpers/database.ts';
import {
  createDestinationDatabase,
  DESTINATION_ROLE,
  DESTINATION_SERVER as SERVER,
  destinationServerSkipReason,
  dropDestinationDatabase,
} from '../helpers/destination-database.ts';
import { until } from '../helpers/until.ts';

/**
 * The PostgreSQL destination against a second database on the local server (created here,
 * dropped after): Tributary's own tables there, upserts by record identity, deletion on
 * deauthentication, and the database refusing connections (ALLOW_CONNECTIONS false, every
 * backend terminated) and coming back. Retries are scaled 1000x down; a destination failing for
 * 2 s is disabled, so its events are held until it is enabled again.
 */
const skip = await destinationServerSkipReason();

describe('PostgreSQL destination', { ...(skip ? { skip } : {}) }, () => {
  let service: TestService;
  let developer: TestDeveloper;
  const database = `tributary_dest_${randomBytes(5).toString('hex')}`;
  // Owned by a role of its own: the service's role on the service's server is refused.
  const databaseUrl = (() => {
    const url = new URL(SERVER);
    url.username = DESTINATION_ROLE;
    url.pathname = `/${database}`;
    return url;
  })();
  // Trust authentication ignores the password; it is there to show it is never returned.
  const withPassword = (() => {
    const url = new URL(databaseUrl.href);
    url.username = url.username || 'postgres';
    url.password = 'pw-never-shown';
    return url.href;
  })();
  let destinationId = '';
  const query = <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    withClient(databaseUrl.href, (client) => client.query<R>(text, values)).then((result) => result.rows);

  before(async () => {
    await createDestinationDatabase(SERVER, database);
    service = await startTestService({
      env: { WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_FAILING_AFTER: '1s', WEBHOOK_DISABLE_AFTER: '2s' },
    });
    developer = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
    await dropDestinationDatabase(SERVER, database).catch(() => undefined);
  });

  test('created through the API over a real socket; the password is never returned and is stored sealed', async () => {
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    const response = await fetch(`${address}/v2/destinations`, {
      method: 'POST',
      headers: { ...developer.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'postgresql', name: 'warehouse', settings: { url: withPassword } }),
    });
    const text = await response.text();
    assert.equal(response.status, 201, text);
    assert.ok(!text.includes('pw-never-shown'), 'the password is not in the reply');
    const created = JSON.parse(text) as {
      id: string;
      settings: { url: string; schema: string };
      kind: string;
    };
    assert.equal(created.kind, 'postgresql');
    assert.equal(created.settings.schema, 'tributary');
    assert.match(created.settings.url, /:\*\*\*@/);
    destinationId = created.id;

    const listed = await api(service, developer, 'GET', '/v2/destinations');
    assert.equal(listed.status, 200);
    assert.ok(!listed.raw.includes('pw-never-shown'));
    assert.deepEqual(
      (listed.body.destinations as { kind: string }[]).map((d) => d.kind),
      ['webhook', 'postgresql'],
    );
    const stored = await service.ctx.db
      .selectFrom('webhook_destinations')
      .select(['settings', 'url'])
      .where('id', '=', destinationId)
      .executeTakeFirstOrThrow();
    assert.ok(stored.settings && !stored.settings.includes('pw-never-shown'), 'settings are sealed');
    assert.ok(!stored.url?.includes('pw-never-shown'), 'the attempt log target has no password');
  });

  test('bad settings are 400s naming the setting; unknown ids 404; the webhook cannot be deleted', async () => {
    const bad = async (body: object, pattern: RegExp) => {
      const response = await api(service, developer, 'POST', '/v2/destinations', body);
      assert.equal(response.status, 400, response.raw);
      assert.match(String(response.body.detail), pattern);
    };
    await bad({ kind: 'ftp', settings: {} }, /kind/);
    await bad({ kind: 'postgresql', settings: {} }, /^invalid settings\.url: required/);
    await bad(
      { kind: 'postgresql', settings: { url: 'http://x/db' } },
      /settings\.url: unsupported scheme http/,
    );
    await bad(
      { kind: 'postgresql', settings: { url: 'postgres://h:5432/' } },
      /settings\.url: names no database/,
    );
    await bad(
      { kind: 'postgresql', settings: { url: withPassword, schema: 'Bad-Name' } },
      /settings\.schema/,
    );
    await bad(
      { kind: 'postgresql', settings: { url: withPassword, port: 1 } },
      /settings\.port: unknown setting/,
    );

    const production = await createDeveloper(service.ctx, { environment: 'production' });
    const refused = await api(service, production, 'POST', '/v2/destinations', {
      kind: 'postgresql',
      settings: { url: withPassword },
    });
    assert.equal(refused.status, 400);
    assert.match(String(refused.body.detail), /settings\.url: .*127\.0\.0\.1/);

    assert.equal((await api(service, developer, 'GET', '/v2/destinations/not-a-uuid')).status, 400);
    const missing = await api(
      service,
      developer,
      'GET',
      '/v2/destinations/0b8f1c2e-5d6a-4e7b-9c1d-2f3a4b5c6d7e',
    );
    assert.equal(missing.status, 404);
    const list = (await api(service, developer, 'GET', '/v2/destinations')).body.destinations as {
      id: string;
    }[];
    const webhook = await api(service, developer, 'DELETE', `/v2/destinations/${list[0]!.id}`);
    assert.equal(webhook.status, 409);
  });

  test('records are upserted by identity: a night sent again updates its row, an older event never wins', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const [first] = await emit(service, developer, [
      sleepEvent(userId, ['2026-01-01', '2026-01-02', '2026-01-03'], 1),
    ]);
    await waitForStatus(service, developer, destinationId, 1, 'delivered');
    await emit(service, developer, [sleepEvent(userId, ['2026-01-02', '2026-01-03'], 2)]);
    const delivered = await waitForStatus(service, developer, destinationId, 2, 'delivered');

    const rows = await query<{ record_id: string; seconds: number }>(
      `SELECT record_id, (record #>> '{sleep_durations_data,asleep,duration_asleep_state_seconds}')::int AS seconds
         FROM tributary.sleep WHERE user_id = $1 ORDER BY record_id`,
      [userId],
    );
    assert.deepEqual(rows, [
      { record_id: 'sleep-2026-01-01', seconds: 3001 },
      { record_id: 'sleep-2026-01-02', seconds: 3002 },
      { record_id: 'sleep-2026-01-03', seconds: 3002 },
    ]);
    assert.equal((await query(`SELECT 1 FROM tributary.events`)).length, 2);
    assert.deepEqual(await query(`SELECT user_id, provider, active FROM tributary.users`), [
      { user_id: userId, provider: 'OURA', active: true },
    ]);

    // Replaying the older event to the destination changes nothing there.
    const older = delivered.find((d) => d.event_id !== delivered[0]!.event_id) ?? delivered[1]!;
    assert.ok(first, 'the webhook event id was returned');
    await replayDelivered(service, developer, destinationId, older.event_id);
    assert.deepEqual(
      await query(`SELECT count(*)::int AS n, count(DISTINCT record_id)::int AS ids FROM tributary.sleep`),
      [{ n: 3, ids: 3 }],
    );
    assert.equal((await query(`SELECT 1 FROM tributary.events`)).length, 2, 'no second event row');
    assert.deepEqual(
      await query(
        `SELECT (record #>> '{sleep_durations_data,asleep,duration_asleep_state_seconds}')::int AS seconds
           FROM tributary.sleep WHERE record_id = 'sleep-2026-01-02'`,
      ),
      [{ seconds: 3002 }],
    );
    // An event is stored once: the webhook's own log shows the same events, each once (its own
    // delivery of them), not the destination's deliveries as more rows.
    const webhookLog = await api(service, developer, 'GET', '/v2/webhook/deliveries');
    const webhookIds = (webhookLog.body.deliveries as { event_id: string }[]).map((d) => d.event_id);
    assert.equal(new Set(webhookIds).size, webhookIds.length);
    assert.ok(delivered.every((copy) => webhookIds.includes(copy.event_id)));
  });

  test('a deauth deletes the user’s records, and a later replay of an old event does not bring them back', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const before = (await destinationDeliveries(service, developer, destinationId)).length;
    await emit(service, developer, [sleepEvent(userId, ['2026-02-01', '2026-02-02'])]);
    await waitForStatus(service, developer, destinationId, before + 1, 'delivered');
    assert.equal((await query(`SELECT 1 FROM tributary.sleep WHERE user_id = $1`, [userId])).length, 2);
    const sleepCopy = (await destinationDeliveries(service, developer, destinationId))[0]!;

    await emit(service, developer, [deauthEvent(userId)]);
    await waitForStatus(service, developer, destinationId, before + 2, 'delivered');
    assert.equal((await query(`SELECT 1 FROM tributary.sleep WHERE user_id = $1`, [userId])).length, 0);
    assert.deepEqual(
      await query(
        `SELECT active, deauthenticated_at IS NOT NULL AS gone FROM tributary.users WHERE user_id = $1`,
        [userId],
      ),
      [{ active: false, gone: true }],
    );

    await replayDelivered(service, developer, destinationId, sleepCopy.event_id);
    assert.equal((await query(`SELECT 1 FROM tributary.sleep WHERE user_id = $1`, [userId])).length, 0);
  });

  test('the test send lands in the events table', async () => {
    const response = await api(service, developer, 'POST', `/v2/destinations/${destinationId}/test`);
    assert.equal(response.status, 202, response.raw);
    const eventId = String(response.body.event_id);
    await until(
      'the healthcheck row',
      async () =>
        (await query(`SELECT type FROM tributary.events WHERE event_id = $1`, [eventId])).length === 1,
    );
  });

  test('the database refusing connections: events are retried, then held once it is disabled, then released', async () => {
    const userId = await insertUser(service.ctx, { developerId: developer.devId, provider: 'OURA' });
    const known = (await destinationDeliveries(service, developer, destinationId)).length;
    await withClient(SERVER, async (client) => {
      await client.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
      await client.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [database],
      );
    });
    await emit(service, developer, [
      sleepEvent(userId, ['2026-03-01']),
      sleepEvent(userId, ['2026-03-02']),
      sleepEvent(userId, ['2026-03-03']),
    ]);
    const held = await until(
      'the destination disabled and its events held',
      async () => (await api(service, developer, 'GET', `/v2/destinations/${destinationId}`)).body,
      { done: (body) => body.status === 'disabled' && body.held_events === 3 },
    );
    assert.equal(held.enabled, false);
    const log = await destinationDeliveries(service, developer, destinationId);
    const failed = log.filter((d) => d.status === 'held');
    assert.equal(failed.length, 3);
    assert.ok(
      failed.some((d) =>
        d.attempts.some(
          (a) => a.outcome === 'retry' && /not currently accepting|terminat|connect/i.test(a.error ?? ''),
        ),
      ),
      `the attempts name the refusal: ${JSON.stringify(failed.map((d) => d.attempts.map((a) => a.error)))}`,
    );

    await withClient(SERVER, (client) => client.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`));
    const enabled = await api(service, developer, 'PATCH', `/v2/destinations/${destinationId}`, {
      enabled: true,
    });
    assert.equal(enabled.status, 200, enabled.raw);
    assert.equal(enabled.body.replayed, 3);
    await waitForStatus(service, developer, destinationId, known + 3, 'delivered');
    assert.deepEqual(
      await query(`SELECT record_id FROM tributary.sleep WHERE user_id = $1 ORDER BY record_id`, [userId]),
      [
        { record_id: 'sleep-2026-03-01' },
        { record_id: 'sleep-2026-03-02' },
        { record_id: 'sleep-2026-03-03' },
      ],
    );
  });

  test('deleting the destination stops its copies and removes its log', async () => {
    const response = await api(service, developer, 'DELETE', `/v2/destinations/${destinationId}`);
    assert.equal(response.status, 204);
    assert.equal((await api(service, developer, 'GET', `/v2/destinations/${destinationId}`)).status, 404);
    const left = await service.ctx.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('destination_id', '=', destinationId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 0);
  });
});
