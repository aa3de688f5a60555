import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { DashboardClient } from '../helpers/dashboard.ts';
import { S3_TEST_KEY, type S3Server, startS3Server } from '../helpers/s3-server.ts';
import { until } from '../helpers/until.ts';

/**
 * The dashboard's Destinations page: add an S3 destination from the form (its secret never on a
 * page, its name escaped), disable (a test send is then refused with the reason), enable, send a
 * test event that reaches the store, the destination's delivery log, delete.
 */
describe('dashboard destinations page', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let browser: DashboardClient;
  let s3: S3Server;
  const page = '/dashboard/destinations';
  const XSS = '<script>alert(1)</script>';

  before(async () => {
    s3 = await startS3Server(['dash']);
    service = await startTestService();
    developer = await createDeveloper(service.ctx);
    browser = new DashboardClient(service.app);
    assert.equal((await browser.signIn(developer.devId, developer.apiKey)).statusCode, 303);
  });
  after(async () => {
    await service?.close();
    await s3?.close();
  });

  test('add, disable, refused test, enable, test delivered, log, delete', async () => {
    const empty = await browser.get(page);
    assert.equal(empty.statusCode, 200);
    assert.match(empty.body, /No destinations yet/);
    assert.match(empty.body, /aria-current="page">Destinations</);

    const bad = await browser.submit(page, `${page}/add`, { kind: 's3', settings: '{not json' });
    assert.equal(bad.statusCode, 303);
    assert.match((await browser.get(page)).body, /role="alert">invalid settings: expected a JSON object/);

    const added = await browser.submit(page, `${page}/add`, {
      kind: 's3',
      name: `lake ${XSS}`,
      settings: JSON.stringify({
        bucket: 'dash',
        endpoint: s3.endpoint,
        access_key_id: S3_TEST_KEY.accessKeyId,
        secret_access_key: S3_TEST_KEY.secretAccessKey,
      }),
    });
    assert.equal(added.statusCode, 303);
    const listed = (await browser.get(page)).body;
    assert.ok(!listed.includes(XSS), 'the name is escaped');
    assert.ok(listed.includes('lake &lt;script&gt;'), listed);
    assert.ok(!listed.includes(S3_TEST_KEY.secretAccessKey), 'the secret is never on the page');
    const id = /\/dashboard\/destinations\/([0-9a-f-]{36})"/.exec(listed)?.[1];
    assert.ok(id, 'a link to the destination');

    await browser.submit(page, `${page}/${id}/disable`);
    assert.match((await browser.get(page)).body, /Destination disabled; its events are held/);
    await browser.submit(page, `${page}/${id}/test`);
    assert.match((await browser.get(page)).body, /role="alert">the destination is disabled/);
    await browser.submit(page, `${page}/${id}/enable`);
    await browser.submit(page, `${page}/${id}/test`);
    assert.match((await browser.get(page)).body, /Test event evt_[0-9a-f]+ queued/);
    await until('the test event in the store', () => s3.objects('dash').size === 1);
    const detail = await until(
      'the delivery log shows it delivered',
      async () => (await browser.get(`${page}/${id}`)).body,
      { done: (body) => /healthcheck/.test(body) && /delivered/.test(body) },
    );
    assert.ok(!detail.includes(S3_TEST_KEY.secretAccessKey));
    assert.equal((await browser.get(`${page}/not-a-uuid`)).statusCode, 404);

    await browser.submit(page, `${page}/${id}/delete`);
    assert.match((await browser.get(page)).body, /Destination deleted/);
    assert.equal((await browser.get(`${page}/${id}`)).statusCode, 404);
  });
});
