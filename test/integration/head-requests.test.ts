// A HEAD to any path is answered as a GET to it would be (status and headers), without a body;
// a path with no GET answers HEAD with the same 404/405 problem status a GET gets. Passes on the
// code that registered one HEAD route per GET route (Fastify's exposeHeadRoutes) and on the code
// that routes HEAD to the GET route (head-requests.ts): it guards that the change kept behaviour.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from '../helpers/app.ts';

// Differ between any two answers.
const VOLATILE = new Set(['x-request-id', 'date']);
const stable = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !VOLATILE.has(name)));

describe('HEAD requests', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ work: false });
  });
  after(async () => {
    await service?.close();
  });

  const both = async (url: string, headers: Record<string, string> = {}) => {
    const get = await service.app.inject({ method: 'GET', url, headers });
    const head = await service.app.inject({ method: 'HEAD', url, headers });
    return { get, head };
  };

  for (const [what, url] of [
    ['a plain JSON answer', '/health'],
    ['a route with a parameter', '/problems/rate-limited'],
    ['a route-set type and headers', '/v2/static/icons/garmin.svg'],
    ['a text answer', '/metrics'],
    ['a refusal before the handler (no credentials)', '/v2/webhook'],
    ['an unknown path (404)', '/v2/nothing-here'],
  ] as const)
    test(`${what}: the GET's status and headers, no body`, async () => {
      const { get, head } = await both(url);
      assert.equal(head.statusCode, get.statusCode);
      assert.equal(head.body, '');
      assert.ok(get.body.length > 0);
      // Lengths differ where the body does: the metrics text grows between the two requests,
      // and a problem's detail names the method.
      const sameBody = url !== '/metrics' && get.statusCode < 400;
      const withoutLength = (headers: Record<string, unknown>) => {
        const { 'content-length': length, ...rest } = stable(headers);
        assert.match(String(length), /^\d+$/);
        return sameBody ? { ...rest, 'content-length': length } : rest;
      };
      assert.deepEqual(withoutLength(head.headers), withoutLength(get.headers));
      // The problem a HEAD would have had names HEAD, not GET: one letter longer.
      if (get.statusCode === 404)
        assert.equal(Number(head.headers['content-length']), Number(get.headers['content-length']) + 1);
    });

  test('a path with no GET: 405 naming the methods it has, HEAD not among them', async () => {
    const head = await service.app.inject({ method: 'HEAD', url: '/v2/webhook/test' });
    assert.equal(head.statusCode, 405);
    assert.equal(head.headers.allow, 'POST');
    assert.equal(head.body, '');
  });

  test('a path with a GET allows HEAD', async () => {
    const response = await service.app.inject({ method: 'DELETE', url: '/health' });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'GET, HEAD');
  });

  test('metrics and the request count it as HEAD', async () => {
    await service.app.inject({ method: 'HEAD', url: '/health' });
    const metrics = await service.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(
      metrics.body,
      /tributary_http_requests_total\{method="HEAD",route="\/health",status="200"\} \d+/,
    );
  });

  test('over a socket: the GET’s length, no body', async () => {
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = service.app.server.address() as AddressInfo;
    const get = await fetch(`http://127.0.0.1:${port}/health`);
    const getBody = await get.text();
    const head = await fetch(`http://127.0.0.1:${port}/health`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(getBody)));
    assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
    assert.equal(await head.text(), '');
  });
});
