import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { exportText } from '../helpers/apple-export.ts';
import { multipart } from '../helpers/lab-reports.ts';

/**
 * Uploads that cost storage and reading time are limited per developer, before the file is read:
 * one developer past its rate gets 429 problem+json with Retry-After, naming the setting, and
 * another developer is not affected. (Jobs do not run here: only admission is under test.)
 */
describe('per-developer upload rates: lab reports and export imports', () => {
  let service: TestService;
  let first: TestDeveloper;
  let second: TestDeveloper;

  before(async () => {
    service = await startTestService({
      work: false,
      env: { LAB_REPORT_UPLOAD_RATE: '2/3600', MOBILE_IMPORT_RATE: '1/3600' },
    });
    first = await createDeveloper(service.ctx);
    second = await createDeveloper(service.ctx);
  });
  after(async () => {
    await service?.close();
  });

  const report = Buffer.from('%PDF-1.4\n%%EOF\n');
  const uploadReport = (developer: TestDeveloper) => {
    const body = multipart(report, { filename: 'report.pdf' });
    return service.app.inject({
      method: 'POST',
      url: '/v2/lab-reports',
      headers: { ...developer.headers, 'content-type': body.contentType },
      payload: body.payload,
    });
  };
  const importExport = (developer: TestDeveloper, referenceId: string) =>
    service.app.inject({
      method: 'POST',
      url: `/v2/import/apple-health?reference_id=${referenceId}`,
      headers: { ...developer.headers, 'content-type': 'application/xml' },
      payload: exportText({ days: 1 }),
    });

  const assertLimited = (response: Awaited<ReturnType<typeof uploadReport>>, setting: string): void => {
    assert.equal(response.statusCode, 429, response.body);
    assert.match(String(response.headers['content-type']), /application\/problem\+json/);
    assert.ok(Number(response.headers['retry-after']) >= 1, 'Retry-After in seconds');
    assert.match((response.json() as { detail: string }).detail, new RegExp(setting));
  };

  test('lab reports: past LAB_REPORT_UPLOAD_RATE a 429, for that developer only', async () => {
    assert.equal((await uploadReport(first)).statusCode, 202);
    assert.equal((await uploadReport(first)).statusCode, 202);
    assertLimited(await uploadReport(first), 'LAB_REPORT_UPLOAD_RATE');
    const sessions = await service.ctx.db
      .selectFrom('lab_report_sessions')
      .select('id')
      .where('developer_id', '=', first.devId)
      .execute();
    assert.equal(sessions.length, 2, 'the refused upload stored nothing');
    assert.equal((await uploadReport(second)).statusCode, 202, 'another developer uploads as before');
  });

  test('imports: past MOBILE_IMPORT_RATE a 429, for that developer only', async () => {
    assert.equal((await importExport(first, 'rate-a')).statusCode, 202);
    assertLimited(await importExport(first, 'rate-b'), 'MOBILE_IMPORT_RATE');
    assert.equal(
      (await importExport(second, 'rate-c')).statusCode,
      202,
      'another developer imports as before',
    );
  });
});
