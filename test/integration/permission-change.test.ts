// `permission_change` (issue 45 item 6; the vendor's event documents and its FAQ on
// informational events) when a reconnect changes what the account grants: the same Oura account
// connected again, its consent granting fewer scopes (then more), sends `user_reauth` and then a
// `permission_change` about the new user with `scopes_added` and `scopes_removed` as comma lists;
// a reconnect granting the same scopes sends none. Everything over real sockets: the auth link
// and the callback to the service, the consent to the fake provider, the events to a receiver.
// (The provider-notice path — Garmin's userPermissionsChange — is tested in connector-garmin.)
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  fakeEnv,
  OURA_PROFILE,
  startFakeOAuthProvider,
  type FakeOAuthProvider,
} from '../fakes/oauth-provider.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

type Event = Record<string, unknown> & { type: string };
type User = { user_id: string; scopes?: string; active?: boolean };

const ALL = ['daily', 'email', 'heartrate', 'personal', 'session', 'spo2', 'tag', 'workout'];

describe('permission_change on a reconnect that changes the granted scopes', () => {
  let oura: FakeOAuthProvider;
  let service: TestService;
  let developer: TestDeveloper;
  let receiver: WebhookReceiver;
  let base: string;

  const events = (): Event[] => receiver.received.map((entry) => JSON.parse(entry.body) as Event);

  /** One consent of the Oura account, through the service's auth link and callback over HTTP. */
  const connect = async (grant: string | null): Promise<string> => {
    const link = await fetch(`${base}/v2/auth/authenticateUser?resource=OURA`, {
      method: 'POST',
      headers: { ...developer.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ reference_id: 'perm-person' }),
    });
    assert.equal(link.status, 200);
    const { user_id: userId, auth_url: authUrl } = (await link.json()) as {
      user_id: string;
      auth_url: string;
    };
    oura.grantScope = grant;
    const back = await oura.authorize(authUrl);
    const landing = await fetch(`${base}${back.pathname}${back.search}`, { redirect: 'manual' });
    assert.equal(landing.status, 302);
    assert.equal(new URL(String(landing.headers.get('location'))).searchParams.get('user_id'), userId);
    return userId;
  };
  const reauthOf = (userId: string) =>
    receiver.waitFor(
      () =>
        events().some((event) => event.type === 'user_reauth' && (event.new_user as User).user_id === userId),
      `user_reauth of ${userId}`,
    );
  const changesOf = (userId: string) =>
    events().filter((event) => event.type === 'permission_change' && (event.user as User).user_id === userId);

  before(async () => {
    oura = await startFakeOAuthProvider(OURA_PROFILE);
    receiver = await startWebhookReceiver();
    service = await startTestService({ env: { ...fakeEnv('OURA', oura) } });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    developer = await createDeveloper(service.ctx);
    await service.ctx.webhooks.setDestination(developer.devId, { url: receiver.url });
    oura.account = 'oura-perm-account';
  });
  after(async () => {
    await service?.close();
    await oura?.close();
    await receiver?.close();
  });

  test('fewer scopes, then more, then the same: permission_change twice, each with its user_reauth', async () => {
    const first = await connect(null);

    const narrowed = await connect('email personal daily');
    await reauthOf(narrowed);
    await receiver.waitFor(() => changesOf(narrowed).length === 1, 'the narrowing permission_change');
    const [removed] = changesOf(narrowed);
    assert.equal(removed!.status, 'warning');
    assert.equal(removed!.message, 'User permissions have been modified');
    assert.equal(removed!.scopes_added, '');
    assert.equal(
      removed!.scopes_removed,
      ALL.filter((scope) => !['daily', 'email', 'personal'].includes(scope)).join(','),
    );
    assert.equal((removed!.user as User).active, true);
    assert.deepEqual(
      String((removed!.user as User).scopes)
        .split(/[\s,]+/)
        .sort(),
      ['daily', 'email', 'personal'],
    );
    // The user_reauth it goes with replaced the first user.
    assert.ok(
      events().some((event) => event.type === 'user_reauth' && (event.old_user as User).user_id === first),
    );

    const widened = await connect('email personal daily heartrate workout');
    await reauthOf(widened);
    await receiver.waitFor(() => changesOf(widened).length === 1, 'the widening permission_change');
    assert.equal(changesOf(widened)[0]!.scopes_added, 'heartrate,workout');
    assert.equal(changesOf(widened)[0]!.scopes_removed, '');

    const same = await connect('workout heartrate daily personal email');
    await reauthOf(same);
    // The reauth is in; give the outbox one more delivery to show nothing else was queued with it.
    const settled = receiver.received.length;
    await connect('workout heartrate daily personal email').then(reauthOf);
    await receiver.waitFor(() => receiver.received.length > settled, 'the next reauth');
    assert.equal(changesOf(same).length, 0, 'the same scopes: no permission_change');
  });
});
