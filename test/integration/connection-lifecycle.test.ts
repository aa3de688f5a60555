import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/core/log.ts';
import { createLifecycle } from '../../src/features/connecting/lifecycle.ts';
import { insertRawPayload } from '../../src/features/data/raw-payloads-repo.ts';
import {
  type FakeOAuthProvider,
  fakeEnv,
  OURA_PROFILE,
  startFakeOAuthProvider,
} from '../fakes/oauth-provider.ts';
import {
  createDeveloper,
  problemOf,
  startTestService,
  type TestDeveloper,
  type TestService,
} from '../helpers/app.ts';
import { logLines } from '../helpers/log-lines.ts';
import { authenticateUser, callback, connectSandboxUser } from '../helpers/connections.ts';
import { dataRowCounts } from '../helpers/users.ts';
import { deliveries, type DeliveryView } from '../helpers/webhook-api.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { until } from '../helpers/until.ts';

type Event = Record<string, unknown> & { type: string; user?: { user_id: string } };

describe('connection lifecycle: deauthentication, provider-side events, SDK tokens', () => {
  let service: TestService;
  let oura: FakeOAuthProvider;
  let receiver: WebhookReceiver;
  let dev: TestDeveloper;
  let other: TestDeveloper;

  const events = (): Event[] => receiver.received.map((entry) => JSON.parse(entry.body) as Event);
  const waitForEvent = async (type: string, userId: string) => {
    const match = (e: Event) => e.type === type && e.user?.user_id === userId;
    await receiver.waitFor(() => events().some(match), `${type} for ${userId}`);
    return events().filter(match);
  };
  const deauth = (userId: string, developer = dev) =>
    service.app.inject({
      method: 'DELETE',
      url: `/v2/auth/deauthenticateUser?user_id=${userId}`,
      headers: developer.headers,
    });
  const userInfo = (userId: string) =>
    service.app.inject({ method: 'GET', url: `/v2/userInfo?user_id=${userId}`, headers: dev.headers });

  async function connectOura(account: string): Promise<string> {
    oura.account = account;
    const { userId, authUrl } = await authenticateUser(service.app, dev, 'OURA');
    assert.equal((await callback(service.app, await oura.authorize(authUrl.toString()))).statusCode, 302);
    return userId;
  }

  before(async () => {
    oura = await startFakeOAuthProvider(OURA_PROFILE);
    receiver = await startWebhookReceiver();
    service = await startTestService({ env: fakeEnv('OURA', oura) });
    dev = await createDeveloper(service.ctx);
    other = await createDeveloper(service.ctx, { name: 'Other developer' });
    await service.ctx.webhooks.setDestination(dev.devId, { url: receiver.url });
  });
  after(async () => {
    await service?.close();
    await Promise.all([oura?.close(), receiver?.close()]);
  });

  test('deauthenticateUser revokes at the provider, deletes the user and its tokens, sends deauth', async () => {
    const userId = await connectOura('deauth-me');
    const issued = oura.issuedAccessTokens.at(-1);
    const revocationsBefore = oura.revocations.length;
    const response = await deauth(userId);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { status: 'success' });
    assert.deepEqual(oura.revocations.at(-1), { method: 'POST', token: issued, authorization: undefined });
    assert.equal(oura.revocations.length, revocationsBefore + 1, 'revoked once');
    assert.equal((await userInfo(userId)).statusCode, 404);
    const tokens = await service.ctx.db
      .selectFrom('provider_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .execute();
    assert.equal(tokens.length, 0);
    const sessions = await service.ctx.db
      .selectFrom('auth_sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .execute();
    assert.equal(sessions.length, 0);
    const [event] = await waitForEvent('deauth', userId);
    assert.equal(event?.status, 'success');
    assert.equal(event?.message, 'User has deauthenticated');
    assert.equal(
      (event?.user as { active?: boolean } | undefined)?.active,
      false,
      'the user receives no more data',
    );
    assert.equal((await deauth(userId)).statusCode, 404, 'a second time: gone');
  });

  test('deauthenticating a connector user deletes its raw payloads with it, and nobody else’s', async () => {
    const doomed = await connectOura('raw-doomed');
    const keeper = await connectOura('raw-keeper');
    const marker = `deauth-${Date.now()}`;
    for (const [userId, copies] of [
      [doomed, 2],
      [keeper, 1],
    ] as const) {
      for (let copy = 0; copy < copies; copy++) {
        await insertRawPayload(service.ctx.db, {
          userId,
          provider: 'OURA',
          type: 'sleep',
          fetchedAt: new Date(),
          payload: { marker, userId, copy },
        });
      }
    }
    const rawRows = async () =>
      (await service.ctx.db.selectFrom('raw_payloads').select(['user_id', 'payload']).execute()).filter(
        (row) => JSON.stringify(row.payload).includes(marker),
      );
    // Counted by marker: the connection's own first sync may store raw payloads of the doomed user
    // too, before or after this point (a loaded run saw 3); those must go with it as well.
    const before = await rawRows();
    assert.equal(before.length, 3);
    assert.equal(before.filter((row) => row.user_id === doomed).length, 2);

    assert.equal((await deauth(doomed)).statusCode, 200);
    // Gone from the table, not merely detached from the user: every remaining row is the keeper's.
    const remaining = await rawRows();
    assert.deepEqual(
      remaining.map((row) => row.user_id),
      [keeper],
    );
    assert.deepEqual(await dataRowCounts(service.ctx, doomed), {
      records: 0,
      raw: 0,
      coverage: 0,
      buckets: 0,
    });
    assert.equal((await userInfo(keeper)).statusCode, 200);
  });

  test('deauthentication drops the user’s pending data events; the deauth notice and other users’ events stay', async () => {
    // No destination: every event is held, so nothing is delivered before the deauthentication.
    const quiet = await createDeveloper(service.ctx, { name: 'No destination' });
    const doomed = (await connectSandboxUser(service.app, quiet)).userId;
    const keeper = (await connectSandboxUser(service.app, quiet)).userId;
    const heldDataEvent = async (userId: string) => {
      const response = await service.app.inject({
        method: 'GET',
        url: `/v2/body?user_id=${userId}&start_date=2024-01-01&end_date=2024-01-05`,
        headers: quiet.headers,
      });
      assert.equal(response.statusCode, 200, response.body);
      let found: DeliveryView | undefined;
      await until(`a held body event for ${userId}`, async () => {
        found = (await deliveries(service, quiet, '?limit=200')).find(
          (delivery) => delivery.user_id === userId && delivery.type === 'body' && delivery.status === 'held',
        );
        return found !== undefined;
      });
      return found!.event_id;
    };
    const doomedEvent = await heldDataEvent(doomed);
    const keeperEvent = await heldDataEvent(keeper);

    assert.equal((await deauth(doomed, quiet)).statusCode, 200);
    // The deauth notice is written pending; a worker holds it once it finds no destination.
    let after: DeliveryView[] = [];
    await until('the deauth notice held for want of a destination', async () => {
      after = await deliveries(service, quiet, '?limit=200');
      return after.some(
        (delivery) => delivery.user_id === doomed && delivery.type === 'deauth' && delivery.status === 'held',
      );
    });
    const byId = (id: string) => after.find((delivery) => delivery.event_id === id);
    assert.equal(byId(doomedEvent)?.status, 'dropped');
    assert.equal(byId(doomedEvent)?.last_error, 'user deauthenticated');
    assert.equal(byId(keeperEvent)?.status, 'held', 'another user’s event is untouched');
    const notices = after.filter((delivery) => delivery.user_id === doomed && delivery.type !== 'body');
    assert.deepEqual(notices.map((delivery) => [delivery.type, delivery.status]).sort(), [
      ['auth', 'held'],
      ['deauth', 'held'],
    ]);
  });

  test('a provider that fails to revoke does not keep the user connected', async () => {
    const userId = await connectOura('revocation-fails');
    oura.revocationStatus = 500;
    try {
      assert.equal((await deauth(userId)).statusCode, 200);
    } finally {
      oura.revocationStatus = 200;
    }
    assert.equal((await userInfo(userId)).statusCode, 404);
  });

  /** The developer's erasure receipts for a user. */
  const receiptsOf = (userId: string) =>
    service.ctx.db.selectFrom('erasure_receipts').select('id').where('user_id', '=', userId).execute();

  test('a deletion the database gave up once (a deadlock with the user’s own jobs) is tried again, not answered 503', async () => {
    const userId = await connectOura('deadlocked');
    const revocationsBefore = oura.revocations.length;
    const webhooks = service.ctx.webhooks;
    const original = webhooks.emit;
    let deadlocks = 1;
    webhooks.emit = async (trx, developerId, envelope) => {
      if (envelope.type === 'deauth' && deadlocks-- > 0)
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      return original(trx, developerId, envelope);
    };
    try {
      const response = await deauth(userId);
      assert.equal(response.statusCode, 200, response.body);
    } finally {
      webhooks.emit = original;
    }
    assert.equal(deadlocks, -1, 'the deadlock was met');
    assert.equal(oura.revocations.length, revocationsBefore + 1, 'revoked once, not once per try');
    assert.equal((await userInfo(userId)).statusCode, 404);
    assert.equal((await receiptsOf(userId)).length, 1, 'one receipt');
    assert.equal((await waitForEvent('deauth', userId)).length, 1, 'one deauth event');
  });

  test('a deletion whose connection went as it committed is found done on the next try, not a 404', async () => {
    const userId = await connectOura('lost-at-commit');
    const db = service.ctx.db;
    const webhooks = service.ctx.webhooks;
    const emit = webhooks.emit;
    const transaction = db.transaction;
    // Only the deauthentication's own transaction loses its connection, after its commit.
    let deleting = false;
    let losses = 1;
    webhooks.emit = async (trx, developerId, envelope) => {
      if (envelope.type === 'deauth') deleting = true;
      return emit(trx, developerId, envelope);
    };
    db.transaction = function (this: typeof db) {
      const builder = transaction.call(this);
      const execute = builder.execute.bind(builder);
      return Object.assign(builder, {
        execute: async <T>(work: (trx: typeof db) => Promise<T>) => {
          const result = await execute(work as never);
          if (deleting && losses > 0) {
            losses -= 1;
            throw new Error('Connection terminated unexpectedly');
          }
          return result as T;
        },
      });
    } as typeof db.transaction;
    try {
      const response = await deauth(userId);
      assert.equal(response.statusCode, 200, response.body);
    } finally {
      webhooks.emit = emit;
      db.transaction = transaction;
    }
    assert.equal(losses, 0, 'the lost connection was met');
    assert.equal((await userInfo(userId)).statusCode, 404);
    assert.equal((await receiptsOf(userId)).length, 1, 'one receipt');
  });

  test('deauthenticating a sandbox user (nothing to revoke) and a pending user', async () => {
    const { userId } = await connectSandboxUser(service.app, dev);
    assert.equal((await deauth(userId)).statusCode, 200);
    const pending = await authenticateUser(service.app, dev, 'SANDBOX');
    assert.equal((await deauth(pending.userId)).statusCode, 200);
    assert.equal((await userInfo(pending.userId)).statusCode, 404);
  });

  test('400 / 401 / 404 paths, and another developer’s user is a 404', async () => {
    const { userId } = await connectSandboxUser(service.app, dev);
    const missing = problemOf(
      await service.app.inject({
        method: 'DELETE',
        url: '/v2/auth/deauthenticateUser',
        headers: dev.headers,
      }),
    );
    assert.equal(missing.status, 400);
    assert.match(missing.body.detail, /user_id/);
    const malformed = problemOf(await deauth('not-a-uuid'));
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.detail, 'invalid user_id: expected a UUID');
    assert.equal((await deauth('00000000-0000-4000-8000-000000000000')).statusCode, 404);
    const foreign = problemOf(await deauth(userId, other));
    assert.equal(foreign.status, 404);
    assert.equal((await userInfo(userId)).statusCode, 200, 'still there');
    const anonymous = await service.app.inject({
      method: 'DELETE',
      url: `/v2/auth/deauthenticateUser?user_id=${userId}`,
    });
    assert.equal(anonymous.statusCode, 401);
  });

  test('a refresh that fails for good: user marked broken, connection_error once', async () => {
    const { userId } = await connectSandboxUser(service.app, dev);
    const marked = await service.ctx.db
      .transaction()
      .execute((trx) => service.ctx.connecting.markConnectionBroken(trx, userId, 'refresh token rejected'));
    assert.equal(marked, true);
    const again = await service.ctx.db
      .transaction()
      .execute((trx) => service.ctx.connecting.markConnectionBroken(trx, userId, 'refresh token rejected'));
    assert.equal(again, false, 'only on the transition');
    const info = (await userInfo(userId)).json();
    assert.equal(info.is_authenticated, false);
    const sent = await waitForEvent('connection_error', userId);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.message, 'User connection degraded');
  });

  test('the provider reports revoked access: access_revoked, tokens dropped', async () => {
    const userId = await connectOura('revoked-at-provider');
    const marked = await service.ctx.db
      .transaction()
      .execute((trx) => service.ctx.connecting.markAccessRevoked(trx, userId));
    assert.equal(marked, true);
    const tokens = await service.ctx.db
      .selectFrom('provider_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .execute();
    assert.equal(tokens.length, 0);
    const row = await service.ctx.db
      .selectFrom('connections')
      .select('status')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'revoked');
    const [event] = await waitForEvent('access_revoked', userId);
    assert.equal(event?.message, 'User revoked access');
    assert.equal((event?.user as { active?: boolean } | undefined)?.active, false);
  });

  test('revoked access also ends a broken connection, once; nothing happens to a user already revoked', async () => {
    const userId = await connectOura('broken-then-revoked');
    const inTransaction = <T>(work: (trx: typeof service.ctx.db) => Promise<T>) =>
      service.ctx.db.transaction().execute(work);
    assert.equal(
      await inTransaction((trx) =>
        service.ctx.connecting.markConnectionBroken(trx, userId, 'refresh refused'),
      ),
      true,
    );
    assert.equal(await inTransaction((trx) => service.ctx.connecting.markAccessRevoked(trx, userId)), true);
    assert.equal(
      await inTransaction((trx) => service.ctx.connecting.markAccessRevoked(trx, userId)),
      false,
      'only on the transition',
    );
    assert.equal(
      await inTransaction((trx) => service.ctx.connecting.markConnectionBroken(trx, userId, 'again')),
      false,
      'a revoked connection is not broken again',
    );
    const status = await service.ctx.db
      .selectFrom('connections')
      .select('status')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    assert.equal(status.status, 'revoked');
    await waitForEvent('access_revoked', userId);
    const pending = await authenticateUser(service.app, dev, 'OURA');
    assert.equal(
      await inTransaction((trx) => service.ctx.connecting.markAccessRevoked(trx, pending.userId)),
      false,
      'a user still connecting has no access to revoke',
    );
    assert.equal(events().filter((e) => e.type === 'access_revoked' && e.user?.user_id === userId).length, 1);
  });

  test('operators are told when a revocation failed and when a connection broke', async () => {
    const { stream: sink, lines } = logLines();
    const ctx = service.ctx;
    const lifecycle = createLifecycle({
      db: ctx.db,
      config: ctx.config,
      clock: ctx.clock,
      secretBox: ctx.secretBox,
      log: createLogger('warn', sink),
      jobs: ctx.jobs,
      providers: ctx.providers,
      integrations: ctx.integrations,
      webhooks: ctx.webhooks,
      access: ctx.providerAccess,
    });
    const failing = await connectOura('logged-revocation');
    oura.revocationStatus = 500;
    try {
      await lifecycle.deauthenticate(dev.devId, failing);
    } finally {
      oura.revocationStatus = 200;
    }
    const revocation = lines.find((line) => line.msg === 'token revocation failed; deleting anyway');
    assert.ok(revocation, JSON.stringify(lines));
    assert.equal(revocation.provider, 'OURA');
    assert.equal(revocation.userId, failing);
    assert.ok(revocation.err, 'with the error');

    const breaking = await connectOura('logged-break');
    await ctx.db
      .transaction()
      .execute((trx) => lifecycle.markConnectionBroken(trx, breaking, 'refresh token rejected'));
    const broken = lines.find((line) => line.msg === 'connection broken');
    assert.ok(broken, JSON.stringify(lines));
    assert.equal(broken.userId, breaking);
    assert.equal(broken.provider, 'OURA');
    assert.equal(broken.reason, 'refresh token rejected');
  });

  test('generateAuthToken: single-use, expires in 180 s, stored only as a hash', async () => {
    const response = await service.app.inject({
      method: 'POST',
      url: '/v2/auth/generateAuthToken',
      headers: dev.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { status: string; token: string; expires_in: number };
    assert.equal(body.status, 'success');
    assert.equal(body.expires_in, 180);
    assert.match(body.token, /^[A-Za-z0-9_-]{43}$/);
    const rows = await service.ctx.db.selectFrom('sdk_auth_tokens').selectAll().execute();
    assert.equal(JSON.stringify(rows).includes(body.token), false);
    assert.ok(rows.some((row) => row.token_hash === createHash('sha256').update(body.token).digest('hex')));
    assert.deepEqual(await service.ctx.connecting.consumeSdkToken(body.token), {
      developerId: dev.devId,
      referenceId: null,
    });
    assert.equal(await service.ctx.connecting.consumeSdkToken(body.token), undefined, 'single use');
    const anonymous = await service.app.inject({ method: 'POST', url: '/v2/auth/generateAuthToken' });
    assert.equal(anonymous.statusCode, 401);
  });
});
