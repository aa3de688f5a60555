import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { signWebhook } from '../../src/features/delivery/signing.ts';
import { listenCommand, type ReceivedEvent } from '../../src/runtime/cli/listen.ts';
import { runInSession } from '../../src/runtime/cli/session.ts';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { callApi, startListen } from '../helpers/listen-session.ts';
import { until } from '../helpers/until.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * `tributary listen` against a whole Tributary on a real socket: it points the developer's
 * webhook at itself through the REST API, the service's workers deliver the test event to it,
 * it verifies both signatures and prints the event; with --forward-to it passes the delivery on
 * and answers with the forward's status; a delivery with a wrong signature is refused and makes
 * the command fail; the destination it replaced is set again when it stops.
 */
describe('tributary listen', () => {
  let service: TestService;
  let api: string;
  let developer: TestDeveloper;
  let app: WebhookReceiver;

  before(async () => {
    service = await startTestService();
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    api = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
    developer = await createDeveloper(service.ctx);
    app = await startWebhookReceiver();
  });
  after(async () => {
    await app?.close();
    await service?.close();
  });

  const call = (method: string, path: string, body?: unknown) => callApi(api, developer, method, path, body);
  const listen = (extra: string[]) => startListen(service.config, api, developer, extra);

  test('receives the test event, verifies it and prints it as JSON; the old destination comes back', async () => {
    assert.equal((await call('PUT', '/v2/webhook', { url: 'https://example.com/hook' })).status, 200);
    const { output, exit, listenerUrl } = await listen(['--json', '--count', '1']);
    assert.equal(((await (await call('GET', '/v2/webhook')).json()) as { url: string }).url, listenerUrl);

    assert.equal((await call('POST', '/v2/webhook/test')).status, 202);
    await until('the test event to arrive', () => output.stdout.includes('\n'), {
      show: () => output.stderr,
    });
    assert.equal(await exit, 0, output.stderr);

    const lines = output.stdout.trim().split('\n');
    assert.equal(lines.length, 1, output.stdout);
    const received = JSON.parse(lines[0]!) as ReceivedEvent;
    assert.equal(received.type, 'healthcheck');
    assert.equal(received.verified, true, received.problem ?? '');
    assert.equal(received.problem, null);
    assert.match(received.webhook_id ?? '', /\S/);
    assert.equal((received.event as { status: string }).status, 'success');
    assert.match(output.stderr, /The webhook destination is https:\/\/example\.com\/hook again/);
    const restored = (await (await call('GET', '/v2/webhook')).json()) as { url: string };
    assert.equal(restored.url, 'https://example.com/hook');
  });

  test('--forward-to passes a verified delivery on unchanged and answers with its status', async () => {
    app.script(503, 200);
    const { output, exit } = await listen(['--forward-to', app.url, '--count', '2']);
    assert.equal((await call('POST', '/v2/webhook/test')).status, 202);
    // The app's 503 is Tributary's answer too, so Tributary retries and the retry gets 200.
    await until('the delivery and its retry', () => app.received.length === 2, {
      show: () => output.stdout + output.stderr,
    });
    assert.equal(await exit, 0, output.stderr);
    assert.equal(app.received.length, 2);
    const [first, second] = app.received;
    assert.equal(first!.headers['webhook-id'], second!.headers['webhook-id'], 'the same event, retried');
    assert.equal(JSON.parse(first!.body).type, 'healthcheck');
    assert.match(String(first!.headers['webhook-signature']), /^v1,/);
    assert.match(String(first!.headers['service-signature']), /^t=\d+,v1=/);
    assert.match(output.stdout, /healthcheck {2}\S+ {2}verified {2}→ \S+ 503\n/);
    assert.match(output.stdout, /healthcheck {2}\S+ {2}verified {2}→ \S+ 200\n/);
    assert.match(output.stdout, /^ {6}"type": "healthcheck",$/m);
  });

  test('a delivery whose signature does not verify is refused, printed as such, not forwarded; status 1', async () => {
    const before = app.received.length;
    const { output, exit, listenerUrl } = await listen(['--forward-to', app.url, '--count', '1']);
    const body = JSON.stringify({ type: 'healthcheck', status: 'success' });
    const forged = signWebhook({
      id: 'msg_forged',
      timestamp: Math.floor(Date.now() / 1000),
      rawBody: body,
      secrets: ['whsec_' + Buffer.alloc(32, 7).toString('base64')],
    });
    const answer = await fetch(listenerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...forged },
      body,
    });
    assert.equal(answer.status, 400);
    assert.equal(await exit, 1);
    assert.match(
      output.stdout,
      /msg_forged {2}NOT VERIFIED \(webhook-signature: no matching signature; service-signature: no matching signature\)/,
    );
    assert.equal(app.received.length, before, 'nothing forwarded');
  });

  test('bad options and a production key are usage errors; an unreachable API fails', async () => {
    const run = (args: string[]) =>
      runInSession({ stdout: () => {}, stderr: () => {} }, () => listenCommand(service.config, args));
    await assert.rejects(run(['--count', '0']), /--count must be a whole number above 0/);
    await assert.rejects(run(['--dev-id', 'x']), /give both --dev-id and --api-key/);
    await assert.rejects(
      run(['--dev-id', 'x', '--api-key', 'sk_live_abc', '--secret', developer.webhookSecret]),
      /a production key/,
    );
    await assert.rejects(
      run(['--api-url', 'http://127.0.0.1:9', '--dev-id', 'x', '--api-key', 'sk_test_x', '--secret', 's']),
      /cannot reach Tributary at http:\/\/127\.0\.0\.1:9/,
    );
  });
});
