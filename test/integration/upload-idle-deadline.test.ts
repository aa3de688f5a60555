// Streamed uploads (multipart bodies, exports spooled to disk) have no total deadline, since a
// slow link may take long, but an idle one: over a real socket, a client that stops sending
// mid-upload gets a 408 problem+json naming the stall, the connection is closed and the partly
// spooled export removed; one that keeps trickling within the idle window is answered as usual.
// Before, such uploads were exempt from every deadline and a stalled client held its connection
// and spool file forever. UPLOAD_IDLE_TIMEOUT_SECONDS is 1 here (a setting, not a measured
// duration); nothing asserts how long anything took: the tests wait for states.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { type RawConnection, rawConnection } from '../helpers/raw-connection.ts';
import { until } from '../helpers/until.ts';

const BOUNDARY = 'idle-deadline-boundary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const partHead = (fileName: string, type: string) =>
  `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="${fileName}"\r\n` +
  `content-type: ${type}\r\n\r\n`;

const requestHead = (path: string, headers: Record<string, string>, contentType: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nhost: x\r\n` +
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('') +
  `content-type: ${contentType}\r\ncontent-length: ${length}\r\n\r\n`;

describe('a streamed upload that stops arriving', () => {
  let service: TestService;
  let developer: TestDeveloper;
  let port: number;
  const spooled = () => {
    try {
      return readdirSync(join(service.ctx.config.dataDir, 'imports')).filter((name) =>
        name.endsWith('.upload'),
      );
    } catch {
      return [];
    }
  };

  before(async () => {
    service = await startTestService({ work: false, env: { UPLOAD_IDLE_TIMEOUT_SECONDS: '1' } });
    developer = await createDeveloper(service.ctx);
    const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
  });
  after(async () => {
    await service?.close();
  });

  /** Awaits the server closing a stalled upload; asserts the 408 problem naming the stall. */
  async function assertStalledAnswer(upload: RawConnection) {
    await until('the server closes the stalled upload', upload.closed, { timeoutMs: 30_000 });
    const answer = upload.answer();
    assert.match(answer, /^HTTP\/1\.1 408 /, answer);
    assert.match(answer, /content-type: application\/problem\+json/i);
    assert.match(answer, /"status":408/);
    assert.match(answer, /the upload stalled: no bytes arrived for 1 s \(UPLOAD_IDLE_TIMEOUT_SECONDS\)/);
  }

  /**
   * Starts an export import that trickles until its spool file is on disk (so the file is known to
   * exist), then stalls: 408, and the spool file goes.
   */
  async function stallExportImport(contentType: string, opening: string) {
    const path = `/v2/import/apple-health?reference_id=stall-${spooled().length}-${Date.now()}`;
    const upload = rawConnection(
      port,
      requestHead(path, developer.headers, contentType, 10_000_000) + opening,
    );
    try {
      await until('the export is being spooled', async () => {
        if (spooled().length > 0) return true;
        await upload.send('<Record type="HKQuantityTypeIdentifierStepCount" value="1"/>\n');
        return false;
      });
      await assertStalledAnswer(upload);
      await until('the partly spooled export is removed', () => spooled().length === 0, {
        timeoutMs: 30_000,
      });
    } finally {
      upload.destroy();
    }
  }

  test('an export import sent as the file itself: 408, its spool file removed', async () => {
    await stallExportImport('application/xml', '<?xml version="1.0"?>\n<HealthData>\n');
  });

  test('an export import sent as multipart: 408, its spool file removed', async () => {
    await stallExportImport(MULTIPART, partHead('export.xml', 'application/xml') + '<HealthData>\n');
  });

  test('a multipart lab report upload: 408, connection closed', async () => {
    const upload = rawConnection(
      port,
      requestHead('/v2/lab-reports', developer.headers, MULTIPART, 5_000_000) +
        partHead('report.pdf', 'application/pdf') +
        '%PDF-1.4\n',
    );
    try {
      await assertStalledAnswer(upload);
    } finally {
      upload.destroy();
    }
  });

  test('a slow export that keeps sending within the idle window is accepted', async () => {
    const chunk = '<Record type="HKQuantityTypeIdentifierStepCount" value="1"/>\n';
    const chunks = 40;
    const body = '<HealthData>\n' + chunk.repeat(chunks) + '</HealthData>\n';
    const upload = rawConnection(
      port,
      requestHead(
        '/v2/import/apple-health?reference_id=trickle',
        developer.headers,
        'application/xml',
        body.length,
      ),
    );
    try {
      await upload.send('<HealthData>\n');
      // A chunk a tenth of the idle window apart: the upload as a whole lasts several windows.
      for (let i = 0; i < chunks; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.ok(!upload.closed(), `the connection was closed after ${i} chunks: ${upload.answer()}`);
        await upload.send(chunk);
      }
      await upload.send('</HealthData>\n');
      await until('the import is answered', () => /\r\n\r\n\{/.test(upload.answer()), { timeoutMs: 30_000 });
      assert.match(upload.answer(), /^HTTP\/1\.1 202 /, upload.answer());
      assert.match(upload.answer(), /"status":"queued"/);
    } finally {
      upload.destroy();
    }
  });
});
