import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';
import { callApi, startListen } from '../helpers/listen-session.ts';
import { until } from '../helpers/until.ts';

/**
 * What `tributary listen` leaves behind when it stops: the webhook as it found it. A developer
 * with no URL before gets no URL again (not the listener's dead address, where every later event
 * would fail its attempts and mark the webhook failing): later events are held. A disabled webhook
 * comes back disabled. `PUT /v2/webhook {"url": null}` is the API that removes a URL.
 */
describe('tributary listen puts the webhook back as it found it', () => {
  let service: TestService;
  let api: string;

  before(async () => {
    service = await startTestService();
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    api = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  });
  after(async () => service?.close());

  type Webhook = {
    url: string | null;
    status: string;
    enabled: boolean;
    held_events: number;
    consecutive_failures: number;
  };
  const webhookOf = async (developer: TestDeveloper) =>
    (await (await callApi(api, developer, 'GET', '/v2/webhook')).json()) as Webhook;

  /** Runs the listener until one delivery (the test event) arrived; returns its output. */
  async function listenForOne(developer: TestDeveloper) {
    const { output, exit } = await startListen(service.config, api, developer, ['--json', '--count', '1']);
    assert.equal((await callApi(api, developer, 'POST', '/v2/webhook/test')).status, 202);
    assert.equal(await exit, 0, output.stderr);
    return output;
  }

  test('with no URL before, the listener’s URL is removed and later events are held, not failed', async () => {
    const developer = await createDeveloper(service.ctx);
    assert.equal((await webhookOf(developer)).url, null, 'a new developer has no webhook URL');

    const output = await listenForOne(developer);
    assert.match(
      output.stderr,
      /The webhook has no URL again, as before: events are held until one is set\./,
    );
    const after = await webhookOf(developer);
    assert.equal(after.url, null);
    assert.equal(after.status, 'active');

    // An event after the listener stopped (a connection's auth event) waits for a URL.
    await connectSandboxUser(service.app, developer, { referenceId: 'after-listen' });
    const held = await until('the auth event to be held', async () => {
      const webhook = await webhookOf(developer);
      return webhook.held_events > 0 ? webhook : undefined;
    });
    assert.equal(held!.consecutive_failures, 0, 'nothing was attempted against a dead listener');
    assert.equal(held!.status, 'active');
  });

  test('a disabled webhook comes back with its URL, disabled', async () => {
    const developer = await createDeveloper(service.ctx);
    const set = await callApi(api, developer, 'PUT', '/v2/webhook', {
      url: 'https://example.com/hook',
      enabled: false,
    });
    assert.equal(set.status, 200);

    const output = await listenForOne(developer);
    assert.match(
      output.stderr,
      /The webhook destination is https:\/\/example\.com\/hook again \(disabled, as it was\)\./,
    );
    const after = await webhookOf(developer);
    assert.equal(after.url, 'https://example.com/hook');
    assert.equal(after.enabled, false);
    assert.equal(after.status, 'disabled');
  });

  test('PUT /v2/webhook {"url": null} removes the URL; with enabled it is a 400 naming the field', async () => {
    const developer = await createDeveloper(service.ctx);
    assert.equal(
      (await callApi(api, developer, 'PUT', '/v2/webhook', { url: 'https://example.com/other' })).status,
      200,
    );
    const refused = await callApi(api, developer, 'PUT', '/v2/webhook', { url: null, enabled: true });
    assert.equal(refused.status, 400);
    assert.match(refused.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.match(((await refused.json()) as { detail: string }).detail, /enabled/);
    assert.equal((await webhookOf(developer)).url, 'https://example.com/other', 'nothing changed');

    const removed = await callApi(api, developer, 'PUT', '/v2/webhook', { url: null });
    assert.equal(removed.status, 200);
    assert.equal(((await removed.json()) as Webhook).url, null);
    assert.equal((await webhookOf(developer)).url, null);
  });
});
